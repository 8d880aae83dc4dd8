// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of `ptecheck bench`: the patches' figures (each two sides of one
 * workload run alternately) and the overhead of the checks (bare against
 * traced, alternately), load+attach time and lost events.  Every side is a
 * child process whose own --json line gives the figure; nothing here
 * judges a timing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "bench_empty.skel.h"
#include "cli.h"
#include "report.h"
#include "scratchfs.h"
#include "session.h"
#include "tracefs.h"

#define CHILD_TIMEOUT_S 900.0

const char *const pc_bench_row_names[] = {
	"mremap-folios",
	"mremap-pmd",
	"filemap-fault",
	"contpte-mlock",
	"overhead-mremap-folios-hist",
	"overhead-mremap-folios-watch",
	"overhead-mremap-folios-empty-bpf",
	"overhead-mremap-folios-bpftrace",
	"overhead-filemap-fault-hist",
	"overhead-filemap-fault-watch",
	"overhead-filemap-fault-empty-bpf",
	"overhead-filemap-fault-bpftrace",
	"load-attach",
	NULL,
};

/* ---- command lines -------------------------------------------------------- */

#define AV_MAX 40

struct av {
	int n;
	char *v[AV_MAX + 1];
	char buf[AV_MAX][256];
};

static void __attribute__((format(printf, 2, 3))) av_add(struct av *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= AV_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(a->buf[a->n], sizeof(a->buf[0]), fmt, ap);
	va_end(ap);
	a->v[a->n] = a->buf[a->n];
	a->v[++a->n] = NULL;
}

static void av_join(const struct av *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", a->v[i]);
}

/* ---- one side of a comparison ------------------------------------------- */

enum wrap { W_BARE, W_HIST, W_WATCH, W_EMPTY, W_BPFTRACE };

struct side {
	const char *label;
	enum wrap wrap;
	const struct av *cmd; /* the workload */
	const char *metric;   /* key of its --json line */
	bool rate;	      /* the metric grows when faster (pages/s) */
	/* the last run */
	double value;
	json_t *wl;
	long long instructions;
	/* sums over the measured runs */
	long long dropped, state_full, violations, runs;
	json_t *failed; /* the first failed results of hist/watch, as evidence */
	double detach_s;
	int links; /* W_EMPTY: programs attached */
};

static const char *bpftrace_path(void)
{
	static const char *const dirs[] = {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin"};
	static char path[64];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/bpftrace", dirs[i]);
		if (!access(path, X_OK))
			return path;
	}
	return NULL;
}

/*
 * The histograms `ptecheck hist` keeps on a kernel with tracepoints only
 * (mremap latency, TLB flushes per mremap, fault-around window per fault),
 * for the command bpftrace starts (cpid), as a bpftrace program.
 */
static void bpftrace_prog(char *buf, size_t len)
{
	bool tlb = pc_tracepoint_exists("tlb/tlb_flush");

	snprintf(buf, len,
		 "tracepoint:syscalls:sys_enter_mremap /pid == cpid/ { @start[tid] = nsecs; "
		 "@fl[tid] = 0; }\n"
		 "%s"
		 "tracepoint:syscalls:sys_exit_mremap /@start[tid]/ { @latency_ns = hist(nsecs - "
		 "@start[tid]); @tlb_flushes = lhist(@fl[tid], 0, 16, 1); delete(@start[tid]); "
		 "delete(@fl[tid]); }\n"
		 "tracepoint:filemap:mm_filemap_map_pages /pid == cpid/ { @faultaround_pages = "
		 "hist(args->last_index - args->index + 1); }\n",
		 tlb ? "tracepoint:tlb:tlb_flush /@start[tid]/ { @fl[tid]++; }\n" : "");
}

/* The empty programs of bench/empty.bpf.c on every tracepoint that exists. */
struct empty_obj {
	struct bench_empty_bpf *skel;
	struct bpf_link *links[64];
	int n;
};

