// SPDX-License-Identifier: GPL-2.0
/* ptecheck: one dispatcher, one function per subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "cli.h"
#include "report.h"
#include "gate.h"
#include "merge.h"
#include "cmd_export.h"
#include "cmd_features.h"
#include "restore.h"
#include "cmd_run.h"
#include "cmd_watch.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{"features", pc_cmd_features, "what this kernel lets ptecheck check, and why not"},
	{"run", pc_cmd_run, "run a suite's workloads under every available check"},
	{"watch", pc_cmd_watch,
	 "check a live program's mremap calls and file faults as they happen"},
	{"hist", pc_cmd_watch, "per-call batch histograms of a live system or program"},
	{"export", pc_cmd_export, "leave the checks running; serve them to Prometheus (/metrics)"},
	{"gate", pc_cmd_gate, "compare run reports of a candidate kernel with a baseline: ship?"},
	{"merge", pc_cmd_merge, "one report of a kernel's boots; a kernel that died as a failure"},
	{"bench", pc_cmd_bench, "measure the patches' figures and the checks' overhead here"},
	{"restore", pc_cmd_restore, "undo what a killed run or workload left changed"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: ptecheck [-v] COMMAND [ARGS]\n\n"
		   "Checks the kernel's batched page-table paths on the running kernel.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'ptecheck COMMAND --help' describes each.  Exit codes: 0 pass, 1 fail,\n"
		   "2 usage or privilege, 3 operation failed, 4 skipped (nothing to check).\n");
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			pc_verbose = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return PC_EXIT_PASS;
		} else if (!strcmp(argv[i], "--version")) {
			printf("ptecheck %s (%s)\n", PTECHECK_VERSION, PTECHECK_ARCH_NAME);
			return PC_EXIT_PASS;
		} else {
			pc_err(0, "unknown option '%s'", argv[i]);
			usage(stderr);
			return PC_EXIT_USAGE;
		}
		i++;
	}
	if (i >= argc) {
		usage(stderr);
		return PC_EXIT_USAGE;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i);
	pc_err(0, "unknown command '%s'", argv[i]);
	usage(stderr);
	return PC_EXIT_USAGE;
}
