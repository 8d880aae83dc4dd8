// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of report/: the result model (report.c), exit codes and the
 * text, TAP and JSON writers (report_text.c, report_tap.c, report_json.c).
 * Prints kselftest-style TAP; exits 0 if all passed.
 *
 * With an argument, also writes a sample JSON report to that path, so that
 * it can be checked against docs/report-schema.json.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <ptecheck/events.h>
#include "gate.h"
#include "report.h"
#include "render.h"
#include "tap.h"

static struct pc_report *sample_report(void)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	struct pc_result *res;
	struct pc_hist_report *h;

	if (!r)
		return NULL;
	res = pc_report_add_result(r, "mremap/moved", "oracle:pagemap", false);
	pc_result_set(res, PC_STATUS_PASS, "512 pages moved intact");
	res->checked = 512;

	res = pc_report_add_result(r, "mremap/ad-bits", "kernel:syscall-walk", true);
	pc_result_set(res, PC_STATUS_FAIL, "dirty bit lost on %d of %d PTEs", 3, 512);
	res->checked = 512;
	res->violations = 3;
	pc_result_add_evidence(res, 1234, 0x7f0000001000ULL, 0x7f1000001000ULL,
			       0x8000000012345867ULL, 0x8000000012345827ULL, "dirty bit lost");
	pc_result_add_evidence(res, 1234, 0xffffffffffffffffULL, 0, 0xffffffffffffffffULL, 0,
			       "bad \xff utf-8 \"quoted\"");

	res = pc_report_add_result(r, "mremap/pmd-move", "kernel:fexit", true);
	pc_result_set(res, PC_STATUS_SKIP, "fexit on move_pgt_entry unavailable");

	h = pc_report_add_hist(r, "mremap/latency", "mremap latency", "ns",
			       "tracepoint syscalls:sys_{enter,exit}_mremap", true, PC_HIST_LOG2);
	h->slots[pc_hist_slot(PC_HIST_LOG2, 300)] = 3;
	h->slots[pc_hist_slot(PC_HIST_LOG2, 700)] = 52;

	h = pc_report_add_hist(r, "mremap/ptes-moved", "PTEs moved", "PTEs", "page walk", false,
			       PC_HIST_LINLOG);
	h->slots[pc_hist_slot(PC_HIST_LINLOG, 16)] = 40;
	h->slots[pc_hist_slot(PC_HIST_LINLOG, 40)] = 5;

	pc_report_add_hist(r, "mremap/tlb-flushes", "TLB flushes", "flushes",
			   "tracepoint tlb:tlb_flush", true, PC_HIST_LINLOG);

	pc_report_note(r, "transparent hugepages: %s", "madvise");
	r->n_stats = PC_STAT__COUNT;
	r->stats[PC_STAT_CALLS] = 7;
	r->stats[PC_STAT_EVENTS_DROPPED] = 2;
	r->duration_s = 1.25;
	return r;
}

static void test_exit_codes(void)
{
	struct pc_report *r = pc_report_new("run", "t");
	struct pc_result *res;

	TAP_CHECK(r != NULL, "report_new");
	if (!r)
		return;
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_SKIP, "empty report exits SKIP");

	res = pc_report_add_result(r, "a", "t1", false);
	TAP_CHECK(res && res->status == PC_STATUS_SKIP && !res->summary[0], "new result is SKIP");
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_SKIP, "all skipped exits SKIP");

	pc_result_set(res, PC_STATUS_PASS, "fine");
	pc_report_add_result(r, "b", "t1", false);
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_PASS, "pass + skip exits PASS");

	res = pc_report_find_result(r, "b", "t1");
	pc_result_set(res, PC_STATUS_PASS, NULL);
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_PASS, "all pass exits PASS");

	/* A program of ptecheck's own refused: never a pass, never a skip. */
	snprintf(r->bpf.refused[r->bpf.n_refused++], sizeof(r->bpf.refused[0]),
		 "the verifier refused filemap_window: invalid read from stack");
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_ERROR,
		  "passes beside a refused program exit 3");
	res = pc_report_add_result(r, "c", "t2", true);
	pc_result_set(res, PC_STATUS_FAIL, "broken");
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_FAIL, "one fail exits FAIL");
	pc_report_free(r);
	r = pc_report_new("hist", "live");
	if (!r)
		return;
	snprintf(r->bpf.refused[r->bpf.n_refused++], sizeof(r->bpf.refused[0]), "refused");
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_ERROR,
		  "nothing judged beside a refused program: exit 3, not 4");
	pc_report_free(r);

	/* The kernel log read clean is no check of a path: alone it exits SKIP. */
	r = pc_report_new("run", "contpte");
	if (!r)
		return;
	res = pc_report_add_result(r, "contpte/kernel-log", PC_TIER_KMSG, true);
	pc_result_set(res, PC_STATUS_PASS, "no splat");
	pc_report_add_result(r, "contpte/gather", "kernel:kprobe", true);
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_SKIP && pc_report_skip_why(r),
		  "only the kernel log passed: exits SKIP and says why");
	res = pc_report_find_result(r, "contpte/gather", "kernel:kprobe");
	pc_result_set(res, PC_STATUS_PASS, NULL);
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_PASS && !pc_report_skip_why(r),
		  "kernel log and a check passed: exits PASS");
	res = pc_report_find_result(r, "contpte/kernel-log", PC_TIER_KMSG);
	pc_result_set(res, PC_STATUS_FAIL, "BUG");
	TAP_CHECK(pc_report_exit_code(r) == PC_EXIT_FAIL, "a splat in the kernel log exits FAIL");
	pc_report_free(r);
}

