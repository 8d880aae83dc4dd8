// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: loading reports and the policy.  Everything here reads
 * files CI hands us, maybe truncated or crafted: every field is checked for
 * type and range, strings are copied bounded (at a UTF-8 boundary), array
 * sizes are capped, and any doubt is bad input rather than a guess.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "cli.h"
#include "gate.h"

/* Copies at most sz-1 bytes without cutting a UTF-8 sequence in two. */
static void u8copy(char *dst, size_t sz, const char *src, size_t len)
{
	size_t n = len < sz - 1 ? len : sz - 1;

	if (n < len)
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

char *pc_gate_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pc_set_err(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		pc_set_err(err, errlen, "cannot read: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		pc_set_err(err, errlen, "cannot read: is a directory");
		close(fd);
		return NULL;
	}
	/* Pipes (<(...)) have no size: read in chunks up to the bound. */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size < max
		      ? (size_t)st.st_size + 1
		      : 65536;
	buf = malloc(cap);
	if (!buf) {
		pc_set_err(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap > max) {
				pc_set_err(err, errlen, "too large (more than %zu bytes)", max);
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				pc_set_err(err, errlen, "out of memory");
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			pc_set_err(err, errlen, "cannot read: %s", strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		pc_set_err(err, errlen, "too large (more than %zu bytes)", max);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* jansson's message with line and column; "truncated" when input ran out. */
static json_t *parse_json(const char *buf, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;

	if (len == 0) {
		pc_set_err(err, errlen, "empty file (no JSON)");
		return NULL;
	}
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (root)
		return root;
	if (je.position >= 0 && (size_t)je.position >= len && je.line >= 0)
		pc_set_err(err, errlen, "truncated file: JSON ends early at line %d column %d: %s",
			   je.line, je.column, je.text);
	else
		pc_set_err(err, errlen, "malformed JSON at line %d column %d: %s", je.line,
			   je.column, je.text);
	return NULL;
}

/* ---- field readers: each names the field in its message ---------------- */

struct ctx {
	char *err;
	size_t errlen;
	char where[96]; /* "results[3]" */
};

#define FERR(c, key, fmt, ...)                                                                     \
	pc_set_err((c)->err, (c)->errlen, "%s%s%s: " fmt, (c)->where, (c)->where[0] ? "." : "",    \
		   key, ##__VA_ARGS__)

static json_t *need(struct ctx *c, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		FERR(c, key, "missing required field");
	return v;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/*
 * A string into dst.  strict: identity fields (names that key a
 * comparison) must fit, or two different names could merge; free text is
 * truncated.
 */
static int get_str(struct ctx *c, json_t *o, const char *key, char *dst, size_t sz, bool strict)
{
	json_t *v = need(c, o, key);
	const char *s;
	size_t n;

	if (!v)
		return -1;
	if (!json_is_string(v)) {
		FERR(c, key, "expected a string, got %s", type_name(v));
		return -1;
	}
	s = json_string_value(v);
	n = strnlen(s, json_string_length(v));
	if (strict && n >= sz) {
		FERR(c, key, "string too long (%zu bytes, at most %zu)", n, sz - 1);
		return -1;
	}
	u8copy(dst, sz, s, n);
	return 0;
}

static int get_bool(struct ctx *c, json_t *o, const char *key, bool *dst)
{
	json_t *v = need(c, o, key);

	if (!v)
		return -1;
	if (!json_is_boolean(v)) {
		FERR(c, key, "expected a boolean, got %s", type_name(v));
		return -1;
	}
	*dst = json_is_true(v);
	return 0;
}

/* A count: an integer >= 0 (jansson refuses integers past 64 bits signed). */
static int get_count(struct ctx *c, json_t *o, const char *key, __u64 *dst)
{
	json_t *v = need(c, o, key);

	if (!v)
		return -1;
	if (!json_is_integer(v)) {
		FERR(c, key, "expected an integer, got %s", type_name(v));
		return -1;
	}
	if (json_integer_value(v) < 0) {
		FERR(c, key, "negative count %lld", (long long)json_integer_value(v));
		return -1;
	}
	*dst = (__u64)json_integer_value(v);
	return 0;
}

static json_t *get_typed(struct ctx *c, json_t *o, const char *key, json_type t)
{
	json_t *v = need(c, o, key);

	if (v && json_typeof(v) != t) {
		FERR(c, key, "expected %s, got %s",
		     t == JSON_ARRAY	? "an array"
		     : t == JSON_OBJECT ? "an object"
					: "?",
		     type_name(v));
		return NULL;
	}
	return v;
}

static bool is_hex64(const char *s)
{
	size_t i, n;

	if (strncmp(s, "0x", 2) != 0)
		return false;
	n = strlen(s + 2);
	if (n < 1 || n > 16)
		return false;
	for (i = 2; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int get_hex(struct ctx *c, json_t *o, const char *key, __u64 *dst)
{
	char buf[24];

	if (get_str(c, o, key, buf, sizeof(buf), true))
		return -1;
	if (!is_hex64(buf)) {
		FERR(c, key, "expected a hex string \"0x...\" (at most 16 lowercase digits)");
		return -1;
	}
	*dst = strtoull(buf, NULL, 16);
	return 0;
}

/* Optional kernel-log lines: an array of strings, joined with '\n' and
   cut at the field's size (free text). */
static int get_lines(struct ctx *c, json_t *e, struct pc_evidence *ev)
{
	json_t *lines = json_object_get(e, "lines"), *v;
	size_t i, used = 0;

	ev->lines[0] = 0;
	if (!lines)
		return 0;
	if (!json_is_array(lines)) {
		FERR(c, "lines", "expected an array, got %s", type_name(lines));
		return -1;
	}
	json_array_foreach(lines, i, v)
	{
		if (!json_is_string(v)) {
			FERR(c, "lines", "item %zu: expected a string, got %s", i, type_name(v));
			return -1;
		}
		if (used + 2 >= sizeof(ev->lines))
			continue;
		if (used)
			ev->lines[used++] = '\n';
		u8copy(ev->lines + used, sizeof(ev->lines) - used, json_string_value(v),
		       strnlen(json_string_value(v), json_string_length(v)));
		used += strlen(ev->lines + used);
	}
	return 0;
}

static int parse_evidence(struct ctx *c, json_t *e, struct pc_evidence *ev)
{
	json_t *pid;

	if (!json_is_object(e)) {
		pc_set_err(c->err, c->errlen, "%s: expected an object, got %s", c->where,
			   type_name(e));
		return -1;
	}
	pid = need(c, e, "pid");
	if (!pid)
		return -1;
	if (!json_is_integer(pid)) {
		FERR(c, "pid", "expected an integer, got %s", type_name(pid));
		return -1;
	}
	/* A pid outside int is printed clamped; it is evidence, not a key. */
	if (json_integer_value(pid) > INT_MAX || json_integer_value(pid) < INT_MIN)
		ev->pid = json_integer_value(pid) < 0 ? INT_MIN : INT_MAX;
	else
		ev->pid = (int)json_integer_value(pid);
	if (get_hex(c, e, "addr", &ev->addr) || get_hex(c, e, "new_addr", &ev->new_addr) ||
	    get_hex(c, e, "expected", &ev->expected) || get_hex(c, e, "seen", &ev->seen))
		return -1;
	if (get_str(c, e, "what", ev->what, sizeof(ev->what), false))
		return -1;
	return get_lines(c, e, ev);
}

static int parse_status(struct ctx *c, json_t *o, enum pc_status *st)
{
	char s[8];

	if (get_str(c, o, "status", s, sizeof(s), false))
		return -1;
	if (!strcmp(s, "pass"))
		*st = PC_STATUS_PASS;
	else if (!strcmp(s, "fail"))
		*st = PC_STATUS_FAIL;
	else if (!strcmp(s, "skip"))
		*st = PC_STATUS_SKIP;
	else {
		FERR(c, "status", "expected \"pass\", \"fail\" or \"skip\"");
		return -1;
	}
	return 0;
}

static int parse_result(struct ctx *c, json_t *o, struct pc_report *r)
{
	char name[48], tier[48];
	struct pc_result *res;
	enum pc_status st;
	json_t *evs, *e;
	bool in_kernel;
	size_t i;

	if (!json_is_object(o)) {
		pc_set_err(c->err, c->errlen, "%s: expected an object, got %s", c->where,
			   type_name(o));
		return -1;
	}
	if (get_str(c, o, "check", name, sizeof(name), true) ||
	    get_str(c, o, "tier", tier, sizeof(tier), true) ||
	    get_bool(c, o, "in_kernel", &in_kernel) || parse_status(c, o, &st))
		return -1;
	if (!name[0]) {
		FERR(c, "check", "empty check name");
		return -1;
	}
	res = pc_report_add_result(r, name, tier, in_kernel);
	if (!res) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	res->status = st;
	if (get_str(c, o, "summary", res->summary, sizeof(res->summary), false) ||
	    get_count(c, o, "checked", &res->checked) ||
	    get_count(c, o, "violations", &res->violations) ||
	    get_count(c, o, "inconclusive", &res->inconclusive))
		return -1;
	evs = get_typed(c, o, "evidence", JSON_ARRAY);
	if (!evs)
		return -1;
	if (json_array_size(evs) > PC_MAX_EVIDENCE) {
		FERR(c, "evidence", "%zu items, at most %d", json_array_size(evs), PC_MAX_EVIDENCE);
		return -1;
	}
	json_array_foreach(evs, i, e)
	{
		size_t wl = strlen(c->where);

		snprintf(c->where + wl, sizeof(c->where) - wl, ".evidence[%zu]", i);
		if (parse_evidence(c, e, &res->evidence[res->n_evidence]))
			return -1;
		c->where[wl] = '\0';
		res->n_evidence++;
	}
	return 0;
}

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* JSON counts saturate at 2^63-1 (docs/report-schema.json). */
static __u64 json_sat(__u64 v)
{
	return v > (__u64)INT64_MAX ? (__u64)INT64_MAX : v;
}

static int parse_hist(struct ctx *c, json_t *o, struct pc_report *r)
{
	char name[64], unit[24], source[96], kindname[8];
	struct pc_hist_report *h;
	json_t *buckets, *b;
	__u64 total, sum = 0;
	bool in_kernel;
	int prev = -1;
	__u32 kind;
	size_t i;

	if (!json_is_object(o)) {
		pc_set_err(c->err, c->errlen, "%s: expected an object, got %s", c->where,
			   type_name(o));
		return -1;
	}
	if (get_str(c, o, "name", name, sizeof(name), true) ||
	    get_str(c, o, "unit", unit, sizeof(unit), false) ||
	    get_str(c, o, "source", source, sizeof(source), false) ||
	    get_bool(c, o, "in_kernel", &in_kernel) ||
	    get_str(c, o, "kind", kindname, sizeof(kindname), false))
		return -1;
	if (!strcmp(kindname, "log2")) {
		kind = PC_HIST_LOG2;
	} else if (!strcmp(kindname, "linlog")) {
		kind = PC_HIST_LINLOG;
	} else {
		FERR(c, "kind", "expected \"log2\" or \"linlog\"");
		return -1;
	}
	buckets = get_typed(c, o, "buckets", JSON_ARRAY);
	if (!buckets || get_count(c, o, "total", &total))
		return -1;
	if (json_array_size(buckets) > PC_HIST_SLOTS) {
		FERR(c, "buckets", "%zu buckets, at most %d", json_array_size(buckets),
		     PC_HIST_SLOTS);
		return -1;
	}
	h = pc_report_add_hist(r, name, unit, source, in_kernel, kind);
	if (!h) {
		pc_set_err(c->err, c->errlen, "out of memory");
		return -1;
	}
	json_array_foreach(buckets, i, b)
	{
		__u64 lo, hi, cnt;
		__u32 slot;
		size_t wl = strlen(c->where);

		snprintf(c->where + wl, sizeof(c->where) - wl, ".buckets[%zu]", i);
		if (!json_is_object(b)) {
			pc_set_err(c->err, c->errlen, "%s: expected an object", c->where);
			return -1;
		}
		if (get_count(c, b, "low", &lo) || get_count(c, b, "high", &hi) ||
		    get_count(c, b, "count", &cnt))
			return -1;
		/* Bounds must be those of a slot of this kind, in order. */
		slot = pc_hist_slot(kind, lo);
		if (pc_hist_slot_low(kind, slot) != lo ||
		    json_sat(pc_hist_slot_high(kind, slot)) != hi) {
			pc_set_err(c->err, c->errlen, "%s: %llu..%llu is not a %s bucket", c->where,
				   (unsigned long long)lo, (unsigned long long)hi, kindname);
			return -1;
		}
		if ((int)slot <= prev) {
			pc_set_err(c->err, c->errlen, "%s: buckets out of order or repeated",
				   c->where);
			return -1;
		}
		prev = (int)slot;
		h->slots[slot] = cnt;
		sum = sat_add(sum, cnt);
		c->where[wl] = '\0';
	}
	if (json_sat(sum) != total) {
		FERR(c, "total", "%llu, but the buckets add up to %llu", (unsigned long long)total,
		     (unsigned long long)json_sat(sum));
		return -1;
	}
	return 0;
}

static int check_summary(struct ctx *c, json_t *root, const struct pc_report *r)
{
	__u64 passed, failed, skipped, exit_code;
	__u64 np = 0, nf = 0, ns = 0;
	json_t *s;
	int i;

	s = get_typed(c, root, "summary", JSON_OBJECT);
	if (!s)
		return -1;
	snprintf(c->where, sizeof(c->where), "summary");
	if (get_count(c, s, "passed", &passed) || get_count(c, s, "failed", &failed) ||
	    get_count(c, s, "skipped", &skipped) || get_count(c, s, "exit_code", &exit_code))
		return -1;
	c->where[0] = '\0';
	for (i = 0; i < r->n_results; i++) {
		if (r->results[i].status == PC_STATUS_PASS)
			np++;
		else if (r->results[i].status == PC_STATUS_FAIL)
			nf++;
		else
			ns++;
	}
	/* A summary that disagrees with the results is an edited report. */
	if (passed != np || failed != nf || skipped != ns) {
		pc_set_err(c->err, c->errlen,
			   "summary says %llu passed, %llu failed, %llu skipped, but the results "
			   "have %llu, %llu, %llu",
			   (unsigned long long)passed, (unsigned long long)failed,
			   (unsigned long long)skipped, (unsigned long long)np,
			   (unsigned long long)nf, (unsigned long long)ns);
		return -1;
	}
	if (exit_code != 0 && exit_code != 1 && exit_code != 4) {
		pc_set_err(c->err, c->errlen, "summary.exit_code: expected 0, 1 or 4");
		return -1;
	}
	return 0;
}

static int check_strings(struct ctx *c, json_t *root, const char *key)
{
	json_t *a = get_typed(c, root, key, JSON_ARRAY), *v;
	size_t i;

	if (!a)
		return -1;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v)) {
			pc_set_err(c->err, c->errlen, "%s[%zu]: expected a string, got %s", key, i,
				   type_name(v));
			return -1;
		}
	}
	return 0;
}

static int check_stats(struct ctx *c, json_t *root)
{
	json_t *s = json_object_get(root, "stats"), *v;
	const char *key;

	if (!s)
		return 0;
	if (!json_is_object(s)) {
		pc_set_err(c->err, c->errlen, "stats: expected an object, got %s", type_name(s));
		return -1;
	}
	json_object_foreach(s, key, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			pc_set_err(c->err, c->errlen, "stats.%.63s: expected a count", key);
			return -1;
		}
	}
	return 0;
}

static int parse_report(json_t *root, bool allow_partial, struct pc_report *r, struct ctx *c)
{
	char schema[32], command[16], tool[32];
	json_t *v, *k, *a, *o;
	size_t i;

	if (!json_is_object(root)) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: the JSON is %s, not an object", type_name(root));
		return -1;
	}
	v = json_object_get(root, "schema");
	if (!v || !json_is_string(v)) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: no \"schema\": \"ptecheck-report\"");
		return -1;
	}
	u8copy(schema, sizeof(schema), json_string_value(v),
	       strnlen(json_string_value(v), json_string_length(v)));
	if (strcmp(schema, "ptecheck-report") != 0 ||
	    json_string_length(v) != strlen("ptecheck-report")) {
		pc_set_err(c->err, c->errlen,
			   "not a ptecheck report: schema \"%s\", expected \"ptecheck-report\"",
			   schema);
		return -1;
	}
	v = need(c, root, "schema_version");
	if (!v)
		return -1;
	if (!json_is_integer(v)) {
		pc_set_err(c->err, c->errlen, "schema_version: expected an integer, got %s",
			   type_name(v));
		return -1;
	}
	if (json_integer_value(v) != PC_REPORT_SCHEMA_VERSION) {
		pc_set_err(
			c->err, c->errlen,
			"schema_version %lld is not supported (this ptecheck reads schema_version "
			"%d)",
			(long long)json_integer_value(v), PC_REPORT_SCHEMA_VERSION);
		return -1;
	}
	if (get_str(c, root, "command", command, sizeof(command), false))
		return -1;
	if (strcmp(command, "run") != 0) {
		pc_set_err(c->err, c->errlen,
			   "a report of `ptecheck %s`, the gate compares reports of `ptecheck run`",
			   command);
		return -1;
	}
	snprintf(r->command, sizeof(r->command), "run");
	if (get_str(c, root, "tool_version", tool, sizeof(tool), false) ||
	    get_str(c, root, "suite", r->suite, sizeof(r->suite), true) ||
	    get_str(c, root, "started", r->started, sizeof(r->started), false))
		return -1;
	k = get_typed(c, root, "kernel", JSON_OBJECT);
	if (!k)
		return -1;
	snprintf(c->where, sizeof(c->where), "kernel");
	if (get_str(c, k, "release", r->kernel_release, sizeof(r->kernel_release), true) ||
	    get_str(c, k, "machine", r->machine, sizeof(r->machine), true))
		return -1;
	c->where[0] = '\0';
	if (!r->machine[0] || !r->suite[0]) {
		pc_set_err(c->err, c->errlen, "empty %s",
			   r->machine[0] ? "suite" : "kernel.machine");
		return -1;
	}
	v = need(c, root, "duration_s");
	if (!v)
		return -1;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0) {
		pc_set_err(c->err, c->errlen, "duration_s: expected a number >= 0");
		return -1;
	}
	r->duration_s = json_number_value(v);
	/* Optional in the schema (not a run); a run always writes it. */
	v = json_object_get(root, "scale");
	if (!v) {
		r->scale = 1;
	} else if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		   json_integer_value(v) > UINT_MAX) {
		pc_set_err(c->err, c->errlen, "scale: expected an integer >= 1");
		return -1;
	} else {
		r->scale = (unsigned int)json_integer_value(v);
	}
	if (get_bool(c, root, "partial", &r->partial))
		return -1;

	a = get_typed(c, root, "results", JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) == 0) {
		pc_set_err(c->err, c->errlen, "empty report: no results");
		return -1;
	}
	if (json_array_size(a) > PC_GATE_MAX_RESULTS) {
		pc_set_err(c->err, c->errlen, "results: %zu results, at most %d",
			   json_array_size(a), PC_GATE_MAX_RESULTS);
		return -1;
	}
	json_array_foreach(a, i, o)
	{
		snprintf(c->where, sizeof(c->where), "results[%zu]", i);
		if (parse_result(c, o, r))
			return -1;
	}
	c->where[0] = '\0';
	a = get_typed(c, root, "histograms", JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) > PC_GATE_MAX_HISTS) {
		pc_set_err(c->err, c->errlen, "histograms: %zu histograms, at most %d",
			   json_array_size(a), PC_GATE_MAX_HISTS);
		return -1;
	}
	json_array_foreach(a, i, o)
	{
		snprintf(c->where, sizeof(c->where), "histograms[%zu]", i);
		if (parse_hist(c, o, r))
			return -1;
	}
	c->where[0] = '\0';
	if (check_summary(c, root, r) || check_strings(c, root, "notes") || check_stats(c, root))
		return -1;
	/* Last: a partial report is otherwise valid, say only that. */
	if (r->partial && !allow_partial) {
		pc_set_err(
			c->err, c->errlen,
			"partial report (the run was interrupted); set \"allow_partial\": true in "
			"the policy to gate on it anyway");
		return -1;
	}
	return 0;
}

