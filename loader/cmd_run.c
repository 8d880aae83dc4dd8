// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck run: the suites.  Each scenario runs in a forked child that the
 * BPF side tracks; the child's oracle verdicts come back through a pipe and
 * are merged per (check, tier) with the in-kernel results.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "checks.h"
#include "cli.h"
#include "report.h"
#include "kernel_log.h"
#include "paths.h"
#include "privilege.h"
#include "probe.h"
#include "restore.h"
#include "cmd_run.h"
#include "scenario.h"
#include "session.h"
#include "scratchfs.h"
#include "settings.h"
#include "stress.h"
#include "tracefs.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void merge_msg(struct pc_report *r, struct pc_oracle_msg *m)
{
	const char *name = pc_check_name(m->check);
	struct pc_result *res = pc_report_find_result(r, name, m->tier);
	char add[260];
	size_t used;
	bool fresh = !res;

	if (!res)
		res = pc_report_add_result(r, name, m->tier, false);
	if (!res)
		return;
	res->checked += m->checked;
	res->violations += m->violations;
	for (__u32 i = 0; i < m->n_evidence && i < 4; i++) {
		char what[sizeof(res->evidence[0].what)];
		char *detail = m->evidence[i].detail;

		detail[sizeof(m->evidence[i].detail) - 1] = 0;
		snprintf(what, sizeof(what), "%s%s%s",
			 pc_evidence_text(m->check, m->evidence[i].verdict), detail[0] ? ": " : "",
			 detail);
		pc_result_add_evidence(res, m->pid, m->evidence[i].addr, m->evidence[i].new_addr,
				       m->evidence[i].expected, m->evidence[i].seen, what);
	}
	/* Worst status wins: fail > pass > skip. */
	if (m->status == PC_STATUS_FAIL ||
	    (m->status == PC_STATUS_PASS && res->status == PC_STATUS_SKIP) || fresh)
		res->status = m->status;
	snprintf(add, sizeof(add), "%s%s: %s", fresh ? "" : "; ", m->scenario, m->summary);
	used = strlen(res->summary);
	if (fresh)
		used = 0;
	snprintf(res->summary + used, sizeof(res->summary) - used, "%s", add);
}

/* What the BPF side may enforce for a scenario (see PC_SCENARIO_*). */
static __u32 track_flags(const struct pc_scenario *sc)
{
	__u32 flags = PC_TRACK_ENFORCE_PMD;

	if (!(sc->needs & PC_SCENARIO_RESIZES))
		flags |= PC_TRACK_ENFORCE_EOF;
	if (!(sc->needs & PC_SCENARIO_SHARED_MAPPERS))
		flags |= PC_TRACK_ENFORCE_RMAP;
	return flags;
}

/* The kernel log of this run, and whose pids its splats may name. */
static struct pc_klog klog;
static struct {
	int pid;
	const char *suite, *scenario;
} scenario_pids[4096];
static size_t n_scenario_pids;

static const char *who_is(int pid, void *ctx)
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

static int run_scenario(const struct pc_scenario *sc, const char *suite,
			struct pc_scenario_ctx *base, struct pc_session *s, struct pc_report *r)
{
	int report_pipe[2], go_pipe[2], status;
	struct pc_oracle_msg msg;
	char go = 'g';
	pid_t pid;