static void test_model(void)
{
	struct pc_report *r = pc_report_new("run", "t");
	struct pc_result *res = NULL;
	char name[48];
	int i, ok = 1;

	if (!r)
		return;
	TAP_CHECK(r->kernel_release[0] && r->machine[0], "uname fills kernel and machine");
	TAP_CHECK(strlen(r->started) == 20 && r->started[10] == 'T' && r->started[19] == 'Z',
		  "started is ISO 8601 UTC (%s)", r->started);

	/* Many results: the array grows past its first capacity. */
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "check/%d", i);
		ok &= pc_report_add_result(r, name, i % 2 ? "odd" : "even", false) != NULL;
	}
	TAP_CHECK(ok && r->n_results == 100, "100 results added");
	res = pc_report_find_result(r, "check/57", "odd");
	TAP_CHECK(res && !strcmp(res->name, "check/57"), "find by name and tier");
	TAP_CHECK(!pc_report_find_result(r, "check/57", "even"), "tier must match");
	TAP_CHECK(pc_report_find_result(r, "check/58", NULL) == &r->results[58], "NULL tier: any");

	/* Long names are truncated, not overflowed. */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	res = pc_report_add_result(r, name, name, false);
	TAP_CHECK(res && strlen(res->name) == sizeof(res->name) - 1, "name truncated");

	for (i = 0; i < PC_MAX_EVIDENCE + 5; i++)
		pc_result_add_evidence(res, 100 + i, 0x1000 * i, 0, 1, 2, "x");
	TAP_CHECK(res->n_evidence == PC_MAX_EVIDENCE, "evidence capped at %d", PC_MAX_EVIDENCE);
	TAP_CHECK(res->evidence[PC_MAX_EVIDENCE - 1].pid == 100 + PC_MAX_EVIDENCE - 1,
		  "first items kept");
	TAP_CHECK(res->violations == 0, "add_evidence leaves counts to the caller");

	TAP_CHECK(pc_report_add_hist(r, "x/h", "h", "u", "s", false, 7) == NULL && errno == EINVAL,
		  "unknown histogram kind refused");
	TAP_CHECK(pc_report_add_hist(r, "Mremap latency", "h", "u", "s", false, PC_HIST_LOG2) ==
				  NULL &&
			  errno == EINVAL,
		  "an id that is a title refused");
	for (i = 0; i < 40; i++)
		pc_report_note(r, "note %d", i);
	TAP_CHECK(r->n_notes == 40 && !strcmp(r->notes[39], "note 39"), "notes grow");

	TAP_CHECK(pc_format_parse("text") == PC_FORMAT_TEXT &&
			  pc_format_parse("json") == PC_FORMAT_JSON &&
			  pc_format_parse("tap") == PC_FORMAT_TAP && pc_format_parse("xml") == -1 &&
			  pc_format_parse(NULL) == -1,
		  "format_parse");
	TAP_CHECK(!strcmp(pc_status_name(PC_STATUS_PASS), "pass") &&
			  !strcmp(pc_status_name(PC_STATUS_FAIL), "fail") &&
			  !strcmp(pc_status_name(PC_STATUS_SKIP), "skip"),
		  "status names");
	pc_report_free(r);
	pc_report_free(NULL);
}

