/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model: one pc_result per (check, tier), histograms, notes and
 * run metadata; and the writers for text, JSON, TAP and JUnit XML
 * (report_text.c, report_json.c, report_tap.c, report_junit.c).  Everything a run prints goes
 * through here.
 */
#ifndef PTECHECK_REPORT_H
#define PTECHECK_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <ptecheck/types.h>
#include <ptecheck/hist.h>
#include <ptecheck/events.h>
#include "cli.h"
#include "out.h"

/* 2: results carry "variants" (the scenarios that judged them and those
   that did not run, with why); 3: and "scenarios" (each one's status,
   counts and own words); 4: and "sample_every" (watch --sample); 5:
   histograms[].batch (a batch histogram's path and source); 6: "bpf"
   (the tracing object's programs, refusals); 7: "scenario_histograms"
   (run: each scenario's events); 8: histograms[].id and
   scenario_histograms[].histograms[].id (what comparisons key on, in
   place of the title); 9: "suite" up to 63 characters (a list of
   suites, run --suite A,B,...; 31 before).  The gate reads 1 to 9. */
#define PC_REPORT_SCHEMA_VERSION 9
/* The report's "suite": "all", one suite or a list of them, NUL ended. */
#define PC_SUITE_LIST_MAX     64
#define PC_MAX_VARIANTS	      40 /* scenarios per result: filemap has 29 */
#define PC_MAX_EVIDENCE	      8
#define PC_EVIDENCE_LINES_MAX 1536
#define PC_NOTE_MAX	      512 /* a note's bytes, with its NUL */
/* A scenario's own words: as large as an oracle verdict's summary
   (pc_oracle_msg in verify/scenario.h), so none is cut. */
#define PC_VARIANT_TEXT 200

#define PC_EVIDENCE_FRAMES PC_STACK_FRAMES /* kernel stack frames kept */

/* A kernel stack frame: its address and, where kallsyms names it,
   "func+0xoff" ("func+0xoff [mod]"); sym "" if it is not named. */
struct pc_frame {
	__u64 addr;
	char sym[128];
};

enum pc_status { PC_STATUS_PASS = 0, PC_STATUS_FAIL, PC_STATUS_SKIP };
enum pc_format { PC_FORMAT_TEXT = 0, PC_FORMAT_JSON, PC_FORMAT_TAP, PC_FORMAT_JUNIT };

struct pc_evidence {
	int pid;
	__u64 addr;	/* address where the violation was seen (old side) */
	__u64 new_addr; /* address on the new side, 0 if none */
	__u64 expected;
	__u64 seen;
	char what[160]; /* e.g. "dirty bit lost: page 3" */
	/* Kernel-log evidence: the splat's lines, '\n'-separated (cut at
	   the size); empty for page-table evidence. */
	char lines[PC_EVIDENCE_LINES_MAX];
	/* An in-kernel violation's kernel stack, innermost first: n_frames
	   frames, or stack_err (an errno) when it could not be taken; both 0:
	   evidence that has no stack (userspace oracles, the kernel log). */
	int n_frames;
	int stack_err;
	char stack_note[96]; /* why the frames have no names ("" if they have) */
	struct pc_frame frames[PC_EVIDENCE_FRAMES];
};

/*
 * A scenario variant of a result: it judged the check (ran) or did not.
 * Judged more than once (--stress rounds): fail over pass over skip, the
 * counts summed, the words of its first failing round (else of its first
 * that ran) kept.
 */
struct pc_variant {
	char scenario[32];	       /* as it ran: "whole-xfs", by the filesystem statfs found */
	enum pc_status status;	       /* pass or fail: it ran; skip: it did not */
	char why[PC_VARIANT_TEXT];     /* skip: the reason */
	char summary[PC_VARIANT_TEXT]; /* ran: what it judged, in its oracle's words */
	__u64 checked;
	__u64 violations;
	unsigned int rounds; /* verdicts it gave (1, or more under --stress) */
	unsigned int judged; /* of those, the ones that ran (pass or fail) */
};

