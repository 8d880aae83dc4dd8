// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the histograms per key (watch and hist --by comm|pid,
 * report/hist_key.c and the writers): the keys' order, their text and
 * JSON, the -i deltas per key, and the gate reading the key back.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <ptecheck/hist.h>
#include "gate.h"
#include "render.h"
#include "report.h"
#include "tap.h"

/* A histogram of "mremap latency" keyed by, with n events in one slot. */
static void add(struct pc_report *r, __u32 by, __u32 pid, const char *comm, bool unattributed,
		__u64 n)
{
	struct pc_hist_report *h = pc_report_add_hist(r, "mremap/latency", "mremap latency", "ns",
						      "tracepoint", true, PC_HIST_LOG2);

	h->by = by;
	h->pid = pid;
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	h->unattributed = unattributed;
	h->slots[pc_hist_slot(PC_HIST_LOG2, 1000)] = n;
}

/* An unkeyed histogram, then four keys by comm out of order. */
static struct pc_report *by_comm(void)
{
	struct pc_report *r = pc_report_new("hist", "live");

	pc_report_add_hist(r, "mremap/tlb-flushes", "TLB flushes", "flushes", "tp", true,
			   PC_HIST_LINLOG)
		->slots[1] = 9;
	add(r, PC_BY_COMM, 0, "", true, 100);
	add(r, PC_BY_COMM, 0, "a", false, 5);
	add(r, PC_BY_COMM, 0, "c", false, 20);
	add(r, PC_BY_COMM, 0, "b", false, 20);
	return r;
}

/* Where line starts a line of text, or -1. */
static long line_at(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return p - text;
	return -1;
}

static void test_parse(void)
{
	TAP_CHECK(pc_hist_by_parse("comm") == PC_BY_COMM && pc_hist_by_parse("pid") == PC_BY_PID,
		  "--by comm, --by pid");
	TAP_CHECK(pc_hist_by_parse("foo") < 0 && pc_hist_by_parse("") < 0 &&
			  pc_hist_by_parse("Comm") < 0,
		  "--by foo, '' and Comm refused");
	TAP_CHECK(pc_hist_by_name(PC_BY_NONE) == NULL && pc_hist_by_name(7) == NULL,
		  "no name for no key or one out of range");
}

static void test_order(void)
{
	struct pc_report *r = by_comm();
	struct pc_hist_report *h = r->hists;

	pc_hist_order_keys(r->hists, r->n_hists);
	TAP_CHECK(!h[0].by && h[0].slots[1] == 9, "an unkeyed histogram keeps its place");
	TAP_CHECK(!strcmp(h[1].comm, "b") && !strcmp(h[2].comm, "c") && !strcmp(h[3].comm, "a"),
		  "keys by events, largest first, ties by name: b 20, c 20, a 5");
	TAP_CHECK(h[4].unattributed, "the unattributed last, though it has the most events");
	pc_report_free(r);

	r = pc_report_new("hist", "live");
	add(r, PC_BY_PID, 30, "x", false, 1);
	add(r, PC_BY_PID, 20, "y", false, 1);
	add(r, PC_BY_PID, 10, "z", false, 2);
	pc_hist_order_keys(r->hists, r->n_hists);
	TAP_CHECK(r->hists[0].pid == 10 && r->hists[1].pid == 20 && r->hists[2].pid == 30,
		  "by pid: ties by pid");
	pc_report_free(r);
}

static void test_text(void)
{
	struct pc_report *r = by_comm();
	char buf[160], *t;

	pc_hist_order_keys(r->hists, r->n_hists);
	t = render_report(r, PC_FORMAT_TEXT);
	TAP_CHECK(t && line_at(t, "comm = b") >= 0 &&
			  line_at(t, "comm = b") < line_at(t, "comm = c") &&
			  line_at(t, "comm = c") < line_at(t, "comm = a"),
		  "text: a section per key, in order");
	TAP_CHECK(t && line_at(t, "comm = ? (not attributed: the kernel's table of 2048 keys was "
				  "full)") > line_at(t, "comm = a"),
		  "text: the unattributed section says why");
	free(t);
	r->hists[1].by = PC_BY_PID;
	r->hists[1].pid = 1234;
	snprintf(r->hists[1].comm, sizeof(r->hists[1].comm), "dd\n");
	TAP_CHECK(!strcmp(pc_hist_key_text(&r->hists[1], buf, sizeof(buf)), "pid = 1234 (dd )"),
		  "by pid: the pid and its name, cleaned to one line");
	TAP_CHECK(!strcmp(pc_hist_key_text(&r->hists[0], buf, sizeof(buf)), ""),
		  "unkeyed: no key line");
	pc_report_free(r);
}