static void test_text(void)
{
	struct pc_report *r = sample_report();
	char *s;
	int ret = -1;

	if (!r)
		return;
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && ret == 0, "text written");
	if (!s) {
		pc_report_free(r);
		return;
	}
	TAP_CHECK(has_line_prefix(s, "ptecheck run suite mremap on "), "text header");
	TAP_CHECK(has_line(s, "1 passed, 1 failed, 1 skipped"), "text summary line");
	TAP_CHECK(has_line_prefix(s, "PASS  mremap/moved ") &&
			  has_line_prefix(s, "FAIL  mremap/ad-bits") &&
			  has_line_prefix(s, "SKIP  mremap/pmd-move"),
		  "text result lines");
	TAP_CHECK(strstr(s, "[oracle:pagemap]") && strstr(s, "(derived)") && strstr(s, "(kernel)"),
		  "text tier and origin tags");
	TAP_CHECK(has_line(s, "      pid 1234 addr 0x7f0000001000 -> 0x7f1000001000: expected "
			      "0x8000000012345867 seen 0x8000000012345827 (dirty bit lost)"),
		  "text evidence line");
	TAP_CHECK(has_line(s, "      ... 1 more not shown"), "text counts evidence not shown");
	TAP_CHECK(strstr(s, "seen 0x0 (bad ? utf-8 \"quoted\")\n"),
		  "text evidence, bad UTF-8 replaced");
	TAP_CHECK(strstr(s,
			 "mremap latency (ns) \u2014 kernel: tracepoint syscalls:sys_{enter,exit}_"
			 "mremap\n"),
		  "text histogram title");
	TAP_CHECK(has_line(s, "     ns                  : count    distribution"), "log2 header");
	TAP_CHECK(has_line(s,
			   "       256 -> 511        : 3        |**                               "
			   "       |"),
		  "log2 bucket 256 -> 511");
	TAP_CHECK(has_line(s,
			   "       512 -> 1023       : 52       |*********************************"
			   "*******|"),
		  "log2 bucket 512 -> 1023");
	TAP_CHECK(!strstr(s, "   0 -> 1 "), "log2 leading empty slots trimmed");
	TAP_CHECK(has_line_prefix(s, "        16               : 40       |****"),
		  "linlog value 16");
	TAP_CHECK(has_line_prefix(s, "        17 -> 31         : 0        |    "),
		  "linlog 17 -> 31 empty");
	TAP_CHECK(has_line_prefix(s, "        32 -> 63         : 5        |*****"),
		  "linlog 40 -> 32 -> 63");
	TAP_CHECK(!strstr(s, " 15 "), "linlog leading empty slots trimmed");
	TAP_CHECK(strstr(s,
			 "TLB flushes (flushes) \u2014 kernel: tracepoint tlb:tlb_flush\n     (no "
			 "events)\n"),
		  "empty histogram says (no events)");
	TAP_CHECK(has_line(s, "note: transparent hugepages: madvise"), "text note");
	TAP_CHECK(has_line(s, "  events_dropped   2") && has_line(s, "  walk_errors      0"),
		  "text stats, zeros included");
	TAP_CHECK(strstr(s, "warning: 2 violation records dropped"), "dropped events are loud");
	free(s);

	/* A summary cannot inject a line, whatever it holds. */
	pc_result_set(&r->results[0], PC_STATUS_PASS, "x\n9 passed, 0 failed, 0 skipped");
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && !has_line(s, "9 passed, 0 failed, 0 skipped"),
		  "newline in summary neutralised");
	free(s);
	pc_report_free(r);
}

