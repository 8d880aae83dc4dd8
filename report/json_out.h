/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building a JSON document with jansson for the report and gate writers:
 * setters that remember any failure (checked once at the end), cleaned
 * strings, counts as JSON can hold them, and the dump.
 */
#ifndef PTECHECK_JSON_OUT_H
#define PTECHECK_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <ptecheck/types.h>
#include "out.h"

struct pc_jb {
	bool failed; /* a value could not be made or attached (out of memory) */
};

/* Both steal v (jansson drops it on error, so do they on a NULL parent). */
void pc_jset(struct pc_jb *b, json_t *obj, const char *key, json_t *v);
void pc_jpush(struct pc_jb *b, json_t *arr, json_t *v);

/* The first max bytes of s (NULL: ""), cleaned as pc_clean() does with how
   PC_CLEAN_UTF8 or PC_CLEAN_LINE (and flags): the modes JSON wants. */
json_t *pc_jstr(const char *s, size_t max, unsigned int how);

/* JSON integers are signed 64-bit in jansson: counts saturate at 2^63-1. */
__u64 pc_json_count(__u64 v);
json_t *pc_juint(__u64 v);

/* Writes root indented, in insertion order, and a newline; a root that b
   could not build whole (b->failed, or NULL) is ENOMEM.  Drops root. */
void pc_out_json(struct pc_out *o, const struct pc_jb *b, json_t *root);

#endif
