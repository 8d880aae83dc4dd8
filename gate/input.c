// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck gate: reading the files CI hands us, maybe truncated or
 * crafted, and their JSON fields.  Every field is checked for type and
 * range and named in the message; strings are copied bounded, at a UTF-8
 * boundary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "gate_input.h"

void pc_u8copy(char *dst, size_t sz, const char *src, size_t len)
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
json_t *pc_gate_json_load(const char *buf, size_t len, char *err, size_t errlen)
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

json_t *pc_field_need(struct pc_field_ctx *c, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		FERR(c, key, "missing required field");
	return v;
}

const char *pc_json_type(const json_t *v)
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
int pc_field_str(struct pc_field_ctx *c, json_t *o, const char *key, char *dst, size_t sz,
		 bool strict)
{
	json_t *v = pc_field_need(c, o, key);
	const char *s;
	size_t n;

	if (!v)
		return -1;
	if (!json_is_string(v)) {
		FERR(c, key, "expected a string, got %s", pc_json_type(v));
		return -1;
	}
	s = json_string_value(v);
	n = strnlen(s, json_string_length(v));
	if (strict && n >= sz) {
		FERR(c, key, "string too long (%zu bytes, at most %zu)", n, sz - 1);
		return -1;
	}
	pc_u8copy(dst, sz, s, n);
	return 0;
}

int pc_field_bool(struct pc_field_ctx *c, json_t *o, const char *key, bool *dst)
{
	json_t *v = pc_field_need(c, o, key);

	if (!v)
		return -1;
	if (!json_is_boolean(v)) {
		FERR(c, key, "expected a boolean, got %s", pc_json_type(v));
		return -1;
	}
	*dst = json_is_true(v);
	return 0;
}

/* A count: an integer >= 0 (jansson refuses integers past 64 bits signed). */
int pc_field_count(struct pc_field_ctx *c, json_t *o, const char *key, __u64 *dst)
{
	json_t *v = pc_field_need(c, o, key);

	if (!v)
		return -1;
	if (!json_is_integer(v)) {
		FERR(c, key, "expected an integer, got %s", pc_json_type(v));
		return -1;
	}
	if (json_integer_value(v) < 0) {
		FERR(c, key, "negative count %lld", (long long)json_integer_value(v));
		return -1;
	}
	*dst = (__u64)json_integer_value(v);
	return 0;
}

json_t *pc_field_typed(struct pc_field_ctx *c, json_t *o, const char *key, json_type t)
{
	json_t *v = pc_field_need(c, o, key);

	if (v && json_typeof(v) != t) {
		FERR(c, key, "expected %s, got %s",
		     t == JSON_ARRAY	? "an array"
		     : t == JSON_OBJECT ? "an object"
					: "?",
		     pc_json_type(v));
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

int pc_field_hex(struct pc_field_ctx *c, json_t *o, const char *key, __u64 *dst)
{
	char buf[24];

	if (pc_field_str(c, o, key, buf, sizeof(buf), true))
		return -1;
	if (!is_hex64(buf)) {
		FERR(c, key, "expected a hex string \"0x...\" (at most 16 lowercase digits)");
		return -1;
	}
	*dst = strtoull(buf, NULL, 16);
	return 0;
}

bool pc_field_not_object(struct pc_field_ctx *c, json_t *v)
{
	if (json_is_object(v))
		return false;
	pc_set_err(c->err, c->errlen, "%s: expected an object, got %s", c->where, pc_json_type(v));
	return true;
}
