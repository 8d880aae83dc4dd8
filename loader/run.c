// SPDX-License-Identifier: GPL-2.0
/*
 * One `ptecheck run`, from the machine lock to the report: the kernel log,
 * the tracing session, the mTHP settings and scratch filesystems the
 * scenarios need, the stressors, the suites, and every path's in-kernel
 * results.  What the run changed is undone on every exit path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "command.h"
#include "filemap_fs.h"
#include "probe.h"
#include "restore.h"
#include "run.h"
#include "sessions.h"
#include "scratchfs.h"
#include "settings.h"
#include "procmm.h"
#include "status.h"
#include "stress.h"
#include "tracefs.h"

volatile sig_atomic_t pc_run_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	pc_run_interrupted = 1;
}

/* Whether a selected suite has a scenario that needs one of needs. */
static bool suites_need(const struct pc_run *run, unsigned int needs)
{
	for (int k = 0; k < pc_n_paths; k++) {
		const struct pc_suite *su = pc_paths[k].suite;

		if (!pc_path_selected(&pc_paths[k], run->o->suite))
			continue;
		for (int i = 0; i < su->n_scenarios; i++)
			if (su->scenarios[i].needs & needs)
				return true;
	}
	return false;
}

/*
 * Mounts what the selected scenarios need (a huge=within_size tmpfs, an
 * ext4 on a loop device) under the run's directory; a failure becomes the
 * reason those scenarios skip.  Undone by release_scratch().
 */
static void prepare_filesystems(struct pc_run *run)
{
	struct pc_scenario_ctx *ctx = &run->ctx;

	snprintf(run->shmem_dir, sizeof(run->shmem_dir), "%s/tmpfs-huge", run->tmpdir);
	snprintf(run->blockfs_dir, sizeof(run->blockfs_dir), "%s/ext4", run->tmpdir);
	if (suites_need(run, PC_NEEDS_SHMEM_HUGE)) {
		if (pc_scratch_tmpfs(run->shmem_dir, "huge=within_size,size=512m", run->shmem_why,
				     sizeof(run->shmem_why)) == 0)
			ctx->shmem_huge_dir = run->shmem_dir;
		else
			pc_report_note(run->r, "tmpfs with huge=within_size unavailable: %s",
				       run->shmem_why);
		ctx->shmem_huge_why = run->shmem_why;
	}
	if (!suites_need(run, PC_NEEDS_BLOCKFS))
		return;
	if (run->o->fs_dir) {
		struct pc_fs_info fi;
		char desc[96] = "filesystem unknown";

		/* The user's (or the guest harness's) block filesystem, checked
		   by the option; what it is, in the report. */
		if (!pc_fs_probe(run->o->fs_dir, &fi))
			pc_fs_describe(&fi, desc, sizeof(desc));
		ctx->blockfs_dir = run->o->fs_dir;
		pc_report_note(run->r, "block filesystem for the file scenarios: %s (--fs-dir): %s",
			       run->o->fs_dir, desc);
		return;
	}
	if (pc_scratch_blockfs(run->blockfs_dir, "ext4", 256, run->blockfs_why,
			       sizeof(run->blockfs_why)) == 0)
		ctx->blockfs_dir = run->blockfs_dir;
	else
		pc_report_note(run->r, "ext4 on a loop device unavailable: %s", run->blockfs_why);
	ctx->blockfs_why = run->blockfs_why;
}