int pc_gate_report_parse(const char *buf, size_t len, bool allow_partial, struct pc_report **out,
			 char *err, size_t errlen)
{
	struct ctx c = {.err = err, .errlen = errlen};
	struct pc_report *r;
	json_t *root;

	*out = NULL;
	root = parse_json(buf, len, err, errlen);
	if (!root)
		return -1;
	r = pc_report_new("run", "");
	if (!r) {
		json_decref(root);
		pc_set_err(err, errlen, "out of memory");
		return -1;
	}
	if (parse_report(root, allow_partial, r, &c)) {
		json_decref(root);
		pc_report_free(r);
		return -1;
	}
	json_decref(root);
	*out = r;
	return 0;
}

int pc_gate_report_load(const char *path, bool allow_partial, struct pc_report **out, char *err,
			size_t errlen)
{
	size_t len;
	char *buf;
	int ret;

	*out = NULL;
	buf = pc_gate_read_file(path, PC_GATE_REPORT_MAX_BYTES, &len, err, errlen);
	if (!buf)
		return -1;
	ret = pc_gate_report_parse(buf, len, allow_partial, out, err, errlen);
	free(buf);
	return ret;
}

/* ---- policy ------------------------------------------------------------ */

/*
 * Batch histograms of ptecheck's own scenarios, whose workload is fixed:
 * mremap batches and fault-around batches.  folio_pte_batch() results
 * come from whatever else the processes do (exit, zap) and swing by half
 * between runs of one kernel, so they are not judged by default.
 */