static void test_tap(void)
{
	struct pc_report *r = sample_report();
	char *s;
	int ret = -1;

	if (!r)
		return;
	pc_result_set(&r->results[0], PC_STATUS_PASS, "512 pages # intact");
	s = render(r, PC_FORMAT_TAP, &ret);
	TAP_CHECK(s && ret == 0, "tap written");
	if (!s) {
		pc_report_free(r);
		return;
	}
	TAP_CHECK(!strncmp(s, "TAP version 13\n1..3\n", 20), "tap version and plan 1..3");
	TAP_CHECK(has_line(s, "ok 1 mremap/moved [oracle:pagemap] 512 pages \\# intact"),
		  "tap ok line, '#' escaped");
	TAP_CHECK(
		has_line(s,
			 "not ok 2 mremap/ad-bits [kernel:syscall-walk] dirty bit lost on 3 of 512 "
			 "PTEs"),
		"tap not ok line");
	TAP_CHECK(has_line(s, "ok 3 mremap/pmd-move [kernel:fexit] # SKIP fexit on move_pgt_entry "
			      "unavailable"),
		  "tap SKIP directive");
	TAP_CHECK(has_line(s, "# violations: 3"), "tap diagnostic counts");
	TAP_CHECK(has_line_prefix(
			  s, "#   - {pid: 1234, addr: 0x7f0000001000, new_addr: 0x7f1000001000"),
		  "tap evidence");
	TAP_CHECK(strstr(s, "what: \"bad ? utf-8 \\\"quoted\\\"\"}"),
		  "tap evidence quoting, bad UTF-8");
	TAP_CHECK(has_line_prefix(s, "#        256 -> 511        : 3 "),
		  "tap histogram as comments");
	TAP_CHECK(has_line(s, "# note: transparent hugepages: madvise"), "tap note");
	/* Only what is counted: a report has no xfail, xpass or error. */
	TAP_CHECK(s[strlen(s) - 1] == '\n' &&
			  strstr(s, "\n# Totals: pass:1 fail:1 skip:1\n") ==
				  s + strlen(s) - strlen("\n# Totals: pass:1 fail:1 skip:1\n"),
		  "tap Totals is the last line");
	free(s);
	pc_report_free(r);
}

