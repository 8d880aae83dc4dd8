// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck bench: runs the workloads as child processes, two sides of a
 * figure alternately (A B, B A, A B ...), and reports each figure as the median
 * and the spread of the per-pair ratios beside the reference value of the
 * original patches.  This file: the command (options, the report in text
 * or JSON).  The tables of rows: figures.c and overhead.c, measured with
 * side.c and runner.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "cli.h"
#include "command.h"
#include "export.h"
#include "figures.h"
#include "overhead.h"
#include "probe.h"
#include "report.h"
#include "settings.h"

static const struct pc_bench_table *const tables[] = {&pc_bench_figures, &pc_bench_overhead,
						      &pc_bench_export};
#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

/* ---- output ------------------------------------------------------------ */

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double jnum(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* "12.3 us" from a value in the unit named (ns, s, pages/s). */
static void human(double v, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "ns")) {
		if (v >= 1e9)
			snprintf(buf, len, "%.3g s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%.3g ms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%.3g us", v / 1e3);
		else
			snprintf(buf, len, "%.3g ns", v);
	} else if (!strcmp(unit, "s")) {
		snprintf(buf, len, "%.3f s", v);
	} else {
		snprintf(buf, len, "%.4g %s", v, unit);
	}
}

static void print_side(FILE *f, const char *tag, const json_t *side)
{
	char v[48];

	if (!side)
		return;
	human(jnum(side, "median"), jstr(side, "unit"), v, sizeof(v));
	fprintf(f, "%s %s %s%s", tag, jstr(side, "label"), v, jstr(side, "per"));
}

static void print_row(FILE *f, const json_t *row)
{
	const char *kind = jstr(row, "kind"), *status = jstr(row, "status");
	const json_t *tm = json_object_get(row, "target_met");

	fprintf(f, "  %-34s %s\n", jstr(row, "name"), jstr(row, "title"));
	if (strcmp(status, "measured")) {
		fprintf(f, "  %-34s %s: %s\n", "", strcmp(status, "skipped") ? "n/a" : "SKIPPED",
			jstr(row, "reason"));
		return;
	}
	if (!strcmp(kind, "seconds"))
		fprintf(f, "  %-34s %.3f s [%.3f..%.3f], samples: %d", "", jnum(row, "median"),
			jnum(row, "min"), jnum(row, "max"),
			(int)json_integer_value(json_object_get(row, "pairs")));
	else
		fprintf(f, "  %-34s %s %.2f [%.2f..%.2f] over %d pairs", "", kind,
			jnum(row, "median"), jnum(row, "min"), jnum(row, "max"),
			(int)json_integer_value(json_object_get(row, "pairs")));
	if (json_object_get(row, "reference_ratio"))
		fprintf(f, "; reference %.2f", jnum(row, "reference_ratio"));
	if (json_object_get(row, "target_max"))
		fprintf(f, "; target <= %.2f%s: %s", jnum(row, "target_max"),
			!strcmp(kind, "seconds") ? " s" : "",
			json_is_true(tm)    ? "met"
			: json_is_false(tm) ? "NOT met"
					    : "-");
	fprintf(f, "\n");
	if (json_object_get(row, "a")) {
		fprintf(f, "  %-34s ", "");
		print_side(f, "A", json_object_get(row, "a"));
		print_side(f, ", B", json_object_get(row, "b"));
		fprintf(f, " (medians; timing: %s)\n", jstr(row, "timing"));
	}
	if (*jstr(row, "invalid"))
		fprintf(f, "  %-34s INVALID, not an overhead: %s\n", "", jstr(row, "invalid"));
	if (*jstr(row, "reference"))
		fprintf(f, "  %-34s reference: %s\n", "", jstr(row, "reference"));
	if (*jstr(row, "note"))
		fprintf(f, "  %-34s note: %s\n", "", jstr(row, "note"));
}

static void print_text(FILE *f, const json_t *doc)
{
	const json_t *rows = json_object_get(doc, "rows"), *row,
		     *opts = json_object_get(doc, "options");
	const json_t *sum = json_object_get(doc, "summary");
	size_t i;

	fprintf(f, "ptecheck bench: %s %s, %s (%s); %d pairs per row%s, children %s\n",
		jstr(doc, "arch"), jstr(doc, "kernel"),
		jstr(json_object_get(doc, "platform"), "kind"),
		jstr(json_object_get(doc, "platform"), "why"),
		(int)json_integer_value(json_object_get(opts, "repeat")),
		json_is_true(json_object_get(opts, "quick")) ? " (--quick: small sizes)" : "",
		jstr(opts, "pinning"));
	for (size_t t = 0; t < N_TABLES; t++) {
		fprintf(f, "\n%s\n", tables[t]->heading);
		json_array_foreach(rows, i, row)
		{
			if (!strcmp(jstr(row, "table"), tables[t]->name))
				print_row(f, row);
		}
	}
	fprintf(f, "\n%d measured, %d skipped, %d not applicable\n",
		(int)json_integer_value(json_object_get(sum, "measured")),
		(int)json_integer_value(json_object_get(sum, "skipped")),
		(int)json_integer_value(json_object_get(sum, "not_applicable")));
}