struct pc_result {
	char name[48];	/* "mremap/moved": the invariant */
	char tier[48];	/* "oracle:pagemap", "kernel:syscall-walk", ... */
	bool in_kernel; /* observed in the kernel (true) or derived from
			   page-table state read by userspace (false) */
	enum pc_status status;
	char summary[320]; /* what was checked, or why it was skipped */
	__u64 checked;
	__u64 violations;
	__u64 inconclusive;
	int n_evidence;
	struct pc_evidence evidence[PC_MAX_EVIDENCE];
	int n_variants; /* 0: not judged by scenarios (a kernel tier) */
	struct pc_variant variants[PC_MAX_VARIANTS];
};

/* A histogram's stable id: what gates, policies and exporters key on
   ("mremap/latency", "fork/batch/folio_pte_batch"; report/hist_id.c).
   Its title (name) is for people and may change. */
#define PC_HIST_ID_MAX 64

struct pc_hist_report {
	char id[PC_HIST_ID_MAX];
	char name[96];	 /* "mremap latency", "munmap PTEs per batch (folio_pte_batch)" */
	char unit[24];	 /* "ns", "PTEs", "flushes" */
	char source[96]; /* "tracepoint tlb:tlb_flush inside mremap" */
	/* A batch histogram's path and kernel source ("munmap",
	   "folio_pte_batch"; "derived": the page-table walk); "": not one. */
	char batch_ctx[32], batch_src[32];
	bool in_kernel;
	__u32 kind; /* enum pc_hist_kind */
	__u64 slots[PC_HIST_SLOTS];
	/* The exact sum of the values counted (ptecheck export's _sum), when
	   has_sum: the kernel keeps one per histogram, not one per --by key. */
	bool has_sum;
	__u64 sum;
	/* watch/hist --by: whose events these are.  by PC_BY_NONE: everyone
	   traced.  Else one key's, or (unattributed) those of the keys the
	   kernel's table had no room for. */
	__u32 by; /* enum pc_hist_by */
	bool unattributed;
	__u32 pid;     /* by pid */
	char comm[16]; /* by comm: the key; by pid: the name at its last event */
};

/* ptecheck's BPF object on this kernel: what the verifier made of it. */
#define PC_REPORT_PROGS	  64
#define PC_REPORT_REFUSED 8
struct pc_report_bpf {
	bool loaded;		   /* the tracing object loaded (programs below) */
	double load_ms, attach_ms; /* its verification, its attach */
	int n_progs;
	struct {
		char name[48];
		__u32 verified_insns; /* instructions the verifier processed */
	} progs[PC_REPORT_PROGS];
	/* Programs of ptecheck's own the kernel refused, a line each: a
	   failure of ptecheck, not a property of the kernel (exit 3). */
	int n_refused;
	char refused[PC_REPORT_REFUSED][400];
};

/*
 * run: what the histograms counted while one scenario ran (the snapshot
 * after it less the one before), and whether it judged anything: a gate
 * compares the same workloads on both sides, not whatever mix of
 * scenarios each side's run-wide histograms sum (docs/gate.md, "Like
 * with like").  Under --stress the rounds of a scenario add up.
 */
struct pc_scenario_hists {
	char suite[32];
	char scenario[32]; /* as it ran: its variants' name ("whole-xfs") */
	bool judged;	   /* a check passed or failed in it */
	int n_hists, cap_hists;
	struct pc_hist_report *hists; /* those with events, as the run-wide ones */
};

struct pc_report {
	char suite[PC_SUITE_LIST_MAX];
	char command[16]; /* run, watch, hist */
	char kernel_release[65];
	char machine[65]; /* uname -m */
	char started[32]; /* ISO 8601 UTC */
	double duration_s;
	unsigned int scale; /* run: workload sizes divided by this (0: not a run) */
	bool partial;	    /* interrupted: results so far */
	bool verbose;	    /* run -v: text, TAP and JUnit give each scenario of a check */
	/* watch --sample: the checks judged 1 in this many windows (0, 1: every one) */
	unsigned int sample_every;
	int n_results, cap_results;
	struct pc_result *results;
	int n_hists, cap_hists;
	struct pc_hist_report *hists;
	int n_notes, cap_notes;
	char **notes;
	__u64 stats[16]; /* enum pc_stat_id, see ptecheck/events.h */
	int n_stats;
	struct pc_report_bpf bpf; /* run, watch, hist, export: the tracing object */
	int n_scens, cap_scens;
	struct pc_scenario_hists *scens; /* run: each scenario's histograms */
};