static void test_json(void)
{
	struct pc_report *r = sample_report();
	json_t *root, *res, *ev, *h, *b;
	struct pc_hist_report *hb;
	json_error_t jerr;
	char *s;
	int ret = -1, valid;

	if (!r)
		return;
	s = render(r, PC_FORMAT_JSON, &ret);
	TAP_CHECK(s && ret == 0, "json written");
	root = s ? json_loads(s, 0, &jerr) : NULL;
	TAP_CHECK(root != NULL, "json parses back (%s)", root ? "ok" : jerr.text);
	if (!root) {
		free(s);
		pc_report_free(r);
		return;
	}
	TAP_CHECK(json_integer_value(json_object_get(root, "schema_version")) == 9,
		  "schema_version 9 (results carry variants and scenarios; sample_every; "
		  "histograms' batch labels; bpf; scenario_histograms; histogram ids; a "
		  "suite list)");
	TAP_CHECK(!strcmp(json_string_value(json_object_get(
				  json_array_get(json_object_get(root, "histograms"), 0), "id")),
			  "mremap/latency"),
		  "a histogram carries its id");
	TAP_CHECK(!json_object_get(root, "scenario_histograms"),
		  "no scenario ran: no scenario_histograms");
	TAP_CHECK(!json_object_get(root, "sample_every"), "every window judged: no sample_every");
	TAP_CHECK(!json_object_get(root, "bpf"), "nothing loaded or tried: no bpf");
	TAP_CHECK(!strcmp(json_string_value(json_object_get(root, "schema")), "ptecheck-report"),
		  "schema name");
	TAP_CHECK(json_is_string(json_object_get(root, "tool_version")), "tool_version");
	TAP_CHECK(json_integer_value(json_object_get(json_object_get(root, "summary"),
						     "exit_code")) == PC_EXIT_FAIL,
		  "summary exit_code");
	res = json_array_get(json_object_get(root, "results"), 1);
	TAP_CHECK(!strcmp(json_string_value(json_object_get(res, "status")), "fail"),
		  "status fail");
	ev = json_array_get(json_object_get(res, "evidence"), 0);
	TAP_CHECK(!strcmp(json_string_value(json_object_get(ev, "addr")), "0x7f0000001000") &&
			  !strcmp(json_string_value(json_object_get(ev, "expected")),
				  "0x8000000012345867"),
		  "addresses and raw values as hex strings");
	ev = json_array_get(json_object_get(res, "evidence"), 1);
	TAP_CHECK(!strcmp(json_string_value(json_object_get(ev, "addr")), "0xffffffffffffffff") &&
			  !strcmp(json_string_value(json_object_get(ev, "new_addr")), "0x0"),
		  "64-bit values survive");
	TAP_CHECK(!strcmp(json_string_value(json_object_get(ev, "what")), "bad ? utf-8 \"quoted\""),
		  "invalid UTF-8 replaced");
	h = json_array_get(json_object_get(root, "histograms"), 1);
	TAP_CHECK(!strcmp(json_string_value(json_object_get(h, "kind")), "linlog") &&
			  json_array_size(json_object_get(h, "buckets")) == 3 &&
			  json_integer_value(json_object_get(h, "total")) == 45,
		  "linlog histogram buckets and total");
	b = json_array_get(json_object_get(h, "buckets"), 2);
	TAP_CHECK(json_integer_value(json_object_get(b, "low")) == 32 &&
			  json_integer_value(json_object_get(b, "high")) == 63 &&
			  json_integer_value(json_object_get(b, "count")) == 5,
		  "bucket 32..63");
	h = json_array_get(json_object_get(root, "histograms"), 2);
	TAP_CHECK(json_array_size(json_object_get(h, "buckets")) == 0,
		  "empty histogram: no buckets");
	TAP_CHECK(json_integer_value(
			  json_object_get(json_object_get(root, "stats"), "events_dropped")) == 2,
		  "stats by name");
	TAP_CHECK(json_array_size(json_object_get(root, "notes")) == 1, "notes");
	json_decref(root);
	free(s);

	/* No stats counted: no stats object. */
	r->n_stats = 0;
	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, &jerr) : NULL;
	TAP_CHECK(root && !json_object_get(root, "stats"), "stats omitted when n_stats is 0");
	json_decref(root);
	free(s);

	/* watch --sample 4: the N is in the report, and the schema allows it. */
	r->sample_every = 4;
	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, &jerr) : NULL;
	TAP_CHECK(root && json_integer_value(json_object_get(root, "sample_every")) == 4,
		  "sample_every 4 written");
	valid = s ? schema_check(s, __FILE__) : -1;
	if (valid >= 0)
		TAP_CHECK(valid == 0, "sample_every validates against the schema");
	json_decref(root);
	free(s);

	/* A batch histogram carries its labels; the others carry none. */
	hb = pc_report_add_hist(r, "fork/batch/folio_pte_batch",
				"fork PTEs per batch (folio_pte_batch)", "PTEs", "fpb", true,
				PC_HIST_LINLOG);
	pc_report_hist_batch(hb, "fork", "folio_pte_batch");
	hb->slots[16] = 2;
	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, &jerr) : NULL;
	h = json_array_get(json_object_get(root, "histograms"), 3);
	b = json_object_get(h, "batch");
	TAP_CHECK(b && !strcmp(json_string_value(json_object_get(b, "context")), "fork") &&
			  !strcmp(json_string_value(json_object_get(b, "source")),
				  "folio_pte_batch") &&
			  !json_object_get(json_array_get(json_object_get(root, "histograms"), 0),
					   "batch"),
		  "batch labels written on the batch histogram only");
	valid = s ? schema_check(s, __FILE__) : -1;
	if (valid >= 0)
		TAP_CHECK(valid == 0, "batch labels validate against the schema");
	json_decref(root);
	free(s);
	pc_report_free(r);
}

/* Valid UTF-8 passes; overlong, surrogate, stray and cut sequences do not. */
/* The tracing object's section: JSON keeps each program's figures and
   the refusals; text says a refusal first, as an error. */