static const char *const default_batch_names[] = {
	"mremap PTEs per batch",
	"per set_pte_range",
	"per folio_add_file_rmap_ptes",
};

void pc_gate_policy_default(struct pc_gate_policy *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->coverage_loss = PC_GATE_ACTION_REPORT;
	p->batching_regression = PC_GATE_ACTION_FAIL;
	p->performance_regression = PC_GATE_ACTION_FAIL;
	p->batching_tolerance_pct = 10;
	p->perf_threshold_pct = 25;
	p->perf_min_runs = 3;
	snprintf(p->latency_histogram, sizeof(p->latency_histogram), "mremap latency");
	for (i = 0; i < sizeof(default_batch_names) / sizeof(default_batch_names[0]); i++)
		snprintf(p->batch_names[p->n_batch_names++], sizeof(p->batch_names[0]), "%s",
			 default_batch_names[i]);
}

bool pc_gate_is_batch_hist(const struct pc_gate_policy *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_batch_names && i < PC_GATE_MAX_BATCH_NAMES; i++)
		if (p->batch_names[i][0] && strstr(name, p->batch_names[i]))
			return true;
	return false;
}

static int pol_action(json_t *v, const char *key, enum pc_gate_action *dst, char *err,
		      size_t errlen)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	if (s && !strcmp(s, "fail"))
		*dst = PC_GATE_ACTION_FAIL;
	else if (s && !strcmp(s, "report"))
		*dst = PC_GATE_ACTION_REPORT;
	else {
		pc_set_err(err, errlen, "policy key \"%s\": expected \"fail\" or \"report\"", key);
		return -1;
	}
	return 0;
}