/* ---- the command ------------------------------------------------------- */

/* ---- the command ------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptecheck bench [--quick] [--repeat N] [--format text|json]\n"
		"                      [--output FILE] [--only NAME[,NAME...]] [--cpu N|none]\n\n"
		"Measures the figures of the original patches on this machine, each a ratio\n"
		"of two sides run alternately (A B, B A, ...) after a discarded warm-up run,\n"
		"reported as the median and the min..max of the per-pair ratios beside the\n"
		"patches' reference; then the overhead of ptecheck hist/watch, of empty BPF\n"
		"programs on the same hooks and of a bpftrace one-liner, load+attach time,\n"
		"the whole start-to-exit time of hist/watch -- true against bpftrace's and\n"
		"lost events.  See docs/performance.md.\n\n"
		"  --quick        3 pairs and small sizes (CI)\n"
		"  --repeat N     pairs per row (default 7, 1..%d)\n"
		"  --format F     text (default) or json\n"
		"  --output FILE  write the report to FILE instead of stdout\n"
		"  --only NAMES   rows by name, or a prefix: mremap-folios, mremap-pmd,\n"
		"                 filemap-fault, contpte-mlock, overhead (overhead-mremap-folios,\n"
		"                 overhead-filemap-fault, each -hist, -watch, -empty-bpf,\n"
		"                 -bpftrace), load-attach, start-exit (-hist, -watch)\n"
		"  --cpu N|none   pin the workloads (and their tracer) to CPU N (default: the\n"
		"                 last CPU when there are two or more), or not at all\n"
		"  --fs-dir DIR   filemap-fault's files in DIR (ext4 with a journal), the 4 KiB\n"
		"                 side under the journal-data flag (chattr +j), instead of two\n"
		"                 ext4 filesystems made on loop devices (no mkfs needed)\n\n"
		"Exit: 0 every selected row measured (or not applicable to this\n"
		"      architecture), 2 usage or privilege, 3 a row could not be measured\n"
		"      (its reason is in the report).  No timing is ever a failure.\n",
		PC_BENCH_MAX_REPEAT);
}

static int locate(struct pc_bench *b)
{
	ssize_t n = readlink("/proc/self/exe", b->exe, sizeof(b->exe) - 1);
	char *slash;

	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	b->exe[n] = '\0';
	snprintf(b->workloads, sizeof(b->workloads), "%s", b->exe);
	slash = strrchr(b->workloads, '/');
	if (slash)
		*slash = '\0';
	/* build/ptecheck -> build/workloads; in a guest /ptecheck -> /workloads. */
	if (strlen(b->workloads) + 10 >= sizeof(b->workloads))
		return -ENAMETOOLONG;
	strcat(b->workloads, "/workloads");
	return 0;
}

/* What the command line asks beside the bench's own options. */
struct cmd {
	struct pc_bench b;
	bool json, repeat_given;
	const char *output;
	time_t started;
};

/* One option into m: 0, or PC_EXIT_USAGE (said why). */
static int bench_option(struct cmd *m, int c)
{
	char *end;
	long v;

	switch (c) {
	case 'q':
		m->b.o.quick = true;
		break;
	case 'r':
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || v < 1 || v > PC_BENCH_MAX_REPEAT) {
			pc_err(0, "bench: --repeat takes 1 to %d, not '%s'", PC_BENCH_MAX_REPEAT,
			       optarg);
			return PC_EXIT_USAGE;
		}
		m->b.o.repeat = (int)v;
		m->repeat_given = true;
		break;
	case 'f':
		if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
			pc_err(0, "bench: unknown format '%s' (text, json)", optarg);
			return PC_EXIT_USAGE;
		}
		m->json = !strcmp(optarg, "json");
		break;
	case 'o':
		m->output = optarg;
		break;
	case 'O':
		m->b.o.only = optarg;
		break;
	case 'c':
		if (!strcmp(optarg, "none")) {
			m->b.o.cpu = -1;
			break;
		}
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || v < 0 || v >= CPU_SETSIZE) {
			pc_err(0, "bench: --cpu takes a CPU number or none, not '%s'", optarg);
			return PC_EXIT_USAGE;
		}
		m->b.o.cpu = (int)v;
		break;
	case 'F': {
		struct stat st;

		if (stat(optarg, &st) || !S_ISDIR(st.st_mode)) {
			pc_err(0, "bench: --fs-dir '%s' is not a directory", optarg);
			return PC_EXIT_USAGE;
		}
		m->b.o.fs_dir = optarg;
		break;
	}
	}
	return 0;
}

static bool selects_a_row(const struct pc_bench *b)
{
	for (size_t t = 0; t < N_TABLES; t++)
		for (int i = 0; tables[t]->rows[i]; i++)
			if (pc_bench_selected(b, tables[t]->rows[i]))
				return true;
	return false;
}