/* Unmounts and deletes what prepare_filesystems() made (idempotent). */
static void release_scratch(struct pc_run *run)
{
	pc_scratch_release_all();
	if (!run->tmpdir[0])
		return;
	rmdir(run->shmem_dir);
	rmdir(run->blockfs_dir);
	rmdir(run->tmpdir);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * --stress: the suite's scenarios again and again for stress_s seconds
 * (at least once) while the stressors run; without it, once.  Then the
 * suite's kernel-log check.
 */
static void run_suite(struct pc_run *run, const struct pc_suite *su)
{
	unsigned int stress_s = run->o->stress_s;
	struct timespec t0;
	int passes = 0, err;
	char name[48];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < su->n_scenarios && !pc_run_interrupted; i++) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			pc_status_scenario(su->scenarios[i].name);
			err = pc_run_scenario(run, su, &su->scenarios[i]);
			/* Where a harness's time goes (vmtest prints the slowest). */
			pc_status_scenario_time(su->scenarios[i].name, seconds_since(&ts));
			if (err)
				pc_report_note(run->r, "scenario %s/%s not started: %s", su->name,
					       su->scenarios[i].name, strerror(-err));
		}
		passes++;
	} while (stress_s && !pc_run_interrupted && seconds_since(&t0) < stress_s);
	if (stress_s)
		pc_report_note(run->r, "stress: suite %s: %d passes of its %d scenarios in %.1f s",
			       su->name, passes, su->n_scenarios, seconds_since(&t0));
	/* The scenarios' processes are reaped; their mms' teardown (where
	   "Bad rss-counter state" is printed) may lag a context switch. */
	usleep(50 * 1000);
	snprintf(name, sizeof(name), "%s/kernel-log", su->name);
	pc_klog_judge(&run->klog, run->r, name, pc_run_who_is, NULL);
}

/* The selected suites in order, with their status records. */
static void run_suites(struct pc_run *run)
{
	const char *names[PC_N_PATHS];
	int n = 0, i = 0;

	for (int k = 0; k < pc_n_paths && n < PC_N_PATHS; k++)
		if (pc_path_selected(&pc_paths[k], run->o->suite))
			names[n++] = pc_paths[k].name;
	pc_status_suites(names, n);
	for (int k = 0; k < pc_n_paths && !pc_run_interrupted; k++) {
		const struct pc_suite *su = pc_paths[k].suite;

		if (!pc_path_selected(&pc_paths[k], run->o->suite))
			continue;
		pc_status_begin(su->name, ++i, n);
		run_suite(run, su);
		pc_status_end(su->name);
	}
}

/* What the report says of the kernel before anything runs. */
static void note_kernel(struct pc_run *run)
{
	char ptc[160], why[256];

	pc_page_table_check(ptc, sizeof(ptc));
	pc_report_note(run->r, "page_table_check: %s", ptc);
	/* Say so when a killed run left changes (ptecheck restore). */
	if (pc_restore_pending(why, sizeof(why)) > 0) {
		pc_report_note(run->r, "%s", why);
		fprintf(stderr, "ptecheck: %s\n", why);
	}
}

#define DUMP_ON_OOPS "/proc/sys/kernel/ftrace_dump_on_oops"
#define PRINTK_EVENT "/sys/kernel/tracing/events/bpf_trace/bpf_trace_printk/enable"

/*
 * The crash witness (include/ptecheck/events.h): on where the kernel dumps
 * its trace buffer when it dies, so that a batch that kills it is named on
 * the console (a guest's: guest/lib/qemu.sh boots with the option).
 * Loading a program that prints enables the bpf_trace_printk event; it is
 * recorded here and put back at exit like any setting of ours.
 */
static bool crash_witness(struct pc_report *r)
{
	char dump[64], was[16];

	if (pc_read_file(DUMP_ON_OOPS, dump, sizeof(dump)) || !dump[0] || !strcmp(dump, "0"))
		return false;
	if (pc_read_file(PRINTK_EVENT, was, sizeof(was)) || pc_setting_write(PRINTK_EVENT, was)) {
		pc_report_note(r, "crash witness: off: %s cannot be recorded for the restore",
			       PRINTK_EVENT);
		return false;
	}
	pc_report_note(r,
		       "crash witness: on (kernel.ftrace_dump_on_oops=%s): a fault-around batch "
		       "whose bounds would corrupt memory is judged on entry too and printed to "
		       "the trace buffer, which the kernel dumps on its console if it dies",
		       dump);
	return true;
}

