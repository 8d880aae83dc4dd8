/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every suite's measurement uses: sizes, the oracles' tier names, the
 * bytes written to pages, CPU pinning, scaling, the PROT_NONE address
 * space a measurement places its mappings in and accesses that may fault.
 */
#ifndef PTECHECK_MEASURE_H
#define PTECHECK_MEASURE_H

#include <sched.h> /* cpu_set_t: includers define _GNU_SOURCE first */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <ptecheck/types.h>
#include "scenario.h"

#define KIB	  1024UL
#define MIB	  (1024UL * KIB)
#define PAGE	  ((size_t)PC_PAGE_SIZE)
#define PMD	  ((size_t)PC_PMD_SIZE)
#define FOLIO_64K (64 * KIB)

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((a)-1))
#define DIV_UP(x, a)   (((x) + (a)-1) / (a))

/* The userspace oracles' tiers, as reports name them. */
#define TIER_PAGEMAP	 "oracle:pagemap"
#define TIER_KPAGEFLAGS	 "oracle:kpageflags"
#define TIER_KPAGECOUNT	 "oracle:kpagecount"
#define TIER_DATA_LOSS	 "oracle:data-loss"
#define TIER_DATA	 "oracle:data"
#define TIER_REFERENCED	 "oracle:smaps-referenced"
#define TIER_COW	 "oracle:cow"
#define TIER_SIGBUS	 "oracle:sigbus"
#define TIER_RSS	 "oracle:status-rss"
#define TIER_WRITE_FAULT "oracle:write-fault"
#define TIER_SMAPS	 "oracle:smaps"
#define TIER_PROGRESS	 "oracle:progress"

/* Salts of pc_page_byte: what a page holds first, and what overwrites it. */
#define SALT_A 0x11
#define SALT_B 0x77

/* A non-zero byte per page and salt; different salts never collide. */
__u8 pc_page_byte(size_t page, __u8 salt);
/* This process's page faults so far (minor and major): the write-fault
   oracles count a write's faults as the difference. */
__u64 pc_faults_self(void);
/* Writes byte at at, once; the page faults that write took. */
__u64 pc_write_faults(char *at, char byte);
/* Pins the caller to the CPU it runs on (old: the mask to restore). */
bool pc_pin_cpu(cpu_set_t *old);
/* full bytes divided by the context's --scale, at least min, in granules
   (a power of two). */
size_t pc_scaled_len(const struct pc_scenario_ctx *ctx, size_t full, size_t min, size_t granule);

/* Address space reserved PROT_NONE: no page, no page table, until mapped over. */
struct pc_resv {
	char *base;
	size_t len;
};
/* Reserves len bytes; returns the first 2 MiB boundary in them, or NULL
   with errno. */
char *pc_resv_map(struct pc_resv *r, size_t len);
/* Unmaps the reservation and all mapped into it (no-op when none). */
void pc_resv_release(struct pc_resv *r);
/* Maps len bytes read-write at addr (inside a reservation): fd shared, or
   anonymous private for fd < 0; then madvise(advice) unless 0.  0 or -errno. */
int pc_map_fixed(char *addr, size_t len, int fd, int advice);

/* The handlers replaced while probes are installed. */
struct pc_probe_handlers {
	struct sigaction bus, segv;
};

/* SIGBUS and SIGSEGV caught while installed, for pc_probe_read/write. */
void pc_probe_install(struct pc_probe_handlers *old);
void pc_probe_restore(const struct pc_probe_handlers *old);
/* Reads *p, or writes v to *p: 0, or the signal (SIGBUS, SIGSEGV) the
   access raised. */
int pc_probe_read(const volatile char *p);
int pc_probe_write(volatile char *p, __u8 v);
/*
 * A write of v to *p that must complete within seconds: 0, SIGALRM when
 * it did not (the fault taken again and again without mapping the page),
 * or SIGBUS/SIGSEGV while pc_probe_install's handlers are in place.
 */
int pc_probe_write_within(volatile char *p, __u8 v, unsigned int seconds);

#endif