/* JSON carries each key, and the gate reads them back as they were. */
static void test_json(void)
{
	struct pc_report *r = by_comm(), *back = NULL;
	char err[PC_GATE_ERR_MAX] = "", *js;
	json_t *root, *hs;
	int keyed = 0;

	/* The gate reads runs, with results. */
	snprintf(r->command, sizeof(r->command), "run");
	snprintf(r->machine, sizeof(r->machine), "x86_64");
	pc_result_set(pc_report_add_result(r, "mremap/moved", "oracle:pagemap", false),
		      PC_STATUS_PASS, "ok");
	add(r, PC_BY_PID, 4321, "dd", false, 3);
	js = render_report(r, PC_FORMAT_JSON);
	root = js ? json_loads(js, 0, NULL) : NULL;
	hs = json_object_get(root, "histograms");
	for (size_t i = 0; i < json_array_size(hs); i++) {
		json_t *k = json_object_get(json_array_get(hs, i), "key");

		keyed += k != NULL;
		if (i == 0)
			TAP_CHECK(!k, "JSON: no key on an unkeyed histogram");
		if (i == 1)
			TAP_CHECK(json_is_true(json_object_get(k, "unattributed")) &&
					  !json_object_get(k, "comm") &&
					  !strcmp(json_string_value(json_object_get(k, "by")),
						  "comm"),
				  "JSON: the unattributed: by, unattributed, no comm");
		if (i == 5)
			TAP_CHECK(json_integer_value(json_object_get(k, "pid")) == 4321 &&
					  !strcmp(json_string_value(json_object_get(k, "comm")),
						  "dd"),
				  "JSON: by pid: pid and comm");
	}
	TAP_CHECK(keyed == 5, "JSON: a key on each keyed histogram (%d)", keyed);
	TAP_CHECK(js && pc_gate_report_parse(js, strlen(js), false, &back, err, sizeof(err)) == 0,
		  "the gate parses keyed histograms (%s)", err);
	TAP_CHECK(back && back->n_hists == r->n_hists &&
			  pc_hist_same_key(&back->hists[2], &r->hists[2]) &&
			  pc_hist_same_key(&back->hists[1], &r->hists[1]) &&
			  pc_hist_same_key(&back->hists[5], &r->hists[5]),
		  "the gate reads each key as written");
	pc_report_free(back);
	back = NULL;
	json_object_set_new(json_object_get(json_array_get(hs, 2), "key"), "by",
			    json_string("foo"));
	free(js);
	js = json_dumps(root, 0);
	TAP_CHECK(pc_gate_report_parse(js, strlen(js), false, &back, err, sizeof(err)) == -1 &&
			  strstr(err, "histograms[2].key.by"),
		  "the gate refuses a key by foo, naming it (%s)", err);
	pc_report_free(back);
	json_decref(root);
	free(js);
	pc_report_free(r);
}

/* -i: each key's events since the last interval; a key without any is
   left out, a new key counts from zero; the order is the interval's. */
static void test_interval(void)
{
	struct pc_report *before = pc_report_new("interval", "live");
	struct pc_report *now = pc_report_new("interval", "live");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	add(before, PC_BY_COMM, 0, "a", false, 2);
	add(before, PC_BY_COMM, 0, "b", false, 10);
	add(now, PC_BY_COMM, 0, "b", false, 10);
	add(now, PC_BY_COMM, 0, "a", false, 5);
	add(now, PC_BY_COMM, 0, "d", false, 4);
	TAP_CHECK(f && pc_report_write_interval(now, before, "12:00:00", f) == 0,
		  "interval written");
	if (f)
		fclose(f);
	TAP_CHECK(buf && line_at(buf, "comm = b") < 0,
		  "a key without events in the interval: left out");
	TAP_CHECK(buf && line_at(buf, "comm = d") >= 0 &&
			  line_at(buf, "comm = a") > line_at(buf, "comm = d"),
		  "the new key d (4) before a (5 - 2 = 3)");
	TAP_CHECK(buf && strstr(buf, ": 3 ") && strstr(buf, ": 4 ") && !strstr(buf, ": 5 "),
		  "the counts are the interval's");
	free(buf);
	pc_report_free(before);
	pc_report_free(now);
}

/* Ids: what may be one, labels made parts, and the policy's patterns. */
static void test_ids(void)
{
	static const char *const good[] = {"mremap/latency", "fork/batch/folio_pte_batch", "a",
					   "x.y-z_0/1"};
	static const char *const bad[] = {
		"", "/a", "a/", "a//b", "mremap latency", "Mremap/latency", "a/b*", NULL};
	char buf[PC_HIST_ID_MAX], longid[PC_HIST_ID_MAX + 1];
	bool ok = true;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok = ok && pc_hist_id_valid(good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok = ok && !pc_hist_id_valid(bad[i]);
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = 0;
	TAP_CHECK(ok && !pc_hist_id_valid(longid), "ids: parts of [a-z0-9_.-] joined by '/'");
	pc_hist_batch_id(buf, sizeof(buf), "madvise DONTNEED", "contpte_*clear_full_ptes");
	TAP_CHECK(!strcmp(buf, "madvise-dontneed/batch/contpte_clear_full_ptes"),
		  "a batch id from its labels: %s", buf);
	pc_hist_batch_id(buf, sizeof(buf), "mmap/brk", " page  fault ");
	TAP_CHECK(!strcmp(buf, "mmap-brk/batch/page-fault") && pc_hist_id_valid(buf),
		  "a '/' in a label does not make a part: %s", buf);
	pc_hist_batch_id(buf, sizeof(buf), "", "**");
	TAP_CHECK(!strcmp(buf, "unknown/batch/unknown"), "an empty label is named: %s", buf);
	TAP_CHECK(pc_hist_id_match("*/batch/*", "fork/batch/derived") &&
			  !pc_hist_id_match("*/batch/*", "mremap/batch") &&
			  !pc_hist_id_match("*/batch/*", "filemap/batch") &&
			  pc_hist_id_match("exit/*", "exit/batch/folio_pte_batch") &&
			  pc_hist_id_match("mremap/latency", "mremap/latency") &&
			  !pc_hist_id_match("mremap/latency", "mremap/latency2"),
		  "patterns: fnmatch globs over the whole id");
}

int main(void)
{
	tap_plan(0);
	test_ids();
	test_parse();
	test_order();
	test_text();
	test_json();
	test_interval();
	return tap_finish();
}