static int empty_attach(struct empty_obj *e, char *why, size_t len)
{
	struct bpf_program *p;
	int err;

	memset(e, 0, sizeof(*e));
	pc_tracefs_ensure();
	e->skel = bench_empty_bpf__open();
	if (!e->skel) {
		snprintf(why, len, "empty BPF object: open: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(p, e->skel->obj) bpf_program__set_autoload(
		p, pc_tracepoint_exists(bpf_program__section_name(p) + 3));
	err = bench_empty_bpf__load(e->skel);
	if (err) {
		snprintf(why, len, "empty BPF object: load: %s", strerror(-err));
		bench_empty_bpf__destroy(e->skel);
		e->skel = NULL;
		return -1;
	}
	bpf_object__for_each_program(p, e->skel->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		if (e->n >= (int)(sizeof(e->links) / sizeof(e->links[0]))) {
			snprintf(why, len, "empty BPF object: more programs than %zu link slots",
				 sizeof(e->links) / sizeof(e->links[0]));
			return -1; /* the caller destroys what is attached */
		}
		l = bpf_program__attach(p);
		if (l)
			e->links[e->n++] = l;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void empty_detach(struct empty_obj *e)
{
	for (int i = 0; i < e->n; i++)
		bpf_link__destroy(e->links[i]);
	bench_empty_bpf__destroy(e->skel);
	e->skel = NULL;
	e->n = 0;
}

/* Keeps the first few failed results of a report (a watch saw a violation). */
static void keep_failed(struct side *s, json_t *report)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(report, "results"), i, r)
	{
		const char *st = json_string_value(json_object_get(r, "status"));

		if (!st || strcmp(st, "fail"))
			continue;
		if (!s->failed)
			s->failed = json_array();
		if (json_array_size(s->failed) < 4)
			json_array_append(s->failed, r);
	}
}

/* Runs one side once; 0 with s->value set, or -1 with why. */
static int run_side(struct pc_bench *b, struct side *s, char *why, size_t len)
{
	char prog[1024], cmdline[2048], line[200];
	struct pc_bench_child c;
	struct empty_obj e = {0};
	const char *bt = NULL;
	json_t *report = NULL, *v;
	struct av a = {0};
	int rc;

	json_decref(s->wl);
	s->wl = NULL;
	switch (s->wrap) {
	case W_BARE:
	case W_EMPTY:
		break;
	case W_HIST:
	case W_WATCH:
		av_add(&a, "%s", b->exe);
		av_add(&a, "%s", s->wrap == W_HIST ? "hist" : "watch");
		av_add(&a, "--format");
		av_add(&a, "json");
		av_add(&a, "--");
		break;
	case W_BPFTRACE:
		bt = bpftrace_path();
		if (!bt) {
			snprintf(why, len,
				 "bpftrace not installed (Debian: apt-get install bpftrace)");
			return -1;
		}
		bpftrace_prog(prog, sizeof(prog));
		av_join(s->cmd, cmdline, sizeof(cmdline));
		/* argv[] by hand: the program and command exceed av's 256 bytes. */
		break;
	}
	for (int i = 0; s->wrap != W_BPFTRACE && i < s->cmd->n; i++)
		av_add(&a, "%s", s->cmd->v[i]);
	if (s->wrap == W_EMPTY && empty_attach(&e, why, len)) {
		empty_detach(&e);
		return -1;
	}
	if (s->wrap == W_BPFTRACE) {
		char *argv[] = {(char *)bt, "-e", prog, "-c", cmdline, NULL};

		rc = pc_bench_run(b, argv, CHILD_TIMEOUT_S, &c);
	} else {
		rc = pc_bench_run(b, a.v, CHILD_TIMEOUT_S, &c);
	}
	if (s->wrap == W_EMPTY) {
		double t0 = now_s();

		s->links = e.n;
		empty_detach(&e);
		s->detach_s = now_s() - t0;
	}
	if (rc) {
		snprintf(why, len, "%s: cannot start %s: %s", s->label, s->cmd->v[0],
			 strerror(-rc));
		return -1;
	}
	s->instructions = c.instructions;
	/* hist/watch --format json send the command's stdout to stderr. */
	s->wl = pc_bench_workload_json(c.err);
	if (!s->wl)
		s->wl = pc_bench_workload_json(c.out);
	if (!s->wl) {
		int st = c.status;

		if (WIFEXITED(st) && WEXITSTATUS(st) == 4 && s->wrap == W_BARE)
			snprintf(why, len, "cannot run here: %s",
				 pc_bench_first_line(c.err, line, sizeof(line)));
		else
			snprintf(why, len, "%s: %s %d, no result line: %s", s->label,
				 WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				 pc_bench_first_line(c.err && *c.err ? c.err : c.out, line,
						     sizeof(line)));
		pc_bench_child_free(&c);
		return -1;
	}
	v = json_object_get(s->wl, s->metric);
	s->value = json_number_value(v);
	if (!json_is_number(v) || s->value <= 0) {
		snprintf(why, len, "%s: no positive \"%s\" in the workload's result", s->label,
			 s->metric);
		pc_bench_child_free(&c);
		return -1;
	}
	if (s->wrap == W_HIST || s->wrap == W_WATCH) {
		report = json_loads(c.out, 0, NULL);
		if (report) {
			json_t *st = json_object_get(report, "stats");

			s->dropped += json_integer_value(json_object_get(st, "events_dropped"));
			s->state_full += json_integer_value(json_object_get(st, "state_full"));
			s->violations += json_integer_value(
				json_object_get(json_object_get(report, "summary"), "failed"));
			keep_failed(s, report);
			json_decref(report);
		}
	}
	s->runs++;
	pc_bench_child_free(&c);
	return 0;
}

/* ---- pairs ----------------------------------------------------------------- */

struct series {
	double a[PC_BENCH_MAX_REPEAT], b[PC_BENCH_MAX_REPEAT], r[PC_BENCH_MAX_REPEAT];
	long long ia[PC_BENCH_MAX_REPEAT], ib[PC_BENCH_MAX_REPEAT];
	int n;
};

static json_t *values(const double *v, int n)
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(arr, json_real(v[i]));
	return arr;
}

