// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario of `ptecheck run` in a child process the BPF side tracks;
 * its oracle verdicts come back through a pipe and are merged per (check,
 * tier) with the in-kernel results, in the check's own words.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_text.h"
#include "settings.h"
#include "cli.h"
#include "paths.h"
#include "privilege.h"
#include "procmm.h"
#include "run.h"
#include "stress.h"

_Static_assert(sizeof(((struct pc_variant *)0)->summary) >=
			       sizeof(((struct pc_oracle_msg *)0)->summary) &&
		       sizeof(((struct pc_variant *)0)->why) >=
			       sizeof(((struct pc_oracle_msg *)0)->summary),
	       "a scenario's words must fit its variant whole");

void pc_run_merge_verdict(struct pc_report *r, struct pc_oracle_msg *m)
{
	const char *name = pc_check_name(m->check);
	struct pc_result *res = pc_report_find_result(r, name, m->tier);
	bool fresh = !res;

	if (!res)
		res = pc_report_add_result(r, name, m->tier, false);
	if (!res)
		return;
	m->summary[sizeof(m->summary) - 1] = 0;
	/* A skipped round judged nothing, whatever it compared before it gave
	   up: its counts are not the check's, as they are not its variant's. */
	if (m->status == PC_STATUS_PASS || m->status == PC_STATUS_FAIL) {
		res->checked += m->checked;
		res->violations += m->violations;
	}
	for (__u32 i = 0; i < m->n_evidence && i < 4; i++) {
		/* Room for both whole: pc_result_add_evidence cuts and marks. */
		char what[sizeof(res->evidence[0].what) + sizeof(m->evidence[0].detail)];
		char *detail = m->evidence[i].detail;

		detail[sizeof(m->evidence[i].detail) - 1] = 0;
		snprintf(what, sizeof(what), "%s%s%s",
			 pc_evidence_text(m->check, m->evidence[i].verdict), detail[0] ? ": " : "",
			 detail);
		pc_result_add_evidence(res, m->pid, m->evidence[i].addr, m->evidence[i].new_addr,
				       m->evidence[i].expected, m->evidence[i].seen, what);
	}
	/* What each scenario judged, and why the others did not. */
	if (pc_result_add_variant(res, m->scenario, m->status, m->summary, m->checked,
				  m->violations))
		pc_report_note(r, "%s [%s]: more than %d scenario variants, %s not listed", name,
			       m->tier, PC_MAX_VARIANTS, m->scenario);
	/* Worst status wins: fail > pass > skip. */
	if (m->status == PC_STATUS_FAIL ||
	    (m->status == PC_STATUS_PASS && res->status == PC_STATUS_SKIP) || fresh)
		res->status = m->status;
	pc_result_summarize_variants(res);
}

/* What the BPF side may enforce for a scenario (see PC_SCENARIO_*). */
static __u32 track_flags(const struct pc_scenario *sc)
{
	__u32 flags = PC_TRACK_ENFORCE_PMD;

	if (!(sc->needs & PC_SCENARIO_RESIZES))
		flags |= PC_TRACK_ENFORCE_EOF;
	else
		flags |= PC_TRACK_UNSTEADY;
	if (!(sc->needs & PC_SCENARIO_SHARED_MAPPERS))
		flags |= PC_TRACK_ENFORCE_RMAP;
	if (sc->needs & PC_SCENARIO_FOLLOW_CHILDREN)
		flags |= PC_TRACK_CHILDREN;
	return flags;
}

/* Whose pids a splat of the kernel log may name: this run's scenarios. */
static struct {
	int pid;
	const char *suite, *scenario;
} scenario_pids[4096];
static size_t n_scenario_pids;

const char *pc_run_who_is(int pid, void *ctx)
{
	static char buf[96];

	(void)ctx;
	for (size_t i = n_scenario_pids; i-- > 0;) {
		size_t k = i % (sizeof(scenario_pids) / sizeof(scenario_pids[0]));

		if (scenario_pids[k].pid == pid) {
			snprintf(buf, sizeof(buf), "scenario %s of suite %s",
				 scenario_pids[k].scenario, scenario_pids[k].suite);
			return buf;
		}
		if (n_scenario_pids - i >= sizeof(scenario_pids) / sizeof(scenario_pids[0]))
			break;
	}
	if (pc_stress_name_of(pid)) {
		snprintf(buf, sizeof(buf), "the %s stressor", pc_stress_name_of(pid));
		return buf;
	}
	return NULL;
}

static void remember_pid(int pid, const char *suite, const char *scenario)
{
	size_t k = n_scenario_pids++ % (sizeof(scenario_pids) / sizeof(scenario_pids[0]));

	scenario_pids[k].pid = pid;
	scenario_pids[k].suite = suite;
	scenario_pids[k].scenario = scenario;
}

/* The scenario's child: waits for the go (it is tracked by then), sheds
   capabilities, runs and exits. */