/* The tracing session; without one the oracles still run. */
static void open_session(struct pc_run *run)
{
	struct pc_session_opts so = pc_command_session("run");
	struct pc_session *s = &run->s;
	struct pc_report *r = run->r;
	int err = pc_tracefs_ensure();

	if (err)
		pc_report_note(r, "cannot mount tracefs: %s", strerror(-err));
	else
		so.crash_witness = crash_witness(r);
	pc_session_open(s, &so);
	pc_session_tell_refused(s);
	pc_session_notes(s, r);
	s->report = r;
	/* A kernel tier's evidence names the scenario whose pid it saw. */
	s->who_is = pc_run_who_is;
	run->ctx.disturb_map_fd = s->loaded ? pc_session_disturb_fd(s) : -1;
}

/* The settings and directories the scenarios need, and the stressors;
   0, or the exit code of a run that cannot go on. */
static int prepare(struct pc_run *run)
{
	struct pc_scenario_ctx *ctx = &run->ctx;
	struct pc_report *r = run->r;
	int err;

	ctx->mthp_anon_64k = pc_mthp_set(64, 0, PC_MTHP_ANON_MODE) == 0;
	ctx->mthp_shmem_64k = pc_mthp_set(64, 1, PC_MTHP_SHMEM_MODE) == 0;
	if (!ctx->mthp_anon_64k)
		pc_report_note(r, "64 KiB anonymous mTHP unavailable: large-folio scenarios skip");
	ctx->have_kpageflags = access("/proc/kpageflags", R_OK) == 0;
	snprintf(run->tmpdir, sizeof(run->tmpdir), "/tmp/ptecheck.XXXXXX");
	if (!mkdtemp(run->tmpdir)) {
		pc_err(errno, "mkdtemp");
		run->tmpdir[0] = 0;
		return PC_EXIT_ERROR;
	}
	ctx->tmpdir = run->tmpdir;
	prepare_filesystems(run);
	if (run->o->stress_s) {
		/* After the mTHP settings: the stressors' memory gets 64 KiB folios. */
		struct pc_stress_opts sto = {.scale = ctx->scale,
					     .file_dir = ctx->blockfs_dir ? ctx->blockfs_dir
									  : run->tmpdir};

		pc_report_note(r, "stress: %u s per suite under background stressors",
			       run->o->stress_s);
		err = pc_stress_start(&sto, r);
		if (err) {
			pc_err(err, "--stress: no stressor could be started (see the notes)");
			return PC_EXIT_ERROR;
		}
	}
	return 0;
}

/* After the suites: the stressors' end, and every selected path's
   in-kernel results and histograms. */
static int collect_results(struct pc_run *run)
{
	struct pc_report *r = run->r;

	/* Before the scratch filesystems go: a stressor's file may be on one. */
	pc_stress_stop(r);
	if (run->o->stress_s) {
		/* The stressors' teardown is part of the run too. */
		usleep(50 * 1000);
		pc_klog_judge(&run->klog, r, "stress/kernel-log", pc_run_who_is, NULL);
	}
	release_scratch(run);
	if (pc_run_interrupted) {
		r->partial = true;
		pc_report_note(r, "interrupted: results so far, marked partial");
	}
	pc_paths_results(&run->s, r, run->o->suite);
	pc_paths_hists(&run->s, r, run->o->suite);
	pc_session_stats(&run->s, r);
	return pc_report_exit_code(r);
}