static void set_side(json_t *row, const char *key, const char *label, const double *v, int n,
		     const char *unit, const char *per)
{
	struct pc_bench_stats st;

	pc_bench_stats(v, n, &st);
	json_object_set_new(row, key,
			    json_pack("{s:s, s:f, s:s, s:s, s:o}", "label", label, "median",
				      st.median, "unit", unit, "per", per, "values", values(v, n)));
}

static void set_ratios(json_t *row, const double *r, int n)
{
	struct pc_bench_stats st;

	pc_bench_stats(r, n, &st);
	json_object_set_new(row, "median", json_real(st.median));
	json_object_set_new(row, "min", json_real(st.min));
	json_object_set_new(row, "max", json_real(st.max));
	json_object_set_new(row, "pairs", json_integer(n));
	json_object_set_new(row, "ratios", values(r, n));
}

static void set_reference(json_t *row, const char *text, double ratio)
{
	json_object_set_new(row, "reference", json_string(text));
	if (ratio > 0)
		json_object_set_new(row, "reference_ratio", json_real(ratio));
}

static void set_target(json_t *row, const char *text, double max, double value)
{
	json_object_set_new(row, "target", json_string(text));
	json_object_set_new(row, "target_max", json_real(max));
	json_object_set_new(row, "target_met", json_boolean(value <= max));
}

/* Ratio of one pair: speedup of b over a, or slowdown of b (traced) against a (bare). */
static double pair_ratio(const struct side *a, const struct side *b, enum pc_bench_kind k)
{
	double ta = a->rate ? 1 / a->value : a->value, tb = b->rate ? 1 / b->value : b->value;

	return k == PC_BENCH_SPEEDUP ? ta / tb : tb / ta;
}

/*
 * Runs warm-up (both sides, or a only) then o.repeat pairs a, b, a, b ...
 * 0, or -1 with why.  The last run of each side stays in side->wl.
 */
static int run_pairs(struct pc_bench *b, struct side *sa, struct side *sb, enum pc_bench_kind k,
		     int warmup, struct series *ser, char *why, size_t len)
{
	char w[400];

	memset(ser, 0, sizeof(*ser));
	if (warmup >= 1 && run_side(b, sa, why, len))
		return -1;
	if (warmup >= 2 && run_side(b, sb, why, len))
		return -1;
	sa->dropped = sa->state_full = sa->violations = sa->runs = 0;
	sb->dropped = sb->state_full = sb->violations = sb->runs = 0;
	for (int i = 0; i < b->o.repeat; i++) {
		if (run_side(b, sa, w, sizeof(w)) || run_side(b, sb, w, sizeof(w))) {
			snprintf(why, len, "pair %d: %s", i + 1, w);
			return -1;
		}
		ser->a[i] = sa->value;
		ser->b[i] = sb->value;
		ser->ia[i] = sa->instructions;
		ser->ib[i] = sb->instructions;
		ser->r[i] = pair_ratio(sa, sb, k);
		ser->n = i + 1;
	}
	return 0;
}

/* Instruction ratio (a / b) of the pairs, when the counter exists here. */
static void set_instructions(struct pc_bench *b, json_t *row, const struct series *s)
{
	double r[PC_BENCH_MAX_REPEAT];
	struct pc_bench_stats st;

	for (int i = 0; i < s->n; i++) {
		if (s->ia[i] <= 0 || s->ib[i] <= 0) {
			json_object_set_new(
				row, "instructions",
				json_string(b->instr_why[0] ? b->instr_why : "not counted"));
			return;
		}
		r[i] = (double)s->ia[i] / (double)s->ib[i];
	}
	pc_bench_stats(r, s->n, &st);
	json_object_set_new(row, "instructions",
			    json_pack("{s:s, s:f, s:f, s:f}", "ratio_of", "instructions A / B",
				      "median", st.median, "min", st.min, "max", st.max));
}

static bool is_arm64(void)
{
	return !strcmp(PTECHECK_ARCH_NAME, "arm64");
}

static void wl_path(const struct pc_bench *b, struct av *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	av_add(a, "%s/%s", b->workloads, name);
}

/* ---- figure 1: mremap of 1 MiB, 64 KiB folios vs 4 KiB pages --------------- */

