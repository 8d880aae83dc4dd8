// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck bench: runs the workloads as child processes, two sides of a
 * figure alternately (A B A B ...), and reports each figure as the median
 * and the spread of the per-pair ratios beside the reference value of the
 * original patches.  This file: options, the child runner, statistics,
 * platform detection and the text/JSON output.  The rows: bench_rows.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "cli.h"
#include "report.h"
#include "probe.h"
#include "settings.h"

#define BENCH_MAX_CAPTURE (4 << 20)

/* ---- statistics ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void pc_bench_stats(const double *v, int n, struct pc_bench_stats *out)
{
	double s[PC_BENCH_MAX_REPEAT];

	memset(out, 0, sizeof(*out));
	if (n <= 0)
		return;
	if (n > PC_BENCH_MAX_REPEAT)
		n = PC_BENCH_MAX_REPEAT;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ---- where the timings come from ------------------------------------------- */

static bool file_has(const char *path, const char *needle)
{
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	/* Device-tree strings are NUL-separated: search them all. */
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/*
 * QEMU without KVM (TCG) emulates every instruction: wall time there says
 * little about the kernel's paths, so such rows are labelled "emulated".
 * kvm-clock exists only under KVM; a hypervisor flag alone (this host is a
 * KVM guest) means "virtualized": real CPUs, noisier timing.
 */
void pc_bench_detect_platform(struct pc_bench_platform *p)
{
	const char *env = getenv("PTECHECK_EMULATED");
	bool qemu = file_has("/sys/class/dmi/id/sys_vendor", "QEMU") ||
		    file_has("/proc/device-tree/compatible", "linux,dummy-virt") ||
		    file_has("/proc/cpuinfo", "QEMU TCG");
	bool kvm = file_has("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			    "kvm-clock");

	if (env && *env) {
		bool on = strcmp(env, "0") != 0;

		p->kind = on ? "emulated" : "host";
		snprintf(p->why, sizeof(p->why), "PTECHECK_EMULATED=%s", env);
	} else if (qemu && !kvm) {
		p->kind = "emulated";
		snprintf(p->why, sizeof(p->why), "QEMU machine without kvm-clock (TCG)");
	} else if (kvm || file_has("/proc/cpuinfo", " hypervisor")) {
		p->kind = "virtualized";
		snprintf(p->why, sizeof(p->why), "%s",
			 kvm ? "KVM guest (kvm-clock)" : "hypervisor CPU flag");
	} else {
		p->kind = "host";
		snprintf(p->why, sizeof(p->why), "no hypervisor seen");
	}
}

/* ---- child processes ---------------------------------------------------- */

static char *slurp(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *nb;

			if (cap >= BENCH_MAX_CAPTURE)
				break;
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	return buf;
}

/* Retired instructions of pid and its descendants from its exec on, or -1. */
static int open_instr_counter(struct pc_bench *b, pid_t pid)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
		.exclude_hv = 1,
	};
	int fd;

	if (b->instr_why[0])
		return -1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		snprintf(b->instr_why, sizeof(b->instr_why),
			 "no instruction counter here (perf_event_open: %s)", strerror(errno));
	return fd;
}