/* Takes the machine; 0, or the exit code when the run ends here. */
static int take_machine(struct pc_run *run)
{
	/* One run at a time: two would each record the other's mTHP settings
	   as the originals.  A signal while waiting reaches on_signal(). */
	run->lock_fd = pc_machine_lock("another 'ptecheck run' is in progress; waiting for it");
	if (run->lock_fd == -ENOENT) {
		/* No /run (a minimal initramfs): nothing else runs there anyway. */
		pc_report_note(run->r, "no /run: ran without the one-run-per-machine lock");
	} else if (run->lock_fd == -EINTR) {
		/* Nothing ran and nothing changed: an empty report, marked partial. */
		pc_report_note(run->r, "interrupted while waiting for another 'ptecheck run' "
				       "(/run/ptecheck.lock): nothing was run");
		run->r->partial = true;
		return PC_EXIT_SKIP;
	} else if (run->lock_fd < 0) {
		pc_err(run->lock_fd, "cannot take /run/ptecheck.lock");
		return -PC_EXIT_ERROR; /* no report: nothing was run */
	}
	/* Lines from before the run (or from the run we waited for) are not ours. */
	pc_klog_skip_to_end(&run->klog);
	return 0;
}

/* Undoes what the run changed and writes the report; the exit code. */
static int finish(struct pc_run *run, int code, const struct timespec *t0)
{
	release_scratch(run);
	pc_settings_restore_all();
	if (run->s.loaded || run->s.skel)
		pc_session_close(&run->s);
	run->r->duration_s = seconds_since(t0);
	if (pc_report_write(run->r, run->o->format, run->out)) {
		pc_err(errno, "cannot write the report");
		code = PC_EXIT_ERROR;
	}
	if (run->out != stdout && fclose(run->out)) {
		pc_err(errno, "cannot write %s", run->o->output);
		code = PC_EXIT_ERROR;
	}
	return code;
}

/* The report and its output; 0 or the exit code. */
static int open_report(struct pc_run *run)
{
	char rules_err[512];

	if (pc_klog_start(&run->klog, run->o->klog.rules, run->o->klog.user_lines, rules_err,
			  sizeof(rules_err))) {
		pc_err(0, "--log-rules: %s", rules_err);
		return PC_EXIT_USAGE;
	}
	run->out = stdout;
	if (run->o->output) {
		run->out = pc_open_report_said(run->o->output);
		if (!run->out) {
			pc_klog_stop(&run->klog);
			return PC_EXIT_USAGE;
		}
	}
	run->r = pc_report_new("run", run->o->suite);
	if (!run->r) {
		pc_err(ENOMEM, "report");
		if (run->out != stdout)
			fclose(run->out);
		pc_klog_stop(&run->klog);
		return PC_EXIT_ERROR;
	}
	run->r->verbose = run->o->verbose;
	run->r->scale = run->o->scale;
	return 0;
}

/* The settings' restore-and-die handlers for every fatal signal, then the
   run's own for SIGINT, SIGTERM and SIGHUP: those three blocked meanwhile,
   so one that comes between the two is the run's (an interrupted run),
   never the settings' death by the signal. */
static void install_handlers(void)
{
	sigset_t stop, old;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	pc_settings_install_handlers();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int pc_run(const struct pc_run_opts *o)
{
	struct pc_run run = {.o = o, .lock_fd = -1};
	struct timespec t0;
	int code;

	run.ctx.disturb_map_fd = -1;
	run.ctx.scale = o->scale;
	run.ctx.dangerous = o->dangerous && !o->no_dangerous;
	run.ctx.skip_known_bugs = o->skip_known_bugs;
	code = open_report(&run);
	if (code)
		return code;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Before the mTHP settings change: ptecheck's own memory, which its
	   scenarios inherit, in small folios (pc_own_memory_small_folios). */
	pc_own_memory_small_folios();
	install_handlers();
	pc_status_open();
	code = take_machine(&run);
	if (code < 0) {
		code = -code;
		if (run.out != stdout)
			fclose(run.out);
		pc_report_free(run.r);
		goto out;
	}
	if (!code) {
		note_kernel(&run);
		open_session(&run);
		code = prepare(&run);
	}
	if (!code) {
		run_suites(&run);
		code = collect_results(&run);
	}
	code = finish(&run, code, &t0);
	pc_report_free(run.r);
out:
	pc_status_close();
	pc_klog_stop(&run.klog);
	pc_machine_unlock(run.lock_fd);
	return code;
}