static int pol_number(json_t *v, const char *key, double lo, double hi, double *dst, char *err,
		      size_t errlen)
{
	double d;

	if (!json_is_number(v)) {
		pc_set_err(err, errlen, "policy key \"%s\": expected a number, got %s", key,
			   type_name(v));
		return -1;
	}
	d = json_number_value(v);
	if (!isfinite(d) || d < lo || d > hi) {
		pc_set_err(err, errlen, "policy key \"%s\": %g out of range [%g, %g]", key, d, lo,
			   hi);
		return -1;
	}
	*dst = d;
	return 0;
}

static int pol_bool(json_t *v, const char *key, bool *dst, char *err, size_t errlen)
{
	if (!json_is_boolean(v)) {
		pc_set_err(err, errlen, "policy key \"%s\": expected true or false, got %s", key,
			   type_name(v));
		return -1;
	}
	*dst = json_is_true(v);
	return 0;
}

static int pol_name(json_t *v, const char *key, char *dst, size_t sz, char *err, size_t errlen)
{
	size_t n;

	if (!json_is_string(v)) {
		pc_set_err(err, errlen, "policy key \"%s\": expected a string, got %s", key,
			   type_name(v));
		return -1;
	}
	n = strnlen(json_string_value(v), json_string_length(v));
	if (n == 0 || n >= sz) {
		pc_set_err(err, errlen, "policy key \"%s\": expected 1 to %zu bytes", key, sz - 1);
		return -1;
	}
	u8copy(dst, sz, json_string_value(v), n);
	return 0;
}

