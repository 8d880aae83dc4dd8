/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside gate/: reading JSON input (input.c) for the report loader
 * (parse.c) and the policy (policy.c).  Each field reader names the field
 * in its message, "where.key: what is wrong", and returns -1 (or NULL).
 */
#ifndef PTECHECK_GATE_INPUT_H
#define PTECHECK_GATE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "gate.h"

/* Copies at most sz-1 of len bytes without cutting a UTF-8 sequence in two. */
void pc_u8copy(char *dst, size_t sz, const char *src, size_t len);
/* The JSON in buf, or NULL with jansson's message, line and column in err
   ("truncated" when the input ran out, "empty file" when there is none). */
json_t *pc_gate_json_load(const char *buf, size_t len, char *err, size_t errlen);
/* "an object", "a string", ... for messages. */
const char *pc_json_type(const json_t *v);

struct pc_field_ctx {
	char *err;
	size_t errlen;
	char where[96]; /* "results[3]", "" at the top */
	int schema;	/* the report's schema_version, once read */
};

#define FERR(c, key, fmt, ...)                                                                     \
	pc_set_err((c)->err, (c)->errlen, "%s%s%s: " fmt, (c)->where, (c)->where[0] ? "." : "",    \
		   key, ##__VA_ARGS__)

json_t *pc_field_need(struct pc_field_ctx *c, json_t *o, const char *key);
/* An item of an array (c->where names it) that is no object: says so. */
bool pc_field_not_object(struct pc_field_ctx *c, json_t *v);
/* strict: the string keys a comparison and must fit; else it is cut. */
int pc_field_str(struct pc_field_ctx *c, json_t *o, const char *key, char *dst, size_t sz,
		 bool strict);
int pc_field_bool(struct pc_field_ctx *c, json_t *o, const char *key, bool *dst);
/* An integer >= 0. */
int pc_field_count(struct pc_field_ctx *c, json_t *o, const char *key, __u64 *dst);
/* A field of type t (JSON_ARRAY or JSON_OBJECT). */
json_t *pc_field_typed(struct pc_field_ctx *c, json_t *o, const char *key, json_type t);
/* A hex string "0x..." of at most 16 lowercase digits. */
int pc_field_hex(struct pc_field_ctx *c, json_t *o, const char *key, __u64 *dst);

/* The report's "scenario_histograms" (schema 7; none before) into r,
   after its run-wide histograms (parse_scen.c). */
/* One run-wide histogram (c->where names it) into r (parse_hist.c). */
int pc_gate_parse_hist(struct pc_field_ctx *c, json_t *o, struct pc_report *r);
/* The id of a histogram of a report of schema 7 or older, which had
   none: from the title those reports used, else from its batch labels,
   else "legacy/<title>" (parse_hist.c). */
void pc_gate_legacy_hist_id(char *buf, size_t len, const struct pc_hist_report *h);
int pc_gate_parse_scenario_hists(struct pc_field_ctx *c, json_t *root, struct pc_report *r);

#endif
