// SPDX-License-Identifier: GPL-2.0
/*
 * mutate-judge: the part of the mutation self-test that needs no kernel
 * (docs/mutation.md).  mutate/mutate builds and boots, then calls
 *	mutate-judge check PATCH...
 *	mutate-judge table [--format text|json] [--arch A] --control DIR [PATCH DIR]...
 * Exit 0 OK, 1 a mutant missed or the control unclean, 2 usage or a bad
 * catalogue header (every bad header is named).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "judge.h"

static const char *prog = "mutate-judge";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s check PATCH...\n"
		"       %s table [--format text|json] [--arch A] --control DIR [PATCH DIR]...\n\n"
		"check: parses each mutant's header (docs/mutation.md) and names every bad one.\n"
		"table: judges the control's directory and each mutant's (report.json,\n"
		"gate.json, or `failed` with the reason there is no report) and prints the\n"
		"table.\n\n"
		"Exit: 0 control clean and every mutant caught (check: every header good),\n"
		"1 a mutant missed or the control not clean, 2 usage or a bad header.\n",
		prog, prog);
}

static int cmd_check(int argc, char **argv)
{
	struct pc_mutant m;
	char err[1024];
	int bad = 0;

	if (argc < 1)
		pc_usage_error(prog, "check: no PATCH given");
	for (int i = 0; i < argc; i++)
		if (pc_mutant_load(argv[i], &m, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			bad++;
		}
	return bad ? PC_MUTATE_BAD_INPUT : PC_MUTATE_OK;
}

static int judge_rows(char **pairs, int n, struct pc_mutate_row *rows)
{
	char err[1024];
	int bad = 0;

	for (int i = 0; i < n; i++)
		if (pc_mutate_judge_mutant(pairs[2 * i], pairs[2 * i + 1], &rows[i], err,
					   sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			bad++;
		}
	return bad;
}

static int cmd_table(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"arch", required_argument, NULL, 'a'},
		{"control", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum pc_mutate_format fmt = PC_MUTATE_TEXT;
	const char *control = NULL, *arch = "?";
	struct pc_mutate_control c;
	struct pc_mutate_row *rows;
	int opt, n, ret;

	while ((opt = getopt_long(argc, argv, "f:a:c:h", opts, NULL)) != -1) {
		if (opt == 'f' && (!strcmp(optarg, "text") || !strcmp(optarg, "json")))
			fmt = strcmp(optarg, "json") ? PC_MUTATE_TEXT : PC_MUTATE_JSON;
		else if (opt == 'f')
			pc_usage_error(prog, "--format: '%s' is not text or json", optarg);
		else if (opt == 'a')
			arch = optarg;
		else if (opt == 'c')
			control = optarg;
		else if (opt == 'h') {
			usage(stdout);
			exit(0);
		} else
			pc_usage_error(prog, "table: bad option");
	}
	n = argc - optind;
	if (!control || n % 2)
		pc_usage_error(prog, "table: needs --control DIR and PATCH DIR pairs");
	n /= 2;
	rows = calloc((size_t)n + 1, sizeof(*rows));
	if (!rows) {
		pc_err(ENOMEM, "%s", prog);
		return PC_MUTATE_BAD_INPUT;
	}
	ret = judge_rows(argv + optind, n, rows) ? PC_MUTATE_BAD_INPUT : PC_MUTATE_OK;
	if (ret == PC_MUTATE_OK) {
		pc_mutate_judge_control(control, &c);
		ret = pc_mutate_write(stdout, fmt, arch, &c, rows, n);
		if (ret < 0) {
			pc_err(ret, "%s: writing the table", prog);
			ret = PC_MUTATE_BAD_INPUT;
		}
	}
	free(rows);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "table"))
		return cmd_table(argc - 1, argv + 1);
	usage(stderr);
	return PC_MUTATE_BAD_INPUT;
}