static const char *const policy_keys =
	"coverage_loss, batching_regression, performance_regression, batching_tolerance_pct, "
	"perf_threshold_pct, perf_min_runs, allow_partial, allow_no_baseline, batch_histograms, "
	"latency_histogram";

static int pol_key(struct pc_gate_policy *p, const char *key, json_t *v, char *err, size_t errlen)
{
	double d;
	size_t i;
	json_t *e;

	if (!strcmp(key, "coverage_loss"))
		return pol_action(v, key, &p->coverage_loss, err, errlen);
	if (!strcmp(key, "batching_regression"))
		return pol_action(v, key, &p->batching_regression, err, errlen);
	if (!strcmp(key, "performance_regression"))
		return pol_action(v, key, &p->performance_regression, err, errlen);
	if (!strcmp(key, "batching_tolerance_pct"))
		return pol_number(v, key, 0, 100, &p->batching_tolerance_pct, err, errlen);
	if (!strcmp(key, "perf_threshold_pct"))
		return pol_number(v, key, 0, 1e6, &p->perf_threshold_pct, err, errlen);
	if (!strcmp(key, "perf_min_runs")) {
		if (!json_is_integer(v)) {
			pc_set_err(err, errlen, "policy key \"%s\": expected an integer, got %s",
				   key, type_name(v));
			return -1;
		}
		if (pol_number(v, key, 1, 1000, &d, err, errlen))
			return -1;
		p->perf_min_runs = (int)d;
		return 0;
	}
	if (!strcmp(key, "allow_partial"))
		return pol_bool(v, key, &p->allow_partial, err, errlen);
	if (!strcmp(key, "allow_no_baseline"))
		return pol_bool(v, key, &p->allow_no_baseline, err, errlen);
	if (!strcmp(key, "latency_histogram"))
		return pol_name(v, key, p->latency_histogram, sizeof(p->latency_histogram), err,
				errlen);
	if (!strcmp(key, "batch_histograms")) {
		if (!json_is_array(v)) {
			pc_set_err(err, errlen,
				   "policy key \"%s\": expected an array of strings, got %s", key,
				   type_name(v));
			return -1;
		}
		if (json_array_size(v) > PC_GATE_MAX_BATCH_NAMES) {
			pc_set_err(err, errlen, "policy key \"%s\": at most %d names", key,
				   PC_GATE_MAX_BATCH_NAMES);
			return -1;
		}
		p->n_batch_names = 0;
		json_array_foreach(v, i, e)
		{
			if (pol_name(e, key, p->batch_names[i], sizeof(p->batch_names[i]), err,
				     errlen))
				return -1;
			p->n_batch_names++;
		}
		return 0;
	}
	pc_set_err(err, errlen, "unknown policy key \"%.63s\" (known: %s)", key, policy_keys);
	return -1;
}

int pc_gate_policy_parse(struct pc_gate_policy *p, const char *buf, size_t len, char *err,
			 size_t errlen)
{
	struct pc_gate_policy tmp = *p;
	const char *key;
	json_t *root, *v;

	root = parse_json(buf, len, err, errlen);
	if (!root)
		return -1;
	if (!json_is_object(root)) {
		pc_set_err(err, errlen, "a policy is a JSON object, not %s", type_name(root));
		json_decref(root);
		return -1;
	}
	json_object_foreach(root, key, v)
	{
		if (pol_key(&tmp, key, v, err, errlen)) {
			json_decref(root);
			return -1;
		}
	}
	json_decref(root);
	*p = tmp;
	return 0;
}

int pc_gate_policy_load(struct pc_gate_policy *p, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *buf;
	int ret;

	buf = pc_gate_read_file(path, PC_GATE_POLICY_MAX_BYTES, &len, err, errlen);
	if (!buf)
		return -1;
	ret = pc_gate_policy_parse(p, buf, len, err, errlen);
	free(buf);
	return ret;
}
