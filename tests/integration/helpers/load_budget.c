// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing object against the verifier's budget on the running kernel
 * (tests/integration/test_load_budget.sh): each command's session
 * (loader/sessions.c) loaded as the command loads it, with the kernel's
 * own calibration (loaded and attached) and with synthetic ones (loaded
 * only): 4- and 5-level x86 tables, random direct-map and vmemmap bases
 * where KASLR puts them, arm64's 3- and 4-level values, struct pages of
 * several sizes, no vmemmap.  The calibration's values are read-only data
 * the verifier folds into the programs, so one that made it explode here
 * would on some machine.  Every session must load with nothing refused,
 * every program within PC_VERIFY_BUDGET_INSNS; the load and attach times
 * are printed against PC_LOAD_BUDGET_MS, not judged (a wall time, which
 * a busy machine stretches).  TAP; exit 0 pass, 1 fail, 4 skip (no root).
 *
 *   load_budget [SEED]     SEED: of the random bases (default: the time)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "load.h"
#include "probe.h"
#include "session.h"
#include "sessions.h"

#define GiB (1ULL << 30)

static int nr, nr_fail;

static void point(bool good, const char *fmt, const char *cmd, const char *calib,
		  const char *detail)
{
	nr++;
	nr_fail += !good;
	printf("%s %d - ", good ? "ok" : "not ok", nr);
	printf(fmt, cmd, calib);
	printf("\n");
	if (!good && detail)
		printf("# %s\n", detail);
}

/* A random value in [lo, hi) in steps of step. */
static __u64 pick(__u64 lo, __u64 hi, __u64 step)
{
	__u64 n = (hi - lo) / step, r = ((__u64)random() << 31) ^ (__u64)random();

	return lo + (n ? r % n : 0) * step;
}

struct calib_case {
	char name[96];
	struct pc_walk_calib c;
	__u64 phys_limit;
};

/* The synthetic calibrations (the values each arch's layout allows). */
static int cases(struct calib_case *out)
{
	static const __u64 page_sizes[] = {64, 56, 80};
	int n = 0;

	for (int k = 0; k < 3; k++) {
		__u64 ps = page_sizes[k], ram = pick(GiB, 4096 * GiB, GiB);
		struct {
			const char *arch;
			__u32 levels;
			__u64 base, vmemmap;
		} l[] = {
			/* x86: KASLR places each region on a 1 GiB boundary
			   (arch/x86/mm/kaslr.c) above its default base. */
			{"x86 4-level", 4, pick(0xffff888000000000ULL, 0xffffc88000000000ULL, GiB),
			 pick(0xffffea0000000000ULL, 0xfffff00000000000ULL, GiB)},
			{"x86 5-level", 5, pick(0xff11000000000000ULL, 0xff91000000000000ULL, GiB),
			 pick(0xffd4000000000000ULL, 0xffd8000000000000ULL, GiB)},
			/* arm64 48-bit VA: PAGE_OFFSET, VMEMMAP_START; 39-bit. */
			{"arm64 4-level", 4, 0xffff000000000000ULL, 0xfffffc0000000000ULL},
			{"arm64 3-level", 3, 0xffffff8000000000ULL, 0xfffffffe00000000ULL},
		};

		for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++, n++) {
			struct calib_case *c = &out[n];

			*c = (struct calib_case){.phys_limit = ram};
			c->c.direct_map_base = l[i].base;
			c->c.levels = l[i].levels;
			c->c.valid = 1;
			c->c.vmemmap = l[i].vmemmap;
			c->c.page_size = ps;
			snprintf(c->c.vmemmap_why, sizeof(c->c.vmemmap_why), "synthetic");
			snprintf(
				c->name, sizeof(c->name),
				"%s, direct map 0x%llx, vmemmap 0x%llx, struct page %llu, RAM %llu "
				"GiB",
				l[i].arch, (unsigned long long)l[i].base,
				(unsigned long long)l[i].vmemmap, (unsigned long long)ps,
				(unsigned long long)(ram / GiB));
		}
	}
	/* The walk calibrated, the vmemmap not: the derived walk off. */
	out[n] = out[0];
	out[n].c.page_size = 0;
	snprintf(out[n].name, sizeof(out[n].name), "x86 4-level, no vmemmap");
	return n + 1;
}