	if (pipe2(report_pipe, O_CLOEXEC) || pipe2(go_pipe, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct pc_scenario_ctx ctx = *base;
		int err;

		close(report_pipe[0]);
		close(go_pipe[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go_pipe[0], &go, 1) != 1)
			_exit(3);
		/* Keeps what the oracles need (PFNs, kpageflags, mlock), not
		   root's power to load BPF, modules or change settings. */
		err = pc_caps_limit(PC_CAPS_SCENARIO);
		if (err) {
			pc_err(-err, "scenario %s: cannot drop capabilities", sc->name);
			_exit(3);
		}
		ctx.report_fd = report_pipe[1];
		ctx.scenario = sc->name;
		_exit(sc->run(&ctx, sc->data) ? 3 : 0);
	}
	close(report_pipe[1]);
	close(go_pipe[0]);
	remember_pid(pid, suite, sc->name);
	if (s->loaded)
		pc_session_track(s, pid, track_flags(sc));
	if (write(go_pipe[1], &go, 1) != 1)
		pc_err(errno, "cannot start scenario %s", sc->name);
	close(go_pipe[1]);
	for (;;) {
		struct pollfd p = {.fd = report_pipe[0], .events = POLLIN};
		ssize_t n;

		if (s->loaded)
			pc_session_poll(s, 0);
		pc_klog_poll(&klog, stderr, who_is, NULL);
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(report_pipe[0], &msg, sizeof(msg));
		if (n == sizeof(msg)) {
			msg.summary[sizeof(msg.summary) - 1] = 0;
			msg.scenario[sizeof(msg.scenario) - 1] = 0;
			msg.tier[sizeof(msg.tier) - 1] = 0;
			merge_msg(r, &msg);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break; /* EOF: the child is done */
	}
	close(report_pipe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (s->loaded)
		pc_session_untrack(s, pid);
	if (WIFSIGNALED(status))
		pc_report_note(r, "scenario %s died by signal %d", sc->name, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		pc_report_note(r, "scenario %s could not run to completion (exit %d)", sc->name,
			       WEXITSTATUS(status));
	return 0;
}

static char shmem_dir[64], blockfs_dir[64];

/*
 * One run at a time per machine: two runs would each record the other's
 * mTHP settings as "original" and restore the wrong ones.  A second run
 * waits for the first (and says so).  The lock dies with the process.
 */
static int lock_machine(void)
{
	const char *path = "/run/ptecheck.lock";
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	static const int wake[3] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal}, old[3];
	int err;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno != EWOULDBLOCK) {
		err = -errno;
		close(fd);
		return err;
	}
	fprintf(stderr, "ptecheck: another 'ptecheck run' is in progress; waiting for it\n");
	/* signal() handlers restart flock(): without SA_RESTART, a SIGINT,
	   SIGTERM or SIGHUP ends the wait instead of being noticed after it. */
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(wake[i], &sa, &old[i]);
	do {
		err = interrupted ? -EINTR : flock(fd, LOCK_EX) ? -errno : 0;
	} while (err == -EINTR && !interrupted);
	for (int i = 0; i < 3; i++)
		sigaction(wake[i], &old[i], NULL);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Mounts what the selected scenarios need (a huge=within_size tmpfs, an
 * ext4 on a loop device) under tmpdir; a failure becomes the reason those
 * scenarios skip.  Undone by pc_scratch_release_all() on every exit path.
 */
static void prepare_filesystems(struct pc_scenario_ctx *ctx, const char *suite, const char *tmpdir,
				const char *fs_dir, struct pc_report *r)
{
	static char shmem_why[160], blockfs_why[160];
	unsigned int needs = 0;

	for (int k = 0; k < pc_n_paths; k++)
		if (pc_path_selected(&pc_paths[k], suite))
			for (int i = 0; i < pc_paths[k].suite->n_scenarios; i++)
				needs |= pc_paths[k].suite->scenarios[i].needs;
	snprintf(shmem_dir, sizeof(shmem_dir), "%s/tmpfs-huge", tmpdir);
	snprintf(blockfs_dir, sizeof(blockfs_dir), "%s/ext4", tmpdir);
	if (needs & PC_NEEDS_SHMEM_HUGE) {
		if (pc_scratch_tmpfs(shmem_dir, "huge=within_size,size=512m", shmem_why,
				     sizeof(shmem_why)) == 0)
			ctx->shmem_huge_dir = shmem_dir;
		else
			pc_report_note(r, "tmpfs with huge=within_size unavailable: %s", shmem_why);
		ctx->shmem_huge_why = shmem_why;
	}
	if ((needs & PC_NEEDS_BLOCKFS) && fs_dir) {
		/* The user's (or the guest harness's) block filesystem. */
		ctx->blockfs_dir = fs_dir;
		pc_report_note(r, "block filesystem for the file scenarios: %s (--fs-dir)", fs_dir);
	} else if (needs & PC_NEEDS_BLOCKFS) {
		if (pc_scratch_blockfs(blockfs_dir, "ext4", 256, blockfs_why,
				       sizeof(blockfs_why)) == 0)
			ctx->blockfs_dir = blockfs_dir;
		else
			pc_report_note(r, "ext4 on a loop device unavailable: %s", blockfs_why);
		ctx->blockfs_why = blockfs_why;
	}
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * --stress: the suite's scenarios again and again for stress_s seconds
 * (at least once) while the stressors run; without it, once.
 */
static void run_suite(const struct pc_suite *su, struct pc_scenario_ctx *ctx, struct pc_session *s,
		      struct pc_report *r, unsigned int stress_s)
{
	struct timespec t0;
	int passes = 0, err;
	char name[48];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < su->n_scenarios && !interrupted; i++) {
			err = run_scenario(&su->scenarios[i], su->name, ctx, s, r);
			if (err)
				pc_report_note(r, "scenario %s/%s not started: %s", su->name,
					       su->scenarios[i].name, strerror(-err));
		}
		passes++;
	} while (stress_s && !interrupted && seconds_since(&t0) < stress_s);
	if (stress_s)
		pc_report_note(r, "stress: suite %s: %d passes of its %d scenarios in %.1f s",
			       su->name, passes, su->n_scenarios, seconds_since(&t0));
	/* The scenarios' processes are reaped; their mms' teardown (where
	   "Bad rss-counter state" is printed) may lag a context switch. */
	usleep(50 * 1000);
	snprintf(name, sizeof(name), "%s/kernel-log", su->name);
	pc_klog_judge(&klog, r, name, who_is, NULL);
}

/* "--stress [SECONDS]": a number after the option is its value. */
static int parse_stress(const char *arg, unsigned int scale, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!arg) {
		/* The default shrinks with the workloads on slow guests. */
		v = PC_STRESS_DEFAULT_S / scale;
		*out = v ? v : 1;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || !isdigit((unsigned char)arg[0]) || v < 1 || v > PC_STRESS_MAX_S) {
		pc_err(0, "--stress takes whole seconds per suite from 1 to %u, not '%s'",
		       PC_STRESS_MAX_S, arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: ptecheck run [--suite NAME] [--format text|json|tap] [--scale N]\n"
		   "                    [--output FILE] [--fs-dir DIR] [--stress [SECONDS]]\n"
		   "                    [--log-rules FILE] [--list]\n\n"
		   "Runs the workloads of a suite under every check this kernel allows and\n"
		   "prints one result per check and tier: pass, fail (with evidence) or skip\n"
		   "(with the reason), then the histograms.\n\n"
		   "  --suite NAME    mremap, filemap, contpte or all (default: all)\n"
		   "  --format F      text (default), json (schema docs/report-schema.json), tap\n"
		   "  --scale N       divide workload sizes by N (slow emulated guests)\n"
		   "  --output FILE   write the report to FILE instead of stdout\n"
		   "  --fs-dir DIR    a directory on a block filesystem (ext4, xfs, ...) for\n"
		   "                  the file scenarios, instead of an ext4 on a loop device\n"
		   "  --stress [S]    repeat each suite's scenarios for S seconds (default 20,\n"
		   "                  divided by --scale) while background processes reclaim,\n"
		   "                  compact, collapse, migrate, fork, mprotect and touch\n"
		   "                  memory (docs/bad-input.md)\n"
		   "  --log-rules F   kernel-log rules (fail/ignore NAME REGEX) consulted\n"
		   "                  before the built-in ones (docs/kernel-log.md)\n"
		   "  --log-user-lines  judge lines user space writes to /dev/kmsg too\n"
		   "                  (to test the check by injecting a splat)\n"
		   "  --list          list the scenarios and exit\n\n"
		   "Exit: 0 all ran checks passed, 1 a check failed, 2 usage or privilege,\n"
		   "      3 an operation failed, 4 nothing could be checked.\n\n"
		   "Examples:\n  sudo ptecheck run\n  sudo ptecheck run --suite mremap --format "
		   "tap\n");
}

int pc_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"suite", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"scale", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'},
		{"list", no_argument, NULL, 'l'},
		{"fs-dir", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{"stress", optional_argument, NULL, 'T'},
		{"log-rules", required_argument, NULL, 'R'},
		{"log-user-lines", no_argument, NULL, 'U'},
		{},
	};
	struct pc_session_opts so = {.filter_mode = PC_FILTER_TRACKED, .want_walk = true};
	struct pc_scenario_ctx ctx = {.disturb_map_fd = -1, .scale = 1};
	const char *suite = "all", *output = NULL, *fs_dir = NULL, *stress_arg = NULL;
	const char *log_rules = NULL;
	bool log_user = false;
	char rules_err[512];
	unsigned int stress_s = 0;
	bool stress = false;
	int lock_fd;
	bool list = false;
	char tmpdir[] = "/tmp/ptecheck.XXXXXX";
	struct timespec t0, t1;
	struct pc_session s;
	struct pc_report *r;
	int c, format = PC_FORMAT_TEXT, code, err;
	FILE *out = stdout;
	char *end;

	while ((c = getopt_long(argc, argv, "s:f:S:o:lh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			suite = optarg;
			if (strcmp(suite, "all") && !pc_path_find(suite)) {
				pc_err(0, "unknown suite '%s' (known: %s, all)", suite,
				       pc_path_names());
				return PC_EXIT_USAGE;
			}
			break;
		case 'f':
			format = pc_format_parse(optarg);
			if (format < 0) {
				pc_err(0, "unknown format '%s' (text, json, tap)", optarg);
				return PC_EXIT_USAGE;
			}
			break;
		case 'S':
			errno = 0;
			ctx.scale = strtoul(optarg, &end, 10);
			if (errno || *end || ctx.scale < 1 || ctx.scale > 64) {
				pc_err(0, "--scale takes a whole number from 1 to 64, not '%s'",
				       optarg);
				return PC_EXIT_USAGE;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'F': {
			struct stat st;

			errno = 0;
			if (stat(optarg, &st) || !S_ISDIR(st.st_mode) || access(optarg, W_OK)) {
				int e = errno ? errno : ENOTDIR;

				pc_err(e, "--fs-dir %s: not a writable directory", optarg);
				return PC_EXIT_USAGE;
			}
			fs_dir = optarg;
			break;
		}
		case 'T':
			stress = true;
			stress_arg = optarg;
			/* getopt binds only "--stress=S"; "--stress S" (S numeric) too. */
			if (!optarg && optind < argc &&
			    (isdigit((unsigned char)argv[optind][0]) ||
			     (argv[optind][0] == '-' && isdigit((unsigned char)argv[optind][1]))))
				stress_arg = argv[optind++];
			break;
		case 'R':
			log_rules = optarg;
			break;
		case 'U':
			log_user = true;
			break;
		case 'h':
			usage(stdout);
			return PC_EXIT_PASS;
		default:
			usage(stderr);
			return PC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		pc_err(0, "unexpected argument '%s'", argv[optind]);
		return PC_EXIT_USAGE;
	}
	if (stress && parse_stress(stress_arg, ctx.scale, &stress_s))
		return PC_EXIT_USAGE;
	if (list) {
		for (int k = 0; k < pc_n_paths; k++) {
			const struct pc_suite *su = pc_paths[k].suite;

			if (!pc_path_selected(&pc_paths[k], suite))
				continue;
			for (int i = 0; i < su->n_scenarios; i++)
				printf("%s/%-22s %s\n", su->name, su->scenarios[i].name,
				       su->scenarios[i].description);
		}
		if (fflush(stdout) || ferror(stdout)) {
			pc_err(errno, "cannot write the list");
			return PC_EXIT_ERROR;
		}
		return PC_EXIT_PASS;
	}
	if (!pc_have_bpf_privilege() || geteuid() != 0) {
		pc_err(0, "run needs root: BPF tracing (CAP_BPF, CAP_PERFMON), PFNs in "
			  "/proc/*/pagemap and /proc/kpageflags (CAP_SYS_ADMIN), mTHP sysfs");
		return PC_EXIT_USAGE;
	}
	if (pc_klog_start(&klog, log_rules, log_user, rules_err, sizeof(rules_err))) {
		pc_err(0, "--log-rules: %s", rules_err);
		return PC_EXIT_USAGE;
	}
	if (output) {
		out = pc_open_report(output);
		if (!out) {
			pc_err(errno, "cannot open %s%s", output,
			       errno == ELOOP ? " (a symlink in a shared directory is refused)"
					      : "");
			pc_klog_stop(&klog);
			return PC_EXIT_USAGE;
		}
	}
	r = pc_report_new("run", suite);
	if (!r) {
		pc_err(ENOMEM, "report");
		pc_klog_stop(&klog);
		return PC_EXIT_ERROR;
	}
	r->scale = ctx.scale;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pc_settings_install_handlers();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	lock_fd = lock_machine();
	if (lock_fd == -ENOENT) {
		/* No /run (a minimal initramfs): nothing else runs there anyway. */
		pc_report_note(r, "no /run: ran without the one-run-per-machine lock");
	} else if (lock_fd == -EINTR) {
		/* Nothing ran and nothing changed: an empty report, marked partial. */
		pc_report_note(r, "interrupted while waiting for another 'ptecheck run' "
				  "(/run/ptecheck.lock): nothing was run");
		r->partial = true;
		memset(&s, 0, sizeof(s));
		code = PC_EXIT_SKIP;
		goto out;
	} else if (lock_fd < 0) {
		pc_err(lock_fd, "cannot take /run/ptecheck.lock");
		pc_report_free(r);
		pc_klog_stop(&klog);
		return PC_EXIT_ERROR;
	}
	/* Lines from before the run (or from the run we waited for) are not ours. */
	pc_klog_skip_to_end(&klog);
	{
		char ptc[160];

		pc_page_table_check(ptc, sizeof(ptc));
		pc_report_note(r, "page_table_check: %s", ptc);
	}
	{
		/* Say so when a killed run left changes (ptecheck restore). */
		char why[256];

		if (pc_restore_pending(why, sizeof(why)) > 0) {
			pc_report_note(r, "%s", why);
			fprintf(stderr, "ptecheck: %s\n", why);
		}
	}
	err = pc_tracefs_ensure();
	if (err)
		pc_report_note(r, "cannot mount tracefs: %s", strerror(-err));
	pc_session_open(&s, &so);
	pc_session_notes(&s, r);
	s.report = r;
	ctx.disturb_map_fd = s.loaded ? pc_session_disturb_fd(&s) : -1;
	ctx.mthp_anon_64k = pc_mthp_set(64, 0, "madvise") == 0;
	ctx.mthp_shmem_64k = pc_mthp_set(64, 1, "always") == 0;
	if (!ctx.mthp_anon_64k)
		pc_report_note(r, "64 KiB anonymous mTHP unavailable: large-folio scenarios skip");
	ctx.have_kpageflags = access("/proc/kpageflags", R_OK) == 0;
	if (!mkdtemp(tmpdir)) {
		pc_err(errno, "mkdtemp");
		code = PC_EXIT_ERROR;
		goto out;
	}
	ctx.tmpdir = tmpdir;
	prepare_filesystems(&ctx, suite, tmpdir, fs_dir, r);
	if (stress_s) {
		/* After the mTHP settings: the stressors' memory gets 64 KiB folios. */
		struct pc_stress_opts sto = {
			.scale = ctx.scale, .file_dir = ctx.blockfs_dir ? ctx.blockfs_dir : tmpdir};

		pc_report_note(r, "stress: %u s per suite under background stressors", stress_s);
		err = pc_stress_start(&sto, r);
		if (err) {
			pc_err(err, "--stress: no stressor could be started (see the notes)");
			pc_scratch_release_all();
			rmdir(shmem_dir);
			rmdir(blockfs_dir);
			rmdir(tmpdir);
			code = PC_EXIT_ERROR;
			goto out;
		}
	}
	/* Progress on stderr: a harness whose kernel dies mid-run (guest/vmtest)
	   tells which suite it died in, and resumes with the ones after it. */
	{
		char names[128] = "";
		int n_run = 0, i_run = 0;

		for (int k = 0; k < pc_n_paths; k++) {
			if (!pc_path_selected(&pc_paths[k], suite))
				continue;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 n_run++ ? " " : "", pc_paths[k].name);
		}
		fprintf(stderr, "ptecheck: suites to run: %s\n", names);
		for (int k = 0; k < pc_n_paths && !interrupted; k++) {
			const struct pc_suite *su = pc_paths[k].suite;

			if (!pc_path_selected(&pc_paths[k], suite))
				continue;
			fprintf(stderr, "ptecheck: suite %s (%d of %d)\n", su->name, ++i_run,
				n_run);
			run_suite(su, &ctx, &s, r, stress_s);
		}
	}
	/* Before the scratch filesystems go: a stressor's file may be on one. */
	pc_stress_stop(r);
	if (stress_s) {
		/* The stressors' teardown is part of the run too. */
		usleep(50 * 1000);
		pc_klog_judge(&klog, r, "stress/kernel-log", who_is, NULL);
	}
	pc_scratch_release_all();
	rmdir(shmem_dir);
	rmdir(blockfs_dir);
	rmdir(tmpdir);
	if (interrupted) {
		r->partial = true;
		pc_report_note(r, "interrupted: results so far, marked partial");
	}
	for (int k = 0; k < pc_n_paths; k++)
		if (pc_path_selected(&pc_paths[k], suite))
			pc_paths[k].trace->results(&s, r);
	for (int k = 0; k < pc_n_paths; k++)
		if (pc_path_selected(&pc_paths[k], suite))
			pc_paths[k].trace->hists(&s, r);
	pc_session_stats(&s, r);
	code = pc_report_exit_code(r);
out:
	pc_scratch_release_all();
	pc_settings_restore_all();
	if (s.loaded || s.skel)
		pc_session_close(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->duration_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (pc_report_write(r, format, out)) {
		pc_err(errno, "cannot write the report");
		code = PC_EXIT_ERROR;
	}
	if (out != stdout && fclose(out)) {
		pc_err(errno, "cannot write %s", output);
		code = PC_EXIT_ERROR;
	}
	pc_report_free(r);
	pc_klog_stop(&klog);
	if (lock_fd >= 0)
		close(lock_fd);
	return code;
}