/* The command line into m: -1 to go on, or the exit code. */
static int parse_options(struct cmd *m, int argc, char **argv)
{
	static const struct option opts[] = {
		{"quick", no_argument, NULL, 'q'},
		{"repeat", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"only", required_argument, NULL, 'O'},
		{"cpu", required_argument, NULL, 'c'},
		{"fs-dir", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct pc_cmd_opts o = {"bench", "+h", opts, usage};
	int c, code;

	while ((c = pc_cmd_getopt(&o, argc, argv)) != -1) {
		code = bench_option(m, c);
		if (code)
			return code;
	}
	if (o.exit_code >= 0)
		return o.exit_code;
	if (m->b.o.only && !selects_a_row(&m->b)) {
		pc_err(0, "bench: --only '%s' selects no row (see --help)", m->b.o.only);
		return PC_EXIT_USAGE;
	}
	if (m->b.o.quick && !m->repeat_given)
		m->b.o.repeat = 3;
	return -1;
}

/* --cpu's default: the last CPU (the first takes more interrupts on most
   machines) when there are two or more and it is ours, else none. */
static int default_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = n >= 2 ? (int)n - 1 : -1;
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0 && (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(cpu, &set)))
		cpu = -1;
	return cpu;
}

/* The report (schema ptecheck-bench, version 1) of the rows measured. */
static json_t *report_doc(const struct cmd *m, int code)
{
	const struct pc_bench *b = &m->b;
	char started[32], pin[48];
	struct utsname u;
	json_t *doc;

	uname(&u);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&m->started));
	if (b->o.cpu >= 0)
		snprintf(pin, sizeof(pin), "pinned to CPU %d", b->o.cpu);
	else
		snprintf(pin, sizeof(pin), "not pinned");
	doc = json_pack(
		"{s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:b, s:i, s:o, s:o, s:s}, s:O, "
		"s:{s:i, s:i, s:i}, s:i}",
		"schema", "ptecheck-bench", "schema_version", 1, "tool_version", PTECHECK_VERSION,
		"arch", PTECHECK_ARCH_NAME, "kernel", u.release, "started", started, "platform",
		"kind", b->platform.kind, "why", b->platform.why, "options", "quick", b->o.quick,
		"repeat", b->o.repeat, "cpu", b->o.cpu >= 0 ? json_integer(b->o.cpu) : json_null(),
		"only", b->o.only ? json_string(b->o.only) : json_null(), "pinning", pin, "rows",
		b->rows, "summary", "measured", b->n_measured, "skipped", b->n_skipped,
		"not_applicable", b->n_na, "exit_code", code);
	if (b->instr_why[0])
		json_object_set_new(doc, "instructions", json_string(b->instr_why));
	if (doc && b->o.fs_dir)
		json_object_set_new(json_object_get(doc, "options"), "fs_dir",
				    json_string(b->o.fs_dir));
	return doc;
}

/* Writes the report to f and closes it: code, or PC_EXIT_ERROR (said why). */
static int write_report(FILE *f, const json_t *doc, bool json, int code)
{
	if (json) {
		if (json_dumpf(doc, f, JSON_INDENT(2)) || fputc('\n', f) == EOF)
			code = PC_EXIT_ERROR;
	} else {
		print_text(f, doc);
	}
	if (f != stdout ? fclose(f) : fflush(f)) {
		pc_err(errno, "bench: writing the report");
		code = PC_EXIT_ERROR;
	}
	return code;
}

int pc_cmd_bench(int argc, char **argv)
{
	struct cmd m = {.b = {.o = {.repeat = 7, .cpu = -2}}, .started = time(NULL)};
	FILE *f = stdout;
	int lock, code;
	json_t *doc;

	code = parse_options(&m, argc, argv);
	if (code >= 0)
		return code;
	if (!pc_have_bpf_privilege() || geteuid() != 0) {
		pc_err(0, "bench: needs root (BPF, mTHP settings, scratch filesystems)");
		return PC_EXIT_USAGE;
	}
	if (m.b.o.cpu == -2)
		m.b.o.cpu = default_cpu();
	code = locate(&m.b);
	if (code) {
		pc_err(code, "bench: cannot find this executable");
		return PC_EXIT_ERROR;
	}
	if (m.output) {
		f = pc_open_report(m.output);
		if (!f) {
			pc_err(errno, "bench: cannot write %s", m.output);
			return PC_EXIT_USAGE;
		}
	}
	lock = pc_machine_lock("bench: another ptecheck run or bench is in progress; waiting");
	if (lock < 0) {
		pc_err(lock, "bench: " PC_MACHINE_LOCK);
		if (f != stdout)
			fclose(f);
		return PC_EXIT_ERROR;
	}
	/* Scratch filesystems of the filemap rows go away on every exit path. */
	pc_settings_install_handlers();
	pc_bench_detect_platform(&m.b.platform);
	m.b.rows = json_array();
	for (size_t t = 0; t < N_TABLES; t++)
		tables[t]->run(&m.b);
	code = m.b.n_skipped ? PC_EXIT_ERROR : PC_EXIT_PASS;
	doc = report_doc(&m, code);
	code = write_report(f, doc, m.json, code);
	json_decref(doc);
	json_decref(m.b.rows);
	pc_settings_restore_all();
	pc_machine_unlock(lock);
	return code;
}
