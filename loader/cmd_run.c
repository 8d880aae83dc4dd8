// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck run: the options, --list, and the privilege a run needs; the
 * run itself is loader/run.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "cmd_run.h"
#include "command.h"
#include "filemap_fs.h"
#include "paths.h"
#include "probe.h"
#include "run.h"
#include "stress.h"

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
	fprintf(f,
		"Usage: ptecheck run [--suite NAME] [--format text|json|tap|junit] [--scale N]\n"
		"                    [--output FILE] [--fs-dir DIR] [--stress [SECONDS]]\n"
		"                    [--log-rules FILE] [--[no-]dangerous] [--skip-known-bugs]\n"
		"                    [-v] [--list]\n\n"
		"Runs the workloads of a suite under every check this kernel allows and\n"
		"prints one result per check and tier: pass, fail (with evidence) or skip\n"
		"(with the reason), then the histograms.\n\n"
		"  --suite NAME    %s or all (default: all);\n"
		"                  several as NAME,NAME\n"
		"  --format F      text (default), json (schema docs/report-schema.json), tap,\n"
		"                  junit (JUnit XML for CI test reporters, docs/ci/README.md)\n"
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
		"  --dangerous     also run the scenarios that may crash a kernel carrying\n"
		"                  the bug they look for (a memory corruption): for a guest\n"
		"                  or a machine whose crash costs nothing (vmtest passes it)\n"
		"  --no-dangerous  not them, even where --dangerous is given too (a\n"
		"                  guest's run where vmtest would add it)\n"
		"  --skip-known-bugs  skip the scenarios that make the state of a bug\n"
		"                  released kernels carry unfixed (--list marks them;\n"
		"                  docs/findings.md): each says it was skipped, and why\n"
		"  -v, --verbose   each scenario's result under its check (text; TAP:\n"
		"                  a subtest per check); JSON always has them\n"
		"  --list          list the scenarios and exit\n\n"
		"Exit: 0 all ran checks passed, 1 a check failed, 2 usage or privilege,\n"
		"      3 an operation failed, 4 nothing could be checked.\n\n"
		"Examples:\n  sudo ptecheck run\n  sudo ptecheck run --suite mremap --format "
		"tap\n",
		pc_path_names());
}

/* Prints the selected suites' scenarios; an exit code. */
static int list_scenarios(const char *suite)
{
	for (int k = 0; k < pc_n_paths; k++) {
		const struct pc_suite *su = pc_paths[k].suite;

		if (!pc_path_selected(&pc_paths[k], suite))
			continue;
		for (int i = 0; i < su->n_scenarios; i++)
			printf("%s/%-22s %s%s\n", su->name, su->scenarios[i].name,
			       su->scenarios[i].description,
			       su->scenarios[i].needs & PC_SCENARIO_MAY_CRASH
				       ? " (may crash a kernel with the bug: --dangerous)"
			       : su->scenarios[i].needs & PC_SCENARIO_KNOWN_BUG
				       ? " (a bug released kernels carry: --skip-known-bugs)"
				       : "");
	}
	if (fflush(stdout) || ferror(stdout)) {
		pc_err(errno, "cannot write the list");
		return PC_EXIT_ERROR;
	}
	return PC_EXIT_PASS;
}

/*
 * --fs-dir: a writable directory on a block filesystem.  One on memory
 * (tmpfs, ramfs, an overlay over them) would run the file scenarios as
 * shmem, which may map EOF's folio: a past-EOF bug on ext4 would pass.
 */
static int fs_dir_option(const char *dir, struct pc_run_opts *o)
{
	struct pc_fs_info fi;
	struct stat st;
	char desc[96];
	int err;

	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
		int e = errno ? errno : ENOTDIR;

		pc_err(e, "--fs-dir %s: not a writable directory", dir);
		return PC_EXIT_USAGE;
	}
	err = pc_fs_probe(dir, &fi);
	if (err) {
		pc_err(-err, "--fs-dir %s: cannot tell its filesystem", dir);
		return PC_EXIT_USAGE;
	}
	if (!pc_fs_is_block(&fi)) {
		pc_err(0,
		       "--fs-dir %s: %s has no block device; the file scenarios need a block "
		       "filesystem (ext4, xfs, ...)",
		       dir, pc_fs_describe(&fi, desc, sizeof(desc)));
		return PC_EXIT_USAGE;
	}
	o->fs_dir = dir;
	return -1;
}

