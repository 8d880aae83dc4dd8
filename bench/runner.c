// SPDX-License-Identifier: GPL-2.0
/*
 * What the rows of `ptecheck bench` are measured with: child processes
 * (pinned, their output captured, their instructions counted), the
 * statistics of a series, where the timings come from, and the row
 * objects of the report.  Nothing here knows a row.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "runner.h"

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

/* In the child: pinned, stdio set, it waits for the parent's go, then execs. */
static void __attribute__((noreturn))
child_exec(const struct pc_bench *b, char *const argv[], int out, int err, int go[2])
{
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

/* Waits timeout_s for pid to end (then TERM, KILL 10 s later) and reaps it. */
static void reap(pid_t pid, double timeout_s, int *status)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd;

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
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

int pc_bench_run(struct pc_bench *b, char *const argv[], double timeout_s, struct pc_bench_child *c)
{
	int out = -1, err = -1, go[2] = {-1, -1}, counter, rc = 0;
	double t0;
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
	t0 = pc_bench_now();
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		child_exec(b, argv, out, err, go);
	close(go[0]);
	go[0] = -1;
	counter = open_instr_counter(b, pid);
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	go[1] = -1;
	reap(pid, timeout_s, &c->status);
	c->wall_s = pc_bench_now() - t0;
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

double pc_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- command lines ---------------------------------------------------------- */

void pc_bench_argv_add(struct pc_bench_argv *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= PC_BENCH_ARGV_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(a->buf[a->n], sizeof(a->buf[0]), fmt, ap);
	va_end(ap);
	a->v[a->n] = a->buf[a->n];
	a->v[++a->n] = NULL;
}

void pc_bench_workload_argv(const struct pc_bench *b, struct pc_bench_argv *a, const char *name,
			    ...)
{
	const char *arg;
	va_list ap;

	memset(a, 0, sizeof(*a));
	pc_bench_argv_add(a, "%s/%s", b->workloads, name);
	va_start(ap, name);
	while ((arg = va_arg(ap, const char *)))
		pc_bench_argv_add(a, "%s", arg);
	va_end(ap);
}

void pc_bench_argv_join(const struct pc_bench_argv *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", a->v[i]);
}

/* ---- what the rows share -------------------------------------------------- */

int pc_bench_mkdtemp(const char *parent, char *dir, size_t len, char *why, size_t why_len)
{
	const char *tmp = parent ? parent : getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir, len, "%s/ptecheck-bench.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		snprintf(why, why_len, "mkdtemp in %s: %s", tmp, strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

void pc_bench_census_text(const json_t *wl, char *buf, size_t len, bool *large)
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

static json_t *values(const double *v, int n)
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(arr, json_real(v[i]));
	return arr;
}

void pc_bench_row_side(json_t *row, const char *key, const char *label, const double *v, int n,
		       const char *unit, const char *per)
{
	struct pc_bench_stats st;

	pc_bench_stats(v, n, &st);
	json_object_set_new(row, key,
			    json_pack("{s:s, s:f, s:s, s:s, s:o}", "label", label, "median",
				      st.median, "unit", unit, "per", per, "values", values(v, n)));
}

void pc_bench_row_ratios(json_t *row, const double *r, int n)
{
	struct pc_bench_stats st;

	pc_bench_stats(r, n, &st);
	json_object_set_new(row, "median", json_real(st.median));
	json_object_set_new(row, "min", json_real(st.min));
	json_object_set_new(row, "max", json_real(st.max));
	json_object_set_new(row, "pairs", json_integer(n));
	json_object_set_new(row, "ratios", values(r, n));
}

void pc_bench_row_reference(json_t *row, const char *text, double ratio)
{
	json_object_set_new(row, "reference", json_string(text));
	if (ratio > 0)
		json_object_set_new(row, "reference_ratio", json_real(ratio));
}

void pc_bench_row_target(json_t *row, const char *text, double max, double value)
{
	json_object_set_new(row, "target", json_string(text));
	json_object_set_new(row, "target_max", json_real(max));
	json_object_set_new(row, "target_met", json_boolean(value <= max));
}