static void fig_mremap_folios(struct pc_bench *b)
{
	const char *name = "mremap-folios";
	unsigned long iters = b->o.quick ? 1000 : 10000;
	struct av a4, a64;
	struct side sa = {"4k", W_BARE, &a4, "mremap_ns_per_iter"};
	struct side sb = {"64k", W_BARE, &a64, "mremap_ns_per_iter"};
	struct pc_bench_stats st;
	struct series ser;
	char title[160], why[512], note[400];
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mremap of 1 MiB: 4 KiB pages (A) vs 64 KiB folios (B), %lu iterations", iters);
	row = pc_bench_row_new(name, "figures", title, PC_BENCH_SPEEDUP);
	json_object_set_new(row, "ratio_of", json_string("mremap time per call, A / B"));
	set_reference(row,
		      "1.9 s -> 1.2 s on Apple M3 (arm64; on x86 expect ~1.0: mremap batches "
		      "are 1 PTE there)",
		      1.9 / 1.2);
	for (int i = 0; i < 2; i++) {
		struct av *a = i ? &a64 : &a4;

		wl_path(b, a, "mremap_folios");
		av_add(a, "--folio");
		av_add(a, i ? "64k" : "4k");
		av_add(a, "--iterations");
		av_add(a, "%lu", iters);
		av_add(a, "--json");
	}
	if (run_pairs(b, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		goto out;
	}
	set_ratios(row, ser.r, ser.n);
	set_side(row, "a", "4k", ser.a, ser.n, "ns", "/mremap");
	set_side(row, "b", "64k", ser.b, ser.n, "ns", "/mremap");
	set_instructions(b, row, &ser);
	pc_bench_stats(ser.r, ser.n, &st);
	snprintf(note, sizeof(note),
		 is_arm64()
			 ? "arm64: 64 KiB folios are moved in contpte batches of 16 PTEs; "
			   "the patch's speedup was %.2f (a before/after-patch ratio, here "
			   "4 KiB pages vs 64 KiB folios on one kernel); measured %.2f"
			 : "x86: ~1.0 is the expected result (mremap moves one PTE per batch "
			   "here, so 64 KiB folios save nothing; the reference %.2f is arm64's); "
			   "measured %.2f",
		 1.9 / 1.2, st.median);
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
}

/* ---- figure 2: mremap of 1 GiB, PMD-aligned vs misaligned ------------------- */

static void fig_mremap_pmd(struct pc_bench *b)
{
	const char *name = "mremap-pmd";
	const char *size = b->o.quick ? "256M" : "1G";
	double va[PC_BENCH_MAX_REPEAT], vb[PC_BENCH_MAX_REPEAT], r[PC_BENCH_MAX_REPEAT];
	struct pc_bench_child c;
	struct pc_bench_stats sa, sb, sr;
	struct av a;
	char title[160], why[512] = "", line[200], note[512];
	json_t *row, *wl;
	int n = 0;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mremap of %s: misaligned, PTE by PTE (A) vs PMD-aligned (B), 4 KiB pages",
		 b->o.quick ? "256 MiB" : "1 GiB");
	row = pc_bench_row_new(name, "figures", title, PC_BENCH_SPEEDUP);
	json_object_set_new(row, "ratio_of", json_string("time of one mremap call, A / B"));
	set_reference(row,
		      "3.4-3.6 ms -> 144-160 us on x86 (merged patch); early version 160-250 ms "
		      "-> 380-400 us",
		      3.5e-3 / 152e-6);
	wl_path(b, &a, "mremap_pmd");
	av_add(&a, "--size");
	av_add(&a, "%s", size);
	av_add(&a, "--mode");
	av_add(&a, "both");
	av_add(&a, "--iterations");
	av_add(&a, "1");
	av_add(&a, "--json");
	/* One child per pair: it maps, moves aligned, maps again, moves misaligned. */
	for (int i = -1; i < b->o.repeat; i++) {
		if (pc_bench_run(b, a.v, CHILD_TIMEOUT_S, &c)) {
			snprintf(why, sizeof(why), "cannot start %s: %s", a.v[0], strerror(errno));
			break;
		}
		wl = pc_bench_workload_json(c.out);
		if (!wl) {
			snprintf(why, sizeof(why), "%s%s",
				 WIFEXITED(c.status) && WEXITSTATUS(c.status) == 4
					 ? "cannot run here: "
					 : "mremap_pmd failed: ",
				 pc_bench_first_line(c.err, line, sizeof(line)));
			pc_bench_child_free(&c);
			break;
		}
		pc_bench_child_free(&c);
		if (i >= 0) {
			va[n] = json_number_value(json_object_get(wl, "misaligned_median_ns"));
			vb[n] = json_number_value(json_object_get(wl, "aligned_median_ns"));
			r[n] = vb[n] > 0 ? va[n] / vb[n] : 0;
			n++;
		}
		json_decref(wl);
	}
	if (why[0] || n == 0) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why[0] ? why : "no pair measured");
		return;
	}
	set_ratios(row, r, n);
	set_side(row, "a", "misaligned", va, n, "ns", "/mremap");
	set_side(row, "b", "aligned", vb, n, "ns", "/mremap");
	pc_bench_stats(va, n, &sa);
	pc_bench_stats(vb, n, &sb);
	pc_bench_stats(r, n, &sr);
	snprintf(note, sizeof(note),
		 "the reference is before/after the patch for an aligned 1 GiB move; here the "
		 "kernel has it, so A (misaligned: every PTE moved) plays 'before' and B "
		 "(aligned: one PMD per 2 MiB) 'after': %.3g ms -> %.3g us%s, speedup %.1f "
		 "(merged patch: ~23)",
		 sa.median / 1e6, sb.median / 1e3,
		 b->o.quick ? " for 256 MiB (--quick; 1 GiB takes about 4x)" : "", sr.median);
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
}