static void __attribute__((noreturn))
scenario_child(const struct pc_scenario *sc, const struct pc_run *run, int report_pipe[2],
	       int go_pipe[2])
{
	struct pc_scenario_ctx ctx = run->ctx;
	char go;
	int err;

	/* The run's report is the parent's: the forks a scenario makes (its
	   helpers, its fork scenarios) copy the scenario's memory only, and
	   that in small folios (the test mappings are made after, with
	   their own advice). */
	pc_report_dontfork(run->r);
	pc_own_memory_small_folios();

	close(report_pipe[0]);
	close(go_pipe[1]);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (read(go_pipe[0], &go, 1) != 1)
		_exit(3);
	/* Keeps what the oracles need (PFNs, kpageflags, mlock), not root's
	   power to load BPF, modules or change settings. */
	err = pc_caps_limit(PC_CAPS_SCENARIO |
			    (sc->needs & PC_SCENARIO_CAP_PTRACE ? PC_CAP_SYS_PTRACE : 0));
	if (err) {
		pc_err(-err, "scenario %s: cannot drop capabilities", sc->name);
		_exit(3);
	}
	ctx.report_fd = report_pipe[1];
	ctx.scenario = sc->name;
	ctx.crash_refused = (sc->needs & PC_SCENARIO_MAY_CRASH) && !ctx.dangerous;
	ctx.known_bug_skipped = (sc->needs & PC_SCENARIO_KNOWN_BUG) && ctx.skip_known_bugs;
	_exit(sc->run(&ctx, sc->data) ? 3 : 0);
}

/* Reads the child's verdicts until it closes the pipe, keeping the ring
   buffer and the kernel log drained meanwhile. */
/* What a scenario's verdicts said of it: its name as it ran (its
   variants'), and whether it judged a check. */
struct scenario_seen {
	char name[sizeof(((struct pc_oracle_msg *)0)->scenario)];
	bool judged;
};

static void collect(struct pc_run *run, int fd, struct scenario_seen *seen)
{
	struct pc_oracle_msg msg;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (run->s.loaded)
			pc_session_poll(&run->s, 0);
		pc_klog_poll(&run->klog, stderr, pc_run_who_is, NULL);
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, &msg, sizeof(msg));
		if (n == sizeof(msg)) {
			msg.scenario[sizeof(msg.scenario) - 1] = 0;
			msg.tier[sizeof(msg.tier) - 1] = 0;
			if (!seen->name[0])
				snprintf(seen->name, sizeof(seen->name), "%s", msg.scenario);
			seen->judged |=
				msg.status == PC_STATUS_PASS || msg.status == PC_STATUS_FAIL;
			pc_run_merge_verdict(run->r, &msg);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return; /* EOF: the child is done */
	}
}

/* The histograms now (NULL: nothing traced, or no memory). */
static struct pc_report *hists_now(struct pc_run *run)
{
	struct pc_report *now;

	if (!run->s.loaded)
		return NULL;
	now = pc_report_new("run", run->o->suite);
	if (now)
		pc_paths_hists(&run->s, now, run->o->suite);
	return now;
}

/* What the histograms counted while the scenario ran, under the name its
   verdicts gave it: the gate compares the same scenarios of two kernels. */
static void keep_scenario_hists(struct pc_run *run, const struct pc_suite *su,
				const struct pc_scenario *sc, const struct scenario_seen *seen,
				struct pc_report *before)
{
	struct pc_report *after = before ? hists_now(run) : NULL;
	struct pc_scenario_hists *sh;

	if (after) {
		sh = pc_report_scenario(run->r, su->name, seen->name[0] ? seen->name : sc->name,
					true);
		if (!sh || pc_scenario_hists_add_delta(sh, before, after))
			pc_report_note(run->r, "scenario %s: its histograms not kept: %s", sc->name,
				       strerror(ENOMEM));
		else
			sh->judged |= seen->judged;
	}
	pc_report_free(after);
	pc_report_free(before);
}

/*
 * Around a scenario of 16 KiB folios (PC_NEEDS_MTHP_16K): 16 KiB mTHP on
 * in the run's modes and its 64 KiB off, then back (begin false: the end).
 * Every change is recorded for the exit's restore (lib/settings.c).
 */
static void mthp_16k(struct pc_scenario_ctx *ctx, bool begin)
{
	for (int shmem = 0; shmem < 2; shmem++) {
		bool on64 = shmem ? ctx->mthp_shmem_64k : ctx->mthp_anon_64k;
		const char *mode = shmem ? PC_MTHP_SHMEM_MODE : PC_MTHP_ANON_MODE;
		bool *on16 = shmem ? &ctx->mthp_shmem_16k : &ctx->mthp_anon_16k;

		if (begin) {
			*on16 = pc_mthp_set(16, shmem, mode) == 0 &&
				(!on64 || pc_mthp_set(64, shmem, "never") == 0);
			continue;
		}
		if (on64)
			pc_mthp_set(64, shmem, mode);
		pc_mthp_reset(16, shmem);
		*on16 = false;
	}
}