int pc_bench_run(struct pc_bench *b, char *const argv[], double timeout_s, struct pc_bench_child *c)
{
	int out = -1, err = -1, go[2] = {-1, -1}, pidfd, counter, rc = 0;
	struct timespec t0, t1;
	struct pollfd pfd;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	c->instructions = -1;
	out = memfd_create("bench-stdout", MFD_CLOEXEC);
	err = memfd_create("bench-stderr", MFD_CLOEXEC);
	if (out < 0 || err < 0 || pipe2(go, O_CLOEXEC)) {
		rc = -errno;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		char g;

		if (b->o.cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(b->o.cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		/* Waits until the parent has its counter on us. */
		close(go[1]);
		if (read(go[0], &g, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ptecheck: bench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	counter = open_instr_counter(b, pid);
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	go[1] = -1;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0) {
		pfd.fd = pidfd;
		pfd.events = POLLIN;
		while (poll(&pfd, 1, (int)(timeout_s * 1000)) < 0 && errno == EINTR)
			;
		if (!(pfd.revents & POLLIN)) {
			/* TERM first: ptecheck and the workloads clean up on it. */
			kill(pid, SIGTERM);
			if (poll(&pfd, 1, 10000) <= 0)
				kill(pid, SIGKILL);
		}
		close(pidfd);
	}
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c->wall_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (counter >= 0) {
		unsigned long long v;

		if (read(counter, &v, sizeof(v)) == sizeof(v))
			c->instructions = (long long)v;
		close(counter);
	}
	c->out = slurp(out);
	c->err = slurp(err);
out:
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	return rc;
}

void pc_bench_child_free(struct pc_bench_child *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

json_t *pc_bench_workload_json(const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (!strncmp(p, "{\"workload\"", 11)) {
			json_t *j = json_loadb(p, len, 0, NULL);

			if (j)
				return j;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

const char *pc_bench_first_line(const char *text, char *buf, size_t len)
{
	const char *p = text ? text : "";
	size_t n;

	while (*p == '\n' || *p == ' ')
		p++;
	n = strcspn(p, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "no message");
	return buf;
}

bool pc_bench_selected(const struct pc_bench *b, const char *name)
{
	const char *p = b->o.only;

	if (!p)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		/* "overhead" selects overhead-*, "mremap-folios" itself. */
		if (n && !strncmp(name, p, n) && (name[n] == '\0' || name[n] == '-'))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* ---- rows ------------------------------------------------------------- */

static const char *const kind_names[] = {
	[PC_BENCH_SPEEDUP] = "speedup",
	[PC_BENCH_SLOWDOWN] = "slowdown",
	[PC_BENCH_SECONDS] = "seconds",
};
static const char *const status_names[] = {
	[PC_BENCH_MEASURED] = "measured",
	[PC_BENCH_SKIPPED] = "skipped",
	[PC_BENCH_NOT_APPLICABLE] = "not-applicable",
};

json_t *pc_bench_row_new(const char *name, const char *table, const char *title,
			 enum pc_bench_kind kind)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "name", name, "table", table, "title", title,
			 "kind", kind_names[kind]);
}

void pc_bench_row_finish(struct pc_bench *b, json_t *row, enum pc_bench_status st,
			 const char *reason)
{
	json_object_set_new(row, "status", json_string(status_names[st]));
	if (reason)
		json_object_set_new(row, "reason", json_string(reason));
	if (st == PC_BENCH_MEASURED) {
		json_object_set_new(row, "timing", json_string(b->platform.kind));
		b->n_measured++;
	} else if (st == PC_BENCH_SKIPPED) {
		b->n_skipped++;
	} else {
		b->n_na++;
	}
	json_array_append_new(b->rows, row);
	/* Progress on stderr: a full run takes minutes. */
	fprintf(stderr, "ptecheck: bench: %s: %s%s%s\n",
		json_string_value(json_object_get(row, "name")), status_names[st],
		reason ? ": " : "", reason ? reason : "");
}

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
	static const char *const tables[] = {"figures", "overhead"};
	size_t i;

	fprintf(f, "ptecheck bench: %s %s, %s (%s); %d pairs per row%s, children %s\n",
		jstr(doc, "arch"), jstr(doc, "kernel"),
		jstr(json_object_get(doc, "platform"), "kind"),
		jstr(json_object_get(doc, "platform"), "why"),
		(int)json_integer_value(json_object_get(opts, "repeat")),
		json_is_true(json_object_get(opts, "quick")) ? " (--quick: small sizes)" : "",
		jstr(opts, "pinning"));
	for (int t = 0; t < 2; t++) {
		fprintf(f, "\n%s\n",
			t == 0 ? "Figures: speedup of B over A (time A / time B), median "
				 "[min..max] of the per-pair ratios"
			       : "Overhead of the checks: slowdown vs bare (time traced / "
				 "time bare), median [min..max] of the per-pair ratios");
		json_array_foreach(rows, i, row) if (!strcmp(jstr(row, "table"), tables[t]))
			print_row(f, row);
	}
	fprintf(f, "\n%d measured, %d skipped, %d not applicable\n",
		(int)json_integer_value(json_object_get(sum, "measured")),
		(int)json_integer_value(json_object_get(sum, "skipped")),
		(int)json_integer_value(json_object_get(sum, "not_applicable")));
}

/* ---- the command ------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptecheck bench [--quick] [--repeat N] [--format text|json]\n"
		"                      [--output FILE] [--only NAME[,NAME...]] [--cpu N|none]\n\n"
		"Measures the figures of the original patches on this machine, each a ratio\n"
		"of two sides run alternately (A B A B ...) after a discarded warm-up run,\n"
		"reported as the median and the min..max of the per-pair ratios beside the\n"
		"patches' reference; then the overhead of ptecheck hist/watch, of empty BPF\n"
		"programs on the same hooks and of a bpftrace one-liner, load+attach time\n"
		"and lost events.  See docs/performance.md.\n\n"
		"  --quick        3 pairs and small sizes (CI)\n"
		"  --repeat N     pairs per row (default 7, 1..%d)\n"
		"  --format F     text (default) or json\n"
		"  --output FILE  write the report to FILE instead of stdout\n"
		"  --only NAMES   rows by name, or a prefix: mremap-folios, mremap-pmd,\n"
		"                 filemap-fault, contpte-mlock, overhead (overhead-mremap-folios,\n"
		"                 overhead-filemap-fault, each -hist, -watch, -empty-bpf,\n"
		"                 -bpftrace), load-attach\n"
		"  --cpu N|none   pin the workloads (and their tracer) to CPU N (default: the\n"
		"                 last CPU when there are two or more), or not at all\n\n"
		"Exit: 0 every selected row measured (or not applicable to this\n"
		"      architecture), 2 usage or privilege, 3 a row could not be measured\n"
		"      (its reason is in the report).  No timing is ever a failure.\n",
		PC_BENCH_MAX_REPEAT);
}

static int lock_machine(void)
{
	int fd = open("/run/ptecheck.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	fprintf(stderr, "ptecheck: bench: another ptecheck run or bench is in progress; waiting\n");
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return fd;
}

static int locate(struct pc_bench *b)
{
	ssize_t n = readlink("/proc/self/exe", b->exe, sizeof(b->exe) - 1);
	char *slash;

	if (n <= 0)
		return -errno;
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

int pc_cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quick", no_argument, NULL, 'q'},	  {"repeat", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"only", required_argument, NULL, 'O'},	  {"cpu", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},	  {},
	};
	struct pc_bench b = {.o = {.repeat = 7, .cpu = -2}};
	bool json = false, repeat_given = false;
	const char *output = NULL;
	struct utsname u;
	char started[32], *end;
	time_t now = time(NULL);
	json_t *doc;
	long v;
	int c, lock, code;
	FILE *f = stdout;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			b.o.quick = true;
			break;
		case 'r':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > PC_BENCH_MAX_REPEAT) {
				pc_err(0, "bench: --repeat takes 1 to %d, not '%s'",
				       PC_BENCH_MAX_REPEAT, optarg);
				return PC_EXIT_USAGE;
			}
			b.o.repeat = (int)v;
			repeat_given = true;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				pc_err(0, "bench: unknown format '%s' (text, json)", optarg);
				return PC_EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'o':
			output = optarg;
			break;
		case 'O':
			b.o.only = optarg;
			break;
		case 'c':
			if (!strcmp(optarg, "none")) {
				b.o.cpu = -1;
				break;
			}
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 0 || v >= CPU_SETSIZE) {
				pc_err(0, "bench: --cpu takes a CPU number or none, not '%s'",
				       optarg);
				return PC_EXIT_USAGE;
			}
			b.o.cpu = (int)v;
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
		pc_err(0, "bench: unexpected argument '%s'", argv[optind]);
		return PC_EXIT_USAGE;
	}
	if (b.o.only) {
		bool any = false;

		for (int i = 0; pc_bench_row_names[i]; i++)
			any = any || pc_bench_selected(&b, pc_bench_row_names[i]);
		if (!any) {
			pc_err(0, "bench: --only '%s' selects no row (see --help)", b.o.only);
			return PC_EXIT_USAGE;
		}
	}
	if (b.o.quick && !repeat_given)
		b.o.repeat = 3;
	if (!pc_have_bpf_privilege() || geteuid() != 0) {
		pc_err(0, "bench: needs root (BPF, mTHP settings, scratch filesystems)");
		return PC_EXIT_USAGE;
	}
	if (b.o.cpu == -2) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		/* The last CPU: the first takes more interrupts on most machines. */
		b.o.cpu = n >= 2 ? (int)n - 1 : -1;
		CPU_ZERO(&set);
		if (b.o.cpu >= 0 &&
		    (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(b.o.cpu, &set)))
			b.o.cpu = -1;
	}
	if (locate(&b)) {
		pc_err(errno, "bench: cannot find this executable");
		return PC_EXIT_ERROR;
	}
	if (output) {
		f = pc_open_report(output);
		if (!f) {
			pc_err(errno, "bench: cannot write %s", output);
			return PC_EXIT_USAGE;
		}
	}
	lock = lock_machine();
	if (lock < 0) {
		pc_err(lock, "bench: /run/ptecheck.lock");
		if (f != stdout)
			fclose(f);
		return PC_EXIT_ERROR;
	}
	/* Scratch filesystems of the filemap rows go away on every exit path. */
	pc_settings_install_handlers();
	pc_bench_detect_platform(&b.platform);
	uname(&u);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	b.rows = json_array();

	pc_bench_figures(&b);
	pc_bench_overhead(&b);

	code = b.n_skipped ? PC_EXIT_ERROR : PC_EXIT_PASS;
	doc = json_pack(
		"{s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:b, s:i, s:o, s:o, s:s}, s:o, "
		"s:{s:i, s:i, s:i}, s:i}",
		"schema", "ptecheck-bench", "schema_version", 1, "tool_version", PTECHECK_VERSION,
		"arch", PTECHECK_ARCH_NAME, "kernel", u.release, "started", started, "platform",
		"kind", b.platform.kind, "why", b.platform.why, "options", "quick", b.o.quick,
		"repeat", b.o.repeat, "cpu", b.o.cpu >= 0 ? json_integer(b.o.cpu) : json_null(),
		"only", b.o.only ? json_string(b.o.only) : json_null(), "pinning",
		b.o.cpu >= 0 ? "pinned to the last CPU (--cpu)" : "not pinned", "rows", b.rows,
		"summary", "measured", b.n_measured, "skipped", b.n_skipped, "not_applicable",
		b.n_na, "exit_code", code);
	if (b.o.cpu >= 0) {
		char pin[48];

		snprintf(pin, sizeof(pin), "pinned to CPU %d", b.o.cpu);
		json_object_set_new(json_object_get(doc, "options"), "pinning", json_string(pin));
	}
	if (b.instr_why[0])
		json_object_set_new(doc, "instructions", json_string(b.instr_why));
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
	json_decref(doc);
	pc_settings_restore_all();
	close(lock);
	return code;
}