/* ---- figure 3: filemap read faults, large vs small folios -------------------- */

/* The source device of the mount on dir, from /proc/self/mountinfo. */
static int mount_source(const char *dir, char *dev, size_t len)
{
	char line[1024], mnt[PATH_MAX], src[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		if (!strcmp(mnt, dir)) {
			snprintf(dev, len, "%s", src);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * ext4 on a loop device, twice: mounted as is (large folios, where ext4 has
 * them) and with data=journal, with which ext4 keeps 4 KiB folios.  The
 * journal mode cannot change on remount, so the second is unmounted and
 * mounted again on the same loop device.
 */
static int fm_mount(const char *dir, unsigned int mb, bool journal, char *why, size_t len)
{
	char dev[PATH_MAX];
	int err = pc_scratch_blockfs(dir, "ext4", mb, why, len);

	if (err || !journal)
		return err;
	err = mount_source(dir, dev, sizeof(dev));
	if (err) {
		snprintf(why, len, "no mount on %s in /proc/self/mountinfo", dir);
		return err;
	}
	if (umount2(dir, 0)) {
		err = -errno;
		snprintf(why, len, "umount %s: %s", dir, strerror(errno));
		return err;
	}
	if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, "data=journal")) {
		err = -errno;
		snprintf(why, len, "mount %s with data=journal: %s", dev, strerror(errno));
		/* Back as it was, so the scratch bookkeeping can undo it. */
		mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, NULL);
		return err;
	}
	return 0;
}

/* "4K x 16384" from the workload's folio census, or "unknown". */
static void census_text(const json_t *wl, char *buf, size_t len, bool *large)
{
	const json_t *f = json_object_get(wl, "folios"), *v;
	const char *k;
	size_t used = 0;

	*large = false;
	buf[0] = '\0';
	if (!json_is_object(f) || !json_object_size(f)) {
		snprintf(buf, len, "unknown");
		return;
	}
	json_object_foreach((json_t *)f, k, v)
	{
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s x %lld",
				 used ? ", " : "", k, (long long)json_integer_value(v));
		if (strcmp(k, "4K"))
			*large = true;
	}
}

static void fig_filemap(struct pc_bench *b)
{
	const char *name = "filemap-fault", *tmp = getenv("TMPDIR");
	unsigned int size_mb = b->o.quick ? 16 : 64;
	char base[PATH_MAX], small[PATH_MAX + 8], large[PATH_MAX + 8], why[512] = "", note[900];
	char cs[160], cl[160];
	struct av as, al;
	struct side sa = {"small", W_BARE, &as, "faults_per_sec", true};
	struct side sb = {"large", W_BARE, &al, "faults_per_sec", true};
	struct series ser;
	struct pc_bench_stats st;
	bool small_large, large_large;
	double ppf_a, ppf_b;
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	row = pc_bench_row_new(name, "figures",
			       "filemap read faults (will-it-scale page_fault shape), ext4: "
			       "4 KiB folios (A, data=journal) vs large folios (B)",
			       PC_BENCH_SPEEDUP);
	json_object_set_new(row, "ratio_of", json_string("pages faulted in per second, B / A"));
	set_reference(row, "+15 % from batched rmap, +2 % from batched refcount", 1.15 * 1.02);
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(base, sizeof(base), "%s/ptecheck-bench.XXXXXX", tmp);
	if (!mkdtemp(base)) {
		snprintf(why, sizeof(why), "mkdtemp in %s: %s", tmp, strerror(errno));
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		return;
	}
	snprintf(small, sizeof(small), "%s/small", base);
	snprintf(large, sizeof(large), "%s/large", base);
	if (fm_mount(large, 2 * size_mb + 64, false, why, sizeof(why)) ||
	    fm_mount(small, 2 * size_mb + 64, true, why, sizeof(why))) {
		char w[560];

		snprintf(w, sizeof(w), "ext4 on a loop device: %s", why);
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, w);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		struct av *a = i ? &al : &as;

		wl_path(b, a, "filemap_fault");
		av_add(a, "--backing");
		av_add(a, "%s", i ? large : small);
		av_add(a, "--size");
		av_add(a, "%uM", size_mb);
		av_add(a, "--seconds");
		av_add(a, "%s", b->o.quick ? "0.3" : "2");
		av_add(a, "--json");
	}
	if (run_pairs(b, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		goto out;
	}
	set_ratios(row, ser.r, ser.n);
	set_side(row, "a", "small", ser.a, ser.n, "pages/s", "");
	set_side(row, "b", "large", ser.b, ser.n, "pages/s", "");
	census_text(sa.wl, cs, sizeof(cs), &small_large);
	census_text(sb.wl, cl, sizeof(cl), &large_large);
	ppf_a = json_number_value(json_object_get(sa.wl, "pages_per_fault"));
	ppf_b = json_number_value(json_object_get(sb.wl, "pages_per_fault"));
	json_object_set_new(row, "extra",
			    json_pack("{s:s, s:s, s:f, s:f}", "folios_a", cs, "folios_b", cl,
				      "pages_per_fault_a", ppf_a, "pages_per_fault_b", ppf_b));
	pc_bench_stats(ser.r, ser.n, &st);
	snprintf(note, sizeof(note),
		 "folios: A %s, B %s%s; pages per fault: A %.1f, B %.1f.  The reference is "
		 "before/after the batching with large folios on both sides; here one kernel "
		 "compares folio sizes, and %s, so the ratio also counts the faults large "
		 "folios save, not only batched rmap and refcount",
		 cs, cl,
		 small_large || !large_large ? " (NOT the intended small/large split: read the "
					       "ratio with care)"
					     : "",
		 ppf_a, ppf_b,
		 ppf_b > ppf_a * 1.5 ? "a read fault maps a whole large folio here"
				     : "both sides map about as many pages per fault");
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
	pc_scratch_release_all();
	rmdir(small);
	rmdir(large);
	rmdir(base);
}