/* One option into o; -1 to go on, else the exit code. */
static int take_option(int c, struct pc_run_opts *o, bool *list, const char **stress_arg,
		       bool *stress, int argc, char **argv)
{
	char *end;

	switch (c) {
	case 's': {
		char bad[32];

		o->suite = optarg;
		if (pc_suite_arg_bad(o->suite, bad, sizeof(bad))) {
			pc_err(0, "unknown suite '%s' (known: %s, all; several: NAME,NAME)", bad,
			       pc_path_names());
			return PC_EXIT_USAGE;
		}
		/* The report's suite field holds 63 characters (report-schema):
		   every suite once, with room to spare. */
		if (strlen(o->suite) > PC_SUITE_LIST_MAX - 1) {
			pc_err(0, "--suite '%s': at most %d characters (use all, or fewer names)",
			       o->suite, PC_SUITE_LIST_MAX - 1);
			return PC_EXIT_USAGE;
		}
		return -1;
	}
	case 'f':
		return pc_format_option(optarg, &o->format) ? -1 : PC_EXIT_USAGE;
	case 'S':
		errno = 0;
		o->scale = strtoul(optarg, &end, 10);
		if (errno || *end || o->scale < 1 || o->scale > 64) {
			pc_err(0, "--scale takes a whole number from 1 to 64, not '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		return -1;
	case 'o':
		o->output = optarg;
		return -1;
	case 'l':
		*list = true;
		return -1;
	case 'v':
		o->verbose = true;
		return -1;
	case 'D':
		o->dangerous = true;
		return -1;
	case 'K':
		o->skip_known_bugs = true;
		return -1;
	case 'N':
		o->no_dangerous = true;
		return -1;
	case 'F':
		return fs_dir_option(optarg, o);
	case 'T':
		*stress = true;
		*stress_arg = optarg;
		/* getopt binds only "--stress=S"; "--stress S" (S numeric) too. */
		if (!optarg && optind < argc &&
		    (isdigit((unsigned char)argv[optind][0]) ||
		     (argv[optind][0] == '-' && isdigit((unsigned char)argv[optind][1]))))
			*stress_arg = argv[optind++];
		return -1;
	}
	return pc_klog_option(c, &o->klog) ? -1 : PC_EXIT_USAGE;
}

int pc_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"suite", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"scale", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'},
		{"list", no_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"fs-dir", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{"stress", optional_argument, NULL, 'T'},
		{"dangerous", no_argument, NULL, 'D'},
		{"skip-known-bugs", no_argument, NULL, 'K'},
		{"no-dangerous", no_argument, NULL, 'N'},
		PC_KLOG_LONGOPTS,
		{},
	};
	struct pc_run_opts o = {.suite = "all", .scale = 1, .format = PC_FORMAT_TEXT};
	const char *stress_arg = NULL;
	bool list = false, stress = false;
	int c, code;

	struct pc_cmd_opts co = {NULL, "s:f:S:o:lvh", opts, usage};

	while ((c = pc_cmd_getopt(&co, argc, argv)) != -1) {
		code = take_option(c, &o, &list, &stress_arg, &stress, argc, argv);
		if (code >= 0)
			return code;
	}
	if (co.exit_code >= 0)
		return co.exit_code;
	if (stress && parse_stress(stress_arg, o.scale, &o.stress_s))
		return PC_EXIT_USAGE;
	if (list)
		return list_scenarios(o.suite);
	if (!pc_have_bpf_privilege() || geteuid() != 0) {
		pc_err(0, "run needs root: BPF tracing (CAP_BPF, CAP_PERFMON), PFNs in "
			  "/proc/*/pagemap and /proc/kpageflags (CAP_SYS_ADMIN), mTHP sysfs");
		return PC_EXIT_USAGE;
	}
	return pc_run(&o);
}