static void test_bpf(void)
{
	struct pc_report *r = pc_report_new("watch", "live");
	json_t *root, *b;
	json_error_t jerr;
	char *s;
	int ret = -1;

	if (!r)
		return;
	r->bpf.loaded = true;
	r->bpf.load_ms = 31.5;
	r->bpf.n_progs = 2;
	snprintf(r->bpf.progs[0].name, sizeof(r->bpf.progs[0].name), "syscalls_enter");
	r->bpf.progs[0].verified_insns = 5206;
	snprintf(r->bpf.progs[1].name, sizeof(r->bpf.progs[1].name), "filemap_window");
	r->bpf.progs[1].verified_insns = 785;
	snprintf(r->bpf.refused[r->bpf.n_refused++], sizeof(r->bpf.refused[0]),
		 "the verifier refused the derived batch runs (syscalls_enter, "
		 "pc_walk_sys_enter): program too large (1000001 instructions)");
	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, &jerr) : NULL;
	b = json_object_get(root, "bpf");
	TAP_CHECK(
		json_is_true(json_object_get(b, "loaded")) &&
			json_integer_value(
				json_object_get(json_array_get(json_object_get(b, "programs"), 0),
						"verified_insns")) == 5206 &&
			strstr(json_string_value(json_array_get(json_object_get(b, "refused"), 0)),
			       "program too large") &&
			json_integer_value(json_object_get(json_object_get(root, "summary"),
							   "exit_code")) == PC_EXIT_ERROR,
		"json: bpf programs, their instructions, the refusal, exit_code 3");
	json_decref(root);
	free(s);
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && strstr(s, "error: the verifier refused the derived batch runs"),
		  "text: the refusal as an error line");
	free(s);
	pc_report_free(r);
}

static void test_utf8(void)
{
	struct pc_report *r = pc_report_new("run", "t");
	struct pc_result *res;
	json_t *root;
	json_error_t jerr;
	char *s;
	int ret = -1;

	if (!r)
		return;
	res = pc_report_add_result(r, "u", "t", false);
	pc_result_set(res, PC_STATUS_FAIL, "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x90\xa7");
	pc_result_add_evidence(res, 1, 0, 0, 0, 0,
			       "a\xc0\xaf"
			       "b\xed\xa0\x80"
			       "c\x80"
			       "d\xe2\x80");
	r->partial = true;
	s = render(r, PC_FORMAT_JSON, &ret);
	root = s ? json_loads(s, 0, &jerr) : NULL;
	TAP_CHECK(root != NULL && ret == 0, "json with odd bytes parses");
	if (root) {
		json_t *jr = json_array_get(json_object_get(root, "results"), 0);
		json_t *ev = json_array_get(json_object_get(jr, "evidence"), 0);

		TAP_CHECK(!strcmp(json_string_value(json_object_get(jr, "summary")),
				  "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x90\xa7"),
			  "valid UTF-8 kept");
		TAP_CHECK(!strcmp(json_string_value(json_object_get(ev, "what")), "a??b???c?d??"),
			  "invalid UTF-8 replaced byte by byte");
		TAP_CHECK(json_is_true(json_object_get(root, "partial")), "partial flag");
	}
	json_decref(root);
	free(s);
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && has_line(s, "interrupted: results so far") &&
			  has_line(s, "0 passed, 1 failed, 0 skipped"),
		  "partial run says so in text");
	free(s);
	pc_report_free(r);
}

static void test_write_errors(void)
{
	struct pc_report *r = sample_report();
	enum pc_format fmts[] = {PC_FORMAT_TEXT, PC_FORMAT_TAP, PC_FORMAT_JSON};
	const char *names[] = {"text", "tap", "json"};
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		FILE *f = fopen("/dev/full", "w");
		int ret;

		if (!f) {
			tap_skip("/dev/full: %s", strerror(errno));
			continue;
		}
		ret = pc_report_write(r, fmts[i], f);
		TAP_CHECK(ret == -ENOSPC, "%s to /dev/full returns -ENOSPC (got %d)", names[i],
			  ret);
		fclose(f);
	}
	TAP_CHECK(pc_report_write(r, (enum pc_format)42, stdout) == -EINVAL, "unknown format");
	pc_report_free(r);
}

static int dump_json(const char *path)
{
	struct pc_report *r = sample_report();
	FILE *f = fopen(path, "w");
	int ret = -ENOMEM;

	if (r && f)
		ret = pc_report_write(r, PC_FORMAT_JSON, f);
	if (f && fclose(f) != 0 && !ret)
		ret = -errno;
	pc_report_free(r);
	return ret;
}

/* Kernel-log evidence: its lines survive text, TAP, JSON and the gate's
   parser, each line cleaned like any free text. */