/* ---- figure 4: contpte mlock/munlock loop (arm64) ------------------------------ */

static void fig_contpte(struct pc_bench *b)
{
	const char *name = "contpte-mlock";
	struct av a4, a64;
	struct side sa = {"4k", W_BARE, &a4, "median_ns"};
	struct side sb = {"64k", W_BARE, &a64, "median_ns"};
	struct series ser;
	struct pc_bench_stats st;
	char title[200], why[512], note[700];
	const char *size = b->o.quick ? "8M" : "64M";
	int iters = b->o.quick ? 20 : 100;
	bool emulated = !strcmp(b->platform.kind, "emulated");
	long long f64, lost;
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mlock+r/w+munlock loop over %s: 4 KiB pages (A) vs 64 KiB contpte folios (B), "
		 "%d iterations",
		 size, iters);
	row = pc_bench_row_new(name, "figures", title, PC_BENCH_SPEEDUP);
	json_object_set_new(row, "ratio_of", json_string("median time per iteration, A / B"));
	set_reference(row, "31.5 s -> 28.1 s", 31.5 / 28.1);
	if (!is_arm64()) {
		pc_bench_row_finish(b, row, PC_BENCH_NOT_APPLICABLE,
				    "arm64 only (run in the arm64 guest: guest/vmtest --arch arm64 "
				    "--build-dir build-guest-arm64 -- bench --quick --only "
				    "contpte-mlock)");
		return;
	}
	for (int i = 0; i < 2; i++) {
		struct av *a = i ? &a64 : &a4;

		wl_path(b, a, "contpte_mlock");
		av_add(a, "--folio");
		av_add(a, i ? "64k" : "4k");
		av_add(a, "--size");
		av_add(a, "%s", size);
		av_add(a, "--iterations");
		av_add(a, "%d", iters);
		av_add(a, "--json");
	}
	if (run_pairs(b, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		goto out;
	}
	set_ratios(row, ser.r, ser.n);
	set_side(row, "a", "4k", ser.a, ser.n, "ns", "/iteration");
	set_side(row, "b", "64k", ser.b, ser.n, "ns", "/iteration");
	set_instructions(b, row, &ser);
	f64 = json_integer_value(json_object_get(sb.wl, "folios_64k"));
	lost = json_integer_value(json_object_get(sa.wl, "bytes_lost")) +
	       json_integer_value(json_object_get(sb.wl, "bytes_lost"));
	/* Counts mean something under TCG; wall time there is the emulator's. */
	json_object_set_new(row, "counts",
			    json_pack("{s:I, s:I, s:i, s:I}", "folios_64k_b", f64, "folios_64k_a",
				      json_integer_value(json_object_get(sa.wl, "folios_64k")),
				      "iterations", iters, "bytes_lost", lost));
	pc_bench_stats(ser.r, ser.n, &st);
	snprintf(note, sizeof(note),
		 "%scounts: B formed %lld 64 KiB folios (A %lld), %d iterations per run, %lld "
		 "bytes lost; the reference is before/after the patch on the 256 MiB x 500 loop "
		 "(real hardware)%s",
		 emulated ? "timings EMULATED (QEMU TCG): the ratio is of emulated runs and says "
			    "little about hardware; "
			  : "",
		 f64, (long long)json_integer_value(json_object_get(sa.wl, "folios_64k")), iters,
		 lost, f64 > 0 ? "" : "; no 64 KiB folio formed, so B is not contpte");
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
}

