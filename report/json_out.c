// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "clean.h"
#include "json_out.h"

void pc_jset(struct pc_jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || !obj || json_object_set_new(obj, key, v)) {
		if (v && !obj)
			json_decref(v);
		b->failed = true;
	}
}

void pc_jpush(struct pc_jb *b, json_t *arr, json_t *v)
{
	if (!v || !arr || json_array_append_new(arr, v)) {
		if (v && !arr)
			json_decref(v);
		b->failed = true;
	}
}

json_t *pc_jstr(const char *s, size_t max, unsigned int how)
{
	size_t n = s ? strnlen(s, max) : 0;
	char *buf;
	json_t *v;

	/* Cleaning never makes UTF-8-only or one-line text longer: n + 1 holds it. */
	buf = malloc(n + 1);
	if (!buf)
		return NULL;
	v = json_string(pc_clean(buf, n + 1, s, n, how));
	free(buf);
	return v;
}

__u64 pc_json_count(__u64 v)
{
	return v > (__u64)INT64_MAX ? (__u64)INT64_MAX : v;
}

json_t *pc_juint(__u64 v)
{
	return json_integer((json_int_t)pc_json_count(v));
}

void pc_out_json(struct pc_out *o, const struct pc_jb *b, json_t *root)
{
	if (!root || b->failed) {
		json_decref(root);
		o->err = ENOMEM;
		return;
	}
	if (json_dumpf(root, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		o->err = errno ? errno : EIO;
	json_decref(root);
	pc_outf(o, "\n");
}