static void test_log_evidence(void)
{
	struct pc_report *r = pc_report_new("run", "mremap"), *back = NULL;
	struct pc_result *res = pc_report_add_result(r, "kernel-log", "oracle:kmsg", true);
	char *s, err[256];
	int ret;

	pc_result_set(res, PC_STATUS_FAIL, "1 memory-management splat in the kernel log");
	res->violations = 1;
	pc_result_add_log_evidence(
		res, 4242, "bad-page-map: mremap_folios (scenario anon-64k)",
		"BUG: Bad page map in process mremap_folios  pte:8000000101 pmd:1\n"
		"page dumped because: bad pte\x1b[1m\n"
		"CPU: 1 UID: 0 PID: 4242 Comm: mremap_folios Not tainted");
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(
		s && has_line(s, "      pid 4242: bad-page-map: mremap_folios (scenario anon-64k)"),
		"text: log evidence names pid and what");
	TAP_CHECK(
		s && has_line(s,
			      "      | BUG: Bad page map in process mremap_folios  pte:8000000101 "
			      "pmd:1"),
		"text: each splat line under it");
	TAP_CHECK(s && has_line(s, "      | page dumped because: bad pte [1m"),
		  "text: a control byte in a log line is cleaned");
	free(s);
	s = render(r, PC_FORMAT_TAP, &ret);
	TAP_CHECK(
		s && has_line(s, "#     | CPU: 1 UID: 0 PID: 4242 Comm: mremap_folios Not tainted"),
		"TAP: splat lines as diagnostics");
	free(s);
	s = render(r, PC_FORMAT_JSON, &ret);
	TAP_CHECK(s && strstr(s, "\"lines\": [") != NULL, "JSON: lines array");
	TAP_CHECK(s && pc_gate_report_parse(s, strlen(s), false, &back, err, sizeof(err)) == 0,
		  "JSON with lines parses back: %s", s ? err : "no JSON");
	if (back) {
		const struct pc_evidence *ev = &back->results[0].evidence[0];

		TAP_CHECK(ev->pid == 4242 && strstr(ev->lines, "\nCPU: 1 UID: 0 PID: 4242") != NULL,
			  "gate keeps the lines of log evidence");
		pc_report_free(back);
	}
	free(s);
	pc_report_free(r);
}

/*
 * Scenario variants: which scenarios judged a result; ran beats skipped
 * and fail beats pass when one judges it again (--stress); text and TAP
 * list them only when some did not run, JSON always; the gate reads them.
 */
static void test_variants(void)
{
	struct pc_report *r = pc_report_new("run", "filemap"), *back = NULL;
	struct pc_result *res =
		pc_report_add_result(r, "filemap/batch-bounds", "oracle:pagemap", false);
	const struct pc_variant *v;
	char *s, err[256];
	int ret;

	pc_result_set(res, PC_STATUS_PASS, "eof-memfd64k: ...; eof-ext4: ...");
	pc_result_add_variant(res, "eof-memfd64k", PC_STATUS_PASS, "", 0, 0);
	pc_result_add_variant(res, "eof-ext4", PC_STATUS_SKIP, "no ext4 scratch filesystem: none",
			      0, 0);
	pc_result_add_variant(res, "eof-tmpfile", PC_STATUS_SKIP, "no large folio formed", 0, 0);
	pc_result_add_variant(res, "eof-tmpfile", PC_STATUS_PASS, "", 0, 0);
	pc_result_add_variant(res, "eof-tmpfile", PC_STATUS_SKIP, "later pass: skipped", 0, 0);
	v = pc_result_find_variant(res, "eof-tmpfile");
	TAP_CHECK(res->n_variants == 3 && v && v->status == PC_STATUS_PASS && !v->why[0],
		  "a variant that ran once stays run, its skip reason dropped");
	pc_result_add_variant(res, "eof-memfd64k", PC_STATUS_FAIL, "", 0, 0);
	TAP_CHECK(pc_result_find_variant(res, "eof-memfd64k")->status == PC_STATUS_FAIL &&
			  pc_result_variants_skipped(res) == 1,
		  "fail beats pass; one of three did not run");
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && has_line(s, "      variants run: 2 of 3: eof-memfd64k, eof-tmpfile"),
		  "text: the variants that ran");
	TAP_CHECK(s && has_line(s, "      not run: eof-ext4: no ext4 scratch filesystem: none"),
		  "text: the one that did not, with why");
	free(s);
	s = render(r, PC_FORMAT_TAP, &ret);
	TAP_CHECK(s && has_line(s, "# not run: eof-ext4: no ext4 scratch filesystem: none"),
		  "TAP: as diagnostics");
	free(s);
	s = render(r, PC_FORMAT_JSON, &ret);
	TAP_CHECK(s && strstr(s, "\"variants\": [") &&
			  strstr(s, "\"reason\": \"no ext4 scratch filesystem: none\""),
		  "JSON: each variant, the skipped with its reason");
	TAP_CHECK(s && pc_gate_report_parse(s, strlen(s), false, &back, err, sizeof(err)) == 0,
		  "JSON with variants parses back: %s", s ? err : "no JSON");
	if (back) {
		v = pc_result_find_variant(&back->results[0], "eof-ext4");
		TAP_CHECK(back->results[0].n_variants == 3 && v && v->status == PC_STATUS_SKIP &&
				  !strcmp(v->why, "no ext4 scratch filesystem: none"),
			  "gate keeps the variants");
		pc_report_free(back);
	}
	free(s);
	pc_result_add_variant(res, "eof-ext4", PC_STATUS_PASS, "", 0, 0);
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && !strstr(s, "variants run") && !strstr(s, "not run:"),
		  "text: nothing more when every variant ran");
	free(s);
	for (int i = 0; i < PC_MAX_VARIANTS - 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "v%d", i);
		pc_result_add_variant(res, name, PC_STATUS_PASS, "", 0, 0);
	}
	TAP_CHECK(pc_result_add_variant(res, "one-too-many", PC_STATUS_PASS, "", 0, 0) == -ENOSPC &&
			  res->n_variants == PC_MAX_VARIANTS,
		  "past PC_MAX_VARIANTS: -ENOSPC, none kept");
	pc_report_free(r);
}