void pc_bench_figures(struct pc_bench *b)
{
	fig_mremap_folios(b);
	fig_mremap_pmd(b);
	fig_filemap(b);
	fig_contpte(b);
}

/* ---- overhead ------------------------------------------------------------------ */

struct tracer_result {
	bool measured;
	double median;
};

static void overhead_row(struct pc_bench *b, const char *wname, struct side *bare, enum wrap wrap,
			 struct tracer_result *res)
{
	static const char *const wrap_names[] = {[W_HIST] = "hist",
						 [W_WATCH] = "watch",
						 [W_EMPTY] = "empty-bpf",
						 [W_BPFTRACE] = "bpftrace"};
	static const char *const titles[] = {
		[W_HIST] = "ptecheck hist -- CMD (histograms)",
		[W_WATCH] = "ptecheck watch -- CMD (all checks)",
		[W_EMPTY] = "empty BPF programs on the same tracepoints (the floor)",
		[W_BPFTRACE] = "the same histograms as a bpftrace one-liner"};
	struct side t = {wrap_names[wrap], wrap, bare->cmd, bare->metric, bare->rate};
	char name[96], title[200], why[512], note[400];
	struct pc_bench_stats st;
	struct series ser;
	json_t *row;

	memset(res, 0, sizeof(*res));
	snprintf(name, sizeof(name), "overhead-%s-%s", wname, wrap_names[wrap]);
	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title), "%s: %s", wname, titles[wrap]);
	row = pc_bench_row_new(name, "overhead", title, PC_BENCH_SLOWDOWN);
	json_object_set_new(row, "ratio_of",
			    json_string(bare->rate ? "pages/s bare / pages/s traced"
						   : "loop time traced / loop time bare"));
	if (run_pairs(b, bare, &t, PC_BENCH_SLOWDOWN, 0, &ser, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		json_decref(t.wl);
		json_decref(t.failed);
		return;
	}
	set_ratios(row, ser.r, ser.n);
	set_side(row, "a", "bare", ser.a, ser.n, bare->rate ? "pages/s" : "ns",
		 bare->rate ? "" : "/loop");
	set_side(row, "b", wrap_names[wrap], ser.b, ser.n, bare->rate ? "pages/s" : "ns",
		 bare->rate ? "" : "/loop");
	pc_bench_stats(ser.r, ser.n, &st);
	if (wrap == W_HIST)
		set_target(row, "within 5 % of bare and below bpftrace (the issue's target)", 1.05,
			   st.median);
	if (wrap == W_WATCH)
		set_target(row, "within 25 % of bare (the issue's target)", 1.25, st.median);
	if (wrap == W_HIST || wrap == W_WATCH) {
		long long lost = t.dropped + t.state_full;

		json_object_set_new(row, "lost",
				    json_pack("{s:I, s:I, s:I, s:I, s:b}", "events_dropped",
					      t.dropped, "state_full", t.state_full, "runs", t.runs,
					      "violations", t.violations, "target_met", lost == 0));
		snprintf(note, sizeof(note),
			 "lost events over %lld runs: events_dropped %lld, state_full %lld "
			 "(target: zero, %s)%s",
			 t.runs, t.dropped, t.state_full, lost ? "NOT met" : "met",
			 t.violations ? "; the traced runs reported violations: see \"failed\""
				      : "");
		json_object_set_new(row, "note", json_string(note));
		if (t.failed)
			json_object_set(row, "failed", t.failed);
	}
	if (wrap == W_EMPTY) {
		snprintf(note, sizeof(note),
			 "the floor: what any BPF program on these %d tracepoints costs "
			 "(detaching them took %.2f s after each run, not timed)",
			 t.links, t.detach_s);
		json_object_set_new(row, "note", json_string(note));
	}
	if (wrap == W_BPFTRACE) {
		char prog[1024];

		bpftrace_prog(prog, sizeof(prog));
		json_object_set_new(row, "program", json_string(prog));
	}
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
	res->measured = true;
	res->median = st.median;
	json_decref(t.wl);
	json_decref(t.failed);
}

/* Finds the row named in b->rows. */
static json_t *find_row(struct pc_bench *b, const char *name)
{
	size_t i;
	json_t *row;

	json_array_foreach(
		b->rows, i,
		row) if (!strcmp(json_string_value(json_object_get(row, "name")), name)) return row;
	return NULL;
}