struct pc_report *pc_report_new(const char *command, const char *suite);
/* Removes the notes that start with prefix: how many. */
int pc_report_drop_notes(struct pc_report *r, const char *prefix);
void pc_report_free(struct pc_report *r);
/*
 * For a child of the process that holds r and never reads it (a scenario
 * of `ptecheck run`): r's large arrays, megabytes by the end of a run, in
 * large folios or not as the allocator placed them, are not copied into
 * the processes the child forks, whose fork batches would count them
 * (docs/gate.md, "Like with like").
 */
void pc_report_dontfork(const struct pc_report *r);

/* Adds a result in SKIP state with an empty summary; returns NULL on ENOMEM. */
struct pc_result *pc_report_add_result(struct pc_report *r, const char *name, const char *tier,
				       bool in_kernel);
/* Finds a result by name and tier, NULL if absent. */
struct pc_result *pc_report_find_result(struct pc_report *r, const char *name, const char *tier);
/* Sets status and summary; a summary too long is cut by pc_text_fit(). */
void pc_result_set(struct pc_result *res, enum pc_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * src into dst of sz bytes.  Text that does not fit is cut at the last
 * space (or character) that leaves room for "..." and then mark (where the
 * whole text is, or ""), never inside a word or a character: an address
 * cut to 11 hex digits would look real.  True if it was cut.
 */
bool pc_text_fit(char *dst, size_t sz, const char *src, const char *mark);
/* Keeps the first PC_MAX_EVIDENCE items (returns the one kept, else
   NULL); later ones only count.  what too long is cut by pc_text_fit(). */
struct pc_evidence *pc_result_add_evidence(struct pc_result *res, int pid, __u64 addr,
					   __u64 new_addr, __u64 expected, __u64 seen,
					   const char *what);

/* Evidence that is text from the kernel log: pid and command named in it
   (pid -1 if none), what it is, and its lines. */
void pc_result_add_log_evidence(struct pc_result *res, int pid, const char *what,
				const char *lines);

/*
 * Scenario scenario judged res (status pass or fail, text what it judged,
 * with its counts) or skipped it (text why).  Judged more than once: see
 * struct pc_variant.  Past PC_MAX_VARIANTS, -ENOSPC.
 */
int pc_result_add_variant(struct pc_result *res, const char *scenario, enum pc_status st,
			  const char *text, __u64 checked, __u64 violations);
/*
 * res->summary from its variants, short: "judged by 5 scenarios: 1280
 * checked, 0 violations; 2 not run", on a failure the first failing
 * scenario's words; each scenario's are in -v and JSON.
 */
void pc_result_summarize_variants(struct pc_result *res);
/* The variants kept, within [0, PC_MAX_VARIANTS]. */
int pc_result_n_variants(const struct pc_result *res);
/* The variant of that scenario, NULL if none. */
const struct pc_variant *pc_result_find_variant(const struct pc_result *res, const char *scenario);
/* How many variants did not run. */
int pc_result_variants_skipped(const struct pc_result *res);

/* Adds a histogram of that id and title; NULL with errno EINVAL for a
   kind it cannot print or an id pc_hist_id_valid() refuses, or ENOMEM. */
struct pc_hist_report *pc_report_add_hist(struct pc_report *r, const char *id, const char *name,
					  const char *unit, const char *source, bool in_kernel,
					  __u32 kind);
/* Marks h a batch histogram of path ctx and kernel source src. */
void pc_report_hist_batch(struct pc_hist_report *h, const char *ctx, const char *src);
void pc_report_note(struct pc_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The histogram of that id, NULL if none (r NULL too); writable if r is. */
struct pc_hist_report *pc_report_find_hist(const struct pc_report *r, const char *id);
/* Events in h (NULL: 0), saturating. */
__u64 pc_hist_report_total(const struct pc_hist_report *h);

/* ---- each scenario's histograms (report/scenario_hists.c) ---- */

/* The entry of (suite, scenario), added (not judged, no histograms) when
   absent and add; NULL if absent and not add, or out of memory. */
struct pc_scenario_hists *pc_report_scenario(struct pc_report *r, const char *suite,
					     const char *scenario, bool add);
/* Adds h's counts to sc's histogram of that id (made like h when absent).
   0, -EINVAL (another kind than sc's of that id) or -ENOMEM. */
int pc_scenario_hists_add(struct pc_scenario_hists *sc, const struct pc_hist_report *h);
/* Adds what each histogram of after counted since before (same id; none
   there: all of it) to sc.  0 or -ENOMEM. */
int pc_scenario_hists_add_delta(struct pc_scenario_hists *sc, const struct pc_report *before,
				const struct pc_report *after);
/* sc's histogram of that id, NULL if it has none. */
const struct pc_hist_report *pc_scenario_hist(const struct pc_scenario_hists *sc, const char *id);

/* ---- histogram ids (report/hist_id.c) ---- */

/* An id is 1 to PC_HIST_ID_MAX - 1 bytes of [a-z0-9_.-] in parts joined
   by '/', none empty. */
bool pc_hist_id_valid(const char *id);
/* A label as an id part: lowercased, '*' dropped, every other run of
   characters outside [a-z0-9_.] one '-' ("madvise DONTNEED":
   "madvise-dontneed", "mmap/brk": "mmap-brk"). */
void pc_hist_id_part(char *buf, size_t len, const char *label);
/* A batch histogram's id from its context and source labels:
   "<context>/batch/<source>" ("fork/batch/folio_pte_batch"). */
void pc_hist_batch_id(char *buf, size_t len, const char *ctx, const char *src);
/* Whether id matches pattern, an fnmatch(3) glob whose '*' may cross a
   '/' (docs/gate.md: "exit/<star>" matches every exit histogram). */
bool pc_hist_id_match(const char *pattern, const char *id);

/* ---- --by (report/hist_key.c) ---- */

/* "pid", "comm", or NULL for PC_BY_NONE or out of range. */
const char *pc_hist_by_name(__u32 by);
/* "comm" or "pid" -> enum pc_hist_by; -1 if neither. */
int pc_hist_by_parse(const char *s);
/* The key line of h: "comm = dd", "pid = 1234 (dd)" or why unattributed;
   "" when h is not keyed.  Returns buf. */
char *pc_hist_key_text(const struct pc_hist_report *h, char *buf, size_t len);
/* a and b are the same histogram of the same key. */
bool pc_hist_same_key(const struct pc_hist_report *a, const struct pc_hist_report *b);
/* The histogram in r of h's id and key, NULL if none. */
const struct pc_hist_report *pc_report_find_hist_key(const struct pc_report *r,
						     const struct pc_hist_report *h);
/* Orders each run of consecutive same-id keyed histograms of h[n] by
   events, largest first (ties by key), the unattributed last, as
   biolatency -D orders its disks. */
void pc_hist_order_keys(struct pc_hist_report *h, int n);

static inline __u64 pc_sat_add(__u64 a, __u64 b)
{
	return a + b < a ? (__u64)-1 : a + b;
}

/* The same names in text, TAP and JSON: enum pc_stat_id, lowercased
   ("stat_N" in buf for one not named). */
const char *pc_report_stat_name(int i, char *buf, size_t sz);
/* The results by status; one out of range counts as failed (never passed). */
void pc_report_count(const struct pc_report *r, int *pass, int *fail, int *skip);
/* The tier of the kernel-log results every suite adds: a reading of the
   kernel log for splats, not a check of a path's invariants. */
#define PC_TIER_KMSG "oracle:kmsg"
/* PC_EXIT_FAIL if any failed; PC_EXIT_SKIP if no invariant check passed
   (nothing but the kernel log was judged: nothing of the paths was
   checked); else PASS. */
int pc_report_exit_code(const struct pc_report *r);
/* The line that says why a report with passes exits PC_EXIT_SKIP, or NULL. */
const char *pc_report_skip_why(const struct pc_report *r);
/* 0, or -errno if writing failed (-EINVAL: no such format). */
int pc_report_write(const struct pc_report *r, enum pc_format fmt, FILE *out);
/* One interval of watch/hist -i: a stamp line, then each histogram of now
   less the same one in before (NULL: since the start), as text; 0 or -errno. */
int pc_report_write_interval(const struct pc_report *now, const struct pc_report *before,
			     const char *stamp, FILE *out);
/* "text", "json", "tap", "junit" -> format; -1 if unknown. */
int pc_format_parse(const char *s);
/* --format ARG of run, watch and hist into *out; false, with the message
   on stderr, when ARG names no format. */
bool pc_format_option(const char *arg, enum pc_format *out);
const char *pc_status_name(enum pc_status st);

#endif