/* A scenario's histograms: what the counters grew by while it ran, only
   the histograms that did; rounds of it add up; JSON gives them with the
   non-empty buckets. */
static void test_scenario_hists(void)
{
	struct pc_report *before = pc_report_new("run", "all"),
			 *after = pc_report_new("run", "all");
	struct pc_report *r = pc_report_new("run", "all");
	struct pc_hist_report *b, *a;
	struct pc_scenario_hists *sc;
	const struct pc_hist_report *h;
	char *js;

	b = pc_report_add_hist(before, "fork/batch", "fork PTEs per batch", "PTEs", "k", true,
			       PC_HIST_LINLOG);
	b->slots[16] = 10;
	pc_report_add_hist(before, "x/idle", "idle", "PTEs", "k", true, PC_HIST_LINLOG)->slots[1] =
		5;
	a = pc_report_add_hist(after, "fork/batch", "fork PTEs per batch", "PTEs", "k", true,
			       PC_HIST_LINLOG);
	a->slots[16] = 30;
	a->slots[8] = 4;
	pc_report_add_hist(after, "x/idle", "idle", "PTEs", "k", true, PC_HIST_LINLOG)->slots[1] =
		5;
	sc = pc_report_scenario(r, "fork", "anon-64k", true);
	TAP_CHECK(sc && !pc_scenario_hists_add_delta(sc, before, after) && sc->n_hists == 1,
		  "a scenario keeps the histograms that grew while it ran, only those");
	TAP_CHECK(!pc_scenario_hists_add_delta(sc, before, after), "a second round");
	h = pc_scenario_hist(sc, "fork/batch");
	TAP_CHECK(h && h->slots[16] == 40 && h->slots[8] == 8 && !h->slots[1],
		  "its counts: after less before, rounds added (16: %llu, 8: %llu)",
		  h ? (unsigned long long)h->slots[16] : 0,
		  h ? (unsigned long long)h->slots[8] : 0);
	sc->judged = true;
	js = render_report(r, PC_FORMAT_JSON);
	TAP_CHECK(js && strstr(js, "\"scenario_histograms\"") && strstr(js, "\"judged\": true") &&
			  strstr(js, "\"scenario\": \"anon-64k\""),
		  "JSON: scenario_histograms with each scenario and whether it judged");
	free(js);
	pc_report_free(before);
	pc_report_free(after);
	pc_report_free(r);
}

int main(int argc, char **argv)
{
	tap_plan(0);
	test_exit_codes();
	test_model();
	test_text();
	test_tap();
	test_json();
	test_bpf();
	test_utf8();
	test_log_evidence();
	test_variants();
	test_write_errors();
	test_scenario_hists();
	if (argc > 1)
		TAP_CHECK(dump_json(argv[1]) == 0, "sample JSON written to %s", argv[1]);
	return tap_finish();
}