static void overhead_workload(struct pc_bench *b, const char *wname, struct av *cmd,
			      const char *metric, bool rate)
{
	struct side bare = {"bare", W_BARE, cmd, metric, rate};
	struct tracer_result res[W_BPFTRACE + 1];
	char prefix[64], name[96], why[512];
	bool any = false;
	json_t *row;

	snprintf(prefix, sizeof(prefix), "overhead-%s", wname);
	for (int w = W_HIST; w <= W_BPFTRACE; w++) {
		static const char *const sfx[] = {"", "-hist", "-watch", "-empty-bpf", "-bpftrace"};

		snprintf(name, sizeof(name), "%s%s", prefix, sfx[w]);
		any = any || pc_bench_selected(b, name);
	}
	if (!any)
		return;
	/* Warm-up: one bare run, discarded (page cache, binaries, mTHP pools). */
	if (run_side(b, &bare, why, sizeof(why)))
		fprintf(stderr, "ptecheck: bench: %s warm-up: %s\n", wname, why);
	for (int w = W_HIST; w <= W_BPFTRACE; w++)
		overhead_row(b, wname, &bare, (enum wrap)w, &res[w]);
	/* "below bpftrace": judged once both are measured. */
	snprintf(name, sizeof(name), "%s-hist", prefix);
	row = find_row(b, name);
	if (row && res[W_HIST].measured) {
		json_t *below = res[W_BPFTRACE].measured
					? json_boolean(res[W_HIST].median < res[W_BPFTRACE].median)
					: json_null();

		json_object_set_new(row, "below_bpftrace", below);
		if (json_is_boolean(below))
			json_object_set_new(
				row, "target_met",
				json_boolean(json_is_true(below) && res[W_HIST].median <= 1.05));
	}
	json_decref(bare.wl);
}

/* In-process session open (load+attach) and close (detach) times. */
static void load_attach(struct pc_bench *b)
{
	double open_h[PC_BENCH_MAX_REPEAT], open_w[PC_BENCH_MAX_REPEAT];
	double close_w[PC_BENCH_MAX_REPEAT];
	int n = b->o.quick ? 1 : 3, links = 0;
	struct pc_bench_stats sh, sw, sc;
	char why[300], note[600];
	json_t *row;

	if (!pc_bench_selected(b, "load-attach"))
		return;
	row = pc_bench_row_new("load-attach", "overhead",
			       "load+attach of everything: pc_session_open as ptecheck watch "
			       "(calibration, all programs) and hist",
			       PC_BENCH_SECONDS);
	pc_tracefs_ensure();
	for (int i = 0; i < n; i++) {
		for (int watch = 0; watch < 2; watch++) {
			struct pc_session_opts so = {.filter_mode = PC_FILTER_TRACKED,
						     .want_walk = watch};
			struct pc_session s;
			double t0 = now_s(), t1;
			int err = pc_session_open(&s, &so);

			t1 = now_s();
			if (err) {
				snprintf(why, sizeof(why), "session open: %s", s.load_error);
				pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
				return;
			}
			links = s.n_links;
			pc_session_close(&s);
			if (watch) {
				open_w[i] = t1 - t0;
				close_w[i] = now_s() - t1;
			} else {
				open_h[i] = t1 - t0;
			}
		}
	}
	pc_bench_stats(open_w, n, &sw);
	pc_bench_stats(open_h, n, &sh);
	pc_bench_stats(close_w, n, &sc);
	json_object_set_new(row, "median", json_real(sw.median));
	json_object_set_new(row, "min", json_real(sw.min));
	json_object_set_new(row, "max", json_real(sw.max));
	json_object_set_new(row, "pairs", json_integer(n));
	json_object_set_new(row, "ratios", values(open_w, n));
	json_object_set_new(row, "hist_open_s", json_real(sh.median));
	json_object_set_new(row, "detach_s", json_real(sc.median));
	json_object_set_new(row, "links", json_integer(links));
	set_target(row, "load+attach within 0.3 s (the issue's target)", 0.3, sw.median);
	snprintf(note, sizeof(note),
		 "watch open %.3f s, hist open %.3f s (medians of %d); closing the session "
		 "(detaching %d links) takes %.2f s more, not part of the target: each "
		 "tracepoint link's release waits for the kernel, so `ptecheck hist -- true` "
		 "takes about open + close",
		 sw.median, sh.median, n, links, sc.median);
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
}

void pc_bench_overhead(struct pc_bench *b)
{
	struct av mf, ff;

	wl_path(b, &mf, "mremap_folios");
	av_add(&mf, "--folio");
	av_add(&mf, "64k");
	av_add(&mf, "--iterations");
	av_add(&mf, "%d", b->o.quick ? 2000 : 10000);
	av_add(&mf, "--json");
	overhead_workload(b, "mremap-folios", &mf, "total_ns", false);

	/* tmpfs, 4 KiB folios here: the most faults per page, the most hook calls. */
	wl_path(b, &ff, "filemap_fault");
	av_add(&ff, "--size");
	av_add(&ff, "%s", b->o.quick ? "16M" : "64M");
	av_add(&ff, "--seconds");
	av_add(&ff, "%s", b->o.quick ? "0.3" : "2");
	av_add(&ff, "--json");
	overhead_workload(b, "filemap-fault", &ff, "faults_per_sec", true);

	load_attach(b);
}