/*
 * Around a scenario that needs KSM (PC_NEEDS_KSM): ksmd started with a
 * short sleep and a large scan, then every file put back as it was (the
 * records kept for the exit's restore: lib/settings.c).
 */
static void ksm(struct pc_scenario_ctx *ctx, bool begin)
{
	static const char *const files[][2] = {
		{"pages_to_scan", "1000"}, {"sleep_millisecs", "10"}, {"run", "1"}};
	static char why[160];
	const char *root = getenv("PTECHECK_SYSFS_ROOT");
	char path[256];
	int n = (int)(sizeof(files) / sizeof(files[0]));

	for (int k = 0; k < n; k++) {
		int i = begin ? k : n - 1 - k, err;

		snprintf(path, sizeof(path), "%s/kernel/mm/ksm/%s", root && *root ? root : "/sys",
			 files[i][0]);
		if (!begin) {
			pc_setting_reset(path);
			continue;
		}
		err = pc_setting_write(path, files[i][1]);
		if (err) {
			snprintf(why, sizeof(why), "KSM not started: %s: %s", path,
				 err == -ENOENT ? "no KSM in this kernel (CONFIG_KSM)"
						: strerror(-err));
			ctx->ksm_why = why;
			ctx->ksm_on = false;
			ksm(ctx, false);
			return;
		}
	}
	ctx->ksm_on = begin;
	ctx->ksm_why = NULL;
}

/*
 * Around a scenario whose dirty pages must stay dirty
 * (PC_NEEDS_DIRTY_HELD): vm.dirty_expire_centisecs raised to an hour
 * unless it is longer, then put back (the record kept for the exit's
 * restore: lib/settings.c).
 */
static void dirty_held(struct pc_scenario_ctx *ctx, bool begin)
{
	static const char path[] = "/proc/sys/vm/dirty_expire_centisecs";
	static char why[160];
	char was[32];
	int err;

	if (!begin) {
		pc_setting_reset(path);
		ctx->dirty_held = false;
		return;
	}
	err = pc_read_file(path, was, sizeof(was));
	if (!err && strtoul(was, NULL, 10) < 360000)
		err = pc_setting_write(path, "360000");
	ctx->dirty_held = !err;
	ctx->dirty_why = NULL;
	if (err) {
		snprintf(why, sizeof(why), "dirty pages not held from writeback: %s: %s", path,
			 strerror(-err));
		ctx->dirty_why = why;
	}
}

/* The parent's settings around a scenario (begin), or back after. */
static void around(struct pc_scenario_ctx *ctx, unsigned int needs, bool begin)
{
	if (needs & PC_NEEDS_MTHP_16K)
		mthp_16k(ctx, begin);
	if (needs & PC_NEEDS_KSM)
		ksm(ctx, begin);
	/* Not for a scenario that will not run (no --dangerous). */
	if (needs & PC_NEEDS_DIRTY_HELD && (!(needs & PC_SCENARIO_MAY_CRASH) || ctx->dangerous))
		dirty_held(ctx, begin);
}

int pc_run_scenario(struct pc_run *run, const struct pc_suite *su, const struct pc_scenario *sc)
{
	struct scenario_seen seen = {.judged = false};
	struct pc_report *before;
	int report_pipe[2], go_pipe[2], status;
	struct pc_session *s = &run->s;
	struct pc_report *r = run->r;
	pid_t pid;

	if (pipe2(report_pipe, O_CLOEXEC))
		return -errno;
	if (pipe2(go_pipe, O_CLOEXEC)) {
		status = -errno;
		close(report_pipe[0]);
		close(report_pipe[1]);
		return status;
	}
	around(&run->ctx, sc->needs, true);
	pid = fork();
	if (pid == 0)
		scenario_child(sc, run, report_pipe, go_pipe);
	if (pid < 0) {
		status = -errno; /* before around() may change errno */
		around(&run->ctx, sc->needs, false);
		for (int i = 0; i < 2; i++) {
			close(report_pipe[i]);
			close(go_pipe[i]);
		}
		return status;
	}
	close(report_pipe[1]);
	close(go_pipe[0]);
	before = hists_now(run);
	remember_pid(pid, su->name, sc->name);
	if (s->loaded)
		pc_session_track(s, pid, track_flags(sc));
	if (write(go_pipe[1], "g", 1) != 1)
		pc_err(errno, "cannot start scenario %s", sc->name);
	close(go_pipe[1]);
	collect(run, report_pipe[0], &seen);
	close(report_pipe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	around(&run->ctx, sc->needs, false);
	if (s->loaded)
		pc_session_untrack(s, pid);
	keep_scenario_hists(run, su, sc, &seen, before);
	if (WIFSIGNALED(status))
		pc_report_note(r, "scenario %s died by signal %d", sc->name, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		pc_report_note(r, "scenario %s could not run to completion (exit %d)", sc->name,
			       WEXITSTATUS(status));
	return 0;
}
