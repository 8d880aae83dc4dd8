/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside gate/: what the five writers (output_*.c) share.  Text from
 * reports is untrusted: every string is cleaned to valid UTF-8 with
 * control characters as spaces, U+FFFE and U+FFFF (not XML characters)
 * replaced in every format so that all carry the same text, and escaped
 * for the format (TAP '#', XML and HTML entities); JSON goes through
 * jansson.
 */
#ifndef PTECHECK_GATE_OUTPUT_H
#define PTECHECK_GATE_OUTPUT_H

#include <string.h>
#include "clean.h"
#include "gate.h"
#include "out.h"

/* Bytes of a string the writers print at most. */
#define PC_GATE_CLEAN_MAX 2048

/* s cleaned for one format, in a rotating static buffer: up to 8 per printf. */
const char *pc_gate_esc(const char *s, unsigned int mode);
#define ESC_LINE(s) pc_gate_esc((s), PC_CLEAN_LINE)
#define ESC_TAP(s)  pc_gate_esc((s), PC_CLEAN_TAP)
#define ESC_XML(s)  pc_gate_esc((s), PC_CLEAN_XML)

/* "SHIP" or "DO NOT SHIP". */
const char *pc_gate_decision(const struct pc_gate_result *g);
/* The decision, and when no group's sides judged a kernel tier, that it
   rests on the userspace oracles only: the first line of text and TAP. */
const char *pc_gate_headline(const struct pc_gate_result *g);
/* "PASS", "WARN", "FAIL", "NOT JUDGED". */
const char *pc_gate_verdict_tag(enum pc_gate_verdict v);
/* "MACHINE suite SUITE scale N". */
void pc_gate_group_label(const struct pc_gate_group *grp, char *buf, size_t sz);
/* Kernel releases of a side's runs, deduplicated, "a, b". */
void pc_gate_releases(const struct pc_gate_side *s, char *buf, size_t sz);
int pc_gate_count_improvements(const struct pc_gate_result *g);
/* The first problem of a rule: the one-line reason. */
const char *pc_gate_first_problem(const struct pc_gate_rule_result *rr);

/* The writers, what = a const struct pc_gate_result *. */
void pc_gate_write_text(struct pc_out *o, const void *what);
void pc_gate_write_tap(struct pc_out *o, const void *what);
void pc_gate_write_junit(struct pc_out *o, const void *what);
void pc_gate_write_json(struct pc_out *o, const void *what);
void pc_gate_write_html(struct pc_out *o, const void *what);

#endif