/* One session; its worst program and times, judged against the budget. */
static void judge(const struct pc_command_session *cmd, const struct calib_case *cc)
{
	static struct pc_session s; /* large: not on the stack */
	struct pc_session_opts so = cmd->so;
	char detail[600] = "", *d = detail;
	__u32 worst = 0;
	const char *wname = "-";
	double ms;

	if (cc) {
		so.calib = &cc->c;
		so.calib_phys_limit = cc->phys_limit;
	}
	pc_session_open(&s, &so);
	for (int i = 0; i < s.n_costs; i++)
		if (s.costs[i].verified_insns > worst) {
			worst = s.costs[i].verified_insns;
			wname = s.costs[i].name;
		}
	ms = s.load_ms + s.attach_ms;
	for (int i = 0; i < s.n_refused; i++)
		d += snprintf(d, detail + sizeof(detail) - d, "%s; ", s.refused[i].line);
	if (!s.loaded)
		snprintf(d, detail + sizeof(detail) - d, "%s", s.load_error);
	point(s.loaded && !s.n_refused, "%s [%s]: loads, nothing refused", cmd->command,
	      cc ? cc->name : "this kernel's calibration", detail);
	snprintf(detail, sizeof(detail), "%s: %u instructions verified", wname, worst);
	point(s.loaded && worst <= PC_VERIFY_BUDGET_INSNS,
	      "%s [%s]: every program within 200000 instructions", cmd->command,
	      cc ? cc->name : "this kernel's calibration", detail);
	/* The time is said, not judged: it is a wall time, and beside CI's
	   TCG guests (ctest -j2) this kernel's object took 338-401 ms to what
	   takes 60 alone.  The instructions are the verifier's work itself. */
	printf("# %s [%s]: %d programs, the largest %s %u; load %.1f ms, attach %.1f ms "
	       "(budget %.0f ms%s)\n",
	       cmd->command, cc ? cc->name : "this kernel", s.n_costs, wname, worst, s.load_ms,
	       s.attach_ms, PC_LOAD_BUDGET_MS,
	       ms > PC_LOAD_BUDGET_MS ? ", over it: not judged" : "");
	pc_session_close(&s);
}

int main(int argc, char **argv)
{
	static struct calib_case cc[16];
	unsigned int seed =
		argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : (unsigned int)time(NULL);
	int n;

	printf("TAP version 13\n");
	if (!pc_have_bpf_privilege()) {
		printf("1..0 # SKIP needs root (CAP_BPF and CAP_PERFMON)\n");
		return 4;
	}
	/* The seed, to load the same bases again: load_budget SEED. */
	printf("# seed %u\n", seed);
	srandom(seed);
	n = cases(cc);
	for (int i = 0; i < pc_n_command_sessions; i++) {
		judge(&pc_command_sessions[i], NULL);
		if (!strcmp(pc_command_sessions[i].command, "run")) {
			/* run with the crash witness (a guest's run): its
			   printing branch verified too. */
			struct pc_command_session w = pc_command_sessions[i];

			w.command = "run+witness";
			w.so.crash_witness = true;
			judge(&w, NULL);
		}
		for (int k = 0; k < n; k++) {
			/* A program near the limit costs the verifier seconds a
			   load: three failures tell enough. */
			if (nr_fail >= 3) {
				printf("Bail out! %d failures\n", nr_fail);
				return 1;
			}
			judge(&pc_command_sessions[i], &cc[k]);
		}
	}
	printf("1..%d\n", nr);
	return nr_fail ? 1 : 0;
}
