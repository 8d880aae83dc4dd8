// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of kernel stacks in violation evidence: the kallsyms
 * symbolizer (lib/ksyms.c) on crafted files, a violation event's stack
 * into evidence (trace/stack.c), and the text, TAP and JSON writers with
 * a stack, the JSON read back by the gate and checked against
 * docs/report-schema.json.  Prints TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gate.h"
#include "ksyms.h"
#include "report.h"
#include "render.h"
#include "stack.h"
#include "tap.h"

/* Unsorted, as the real file is: modules and BPF programs after the
   image; a data symbol and an alias at one address. */
static const char kallsyms[] = "ffffffff81200000 T move_page_tables\n"
			       "ffffffff81100000 T _stext\n"
			       "ffffffff81100000 t _text_alias\n"
			       "ffffffff81180000 D some_data\n"
			       "ffffffff81150000 t move_ptes\n"
			       "ffffffffc0001000 t bpf_prog_0123456789abcdef_mremap_exit\t[bpf]\n"
			       "ffffffffa0010000 t ext4_fault\t[ext4]\n"
			       "ffffffff81300000 W weak_fn\n";

static const char hidden[] = "0000000000000000 T _stext\n"
			     "0000000000000000 t move_ptes\n"
			     "0000000000000000 t bpf_prog_0123456789abcdef_x\t[bpf]\n";

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test_stack.XXXXXX");
	int fd = path ? mkstemp(path) : -1;
	size_t n = strlen(text);

	if (fd < 0 || write(fd, text, n) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static bool formats(const struct pc_ksyms *k, __u64 addr, const char *want)
{
	char buf[128];

	return pc_ksyms_format(k, addr, buf, sizeof(buf)) && !strcmp(buf, want);
}

static void test_ksyms(void)
{
	char *path = write_tmp(kallsyms), *zeros = write_tmp(hidden), *bad = write_tmp("junk\n");
	struct pc_ksyms k;
	char buf[8];

	TAP_CHECK(path && zeros && bad, "crafted kallsyms files written");
	TAP_CHECK_EQ(pc_ksyms_load(&k, path), 0, "load");
	TAP_CHECK_EQ(k.n, 7, "text symbols only (the data symbol left out)");
	TAP_CHECK(!k.hidden, "real addresses: not hidden");
	for (size_t i = 1; i < k.n; i++)
		TAP_CHECK(k.syms[i - 1].addr <= k.syms[i].addr, "sorted at %zu", i);
	TAP_CHECK(formats(&k, 0xffffffff81150000ULL, "move_ptes+0x0"), "exact address, +0x0");
	TAP_CHECK(formats(&k, 0xffffffff811501a4ULL, "move_ptes+0x1a4"), "inside a function");
	TAP_CHECK(formats(&k, 0xffffffff81190000ULL, "move_ptes+0x40000"),
		  "a data symbol does not take text addresses");
	TAP_CHECK(formats(&k, 0xffffffff81100010ULL, "_stext+0x10"),
		  "of two at one address, the file's first");
	TAP_CHECK(formats(&k, 0xffffffffa0010020ULL, "ext4_fault+0x20 [ext4]"),
		  "a module's symbol names its module");
	TAP_CHECK(formats(&k, 0xffffffffc0001040ULL,
			  "bpf_prog_0123456789abcdef_mremap_exit+0x40 [bpf]"),
		  "a BPF program, listed last, found");
	TAP_CHECK(formats(&k, 0xffffffff81300008ULL, "weak_fn+0x8"), "a weak symbol");
	TAP_CHECK(!pc_ksyms_format(&k, 0xffffffff80000000ULL, buf, sizeof(buf)) && !buf[0],
		  "below every symbol: no name, buf empty");
	TAP_CHECK(pc_ksyms_format(&k, 0xffffffff811501a4ULL, buf, sizeof(buf)) &&
			  !strcmp(buf, "move_pt"),
		  "a short buffer cuts the name");
	pc_ksyms_free(&k);

	TAP_CHECK_EQ(pc_ksyms_load(&k, zeros), 0, "zero addresses load");
	TAP_CHECK(k.hidden && k.n == 0, "zero addresses: hidden, no symbols kept");
	TAP_CHECK(!pc_ksyms_format(&k, 0xffffffff811501a4ULL, buf, sizeof(buf)),
		  "hidden: nothing named");
	pc_ksyms_free(&k);
	TAP_CHECK_EQ(pc_ksyms_load(&k, bad), -EINVAL, "a line that is not kallsyms: -EINVAL");
	TAP_CHECK_EQ(pc_ksyms_load(&k, "/nonexistent/kallsyms"), -ENOENT, "no file: -ENOENT");
	TAP_CHECK(k.syms == NULL && k.n == 0, "zeroed on error");
	unlink(path);
	unlink(zeros);
	unlink(bad);
	free(path);
	free(zeros);
	free(bad);
}

/* A stack as bpf_get_task_stack() gives it: the helper's frames, then the
   BPF program, then the hooked path. */
static struct pc_violation_event event(void)
{
	struct pc_violation_event ev = {.check = PC_CHK_MOVED, .tgid = 42};
	static const __u64 ips[] = {0xffffffff81300010ULL, 0xffffffffc0001040ULL,
				    0xffffffff811501a4ULL, 0xffffffff81200080ULL,
				    0xffffffffa0010020ULL};

	memcpy(ev.stack, ips, sizeof(ips));
	ev.stack_len = sizeof(ips);
	return ev;
}

static void test_evidence(const char *path, const char *zeros)
{
	struct pc_stack_syms s = {.path = path};
	struct pc_violation_event ev = event();
	struct pc_evidence out;

	memset(&out, 0, sizeof(out));
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK_EQ(out.n_frames, 4, "the helper's frame above the BPF program left out");
	TAP_CHECK(!strcmp(out.frames[0].sym, "bpf_prog_0123456789abcdef_mremap_exit+0x40 [bpf]"),
		  "first frame: the BPF program");
	TAP_CHECK(!strcmp(out.frames[1].sym, "move_ptes+0x1a4") &&
			  out.frames[1].addr == 0xffffffff811501a4ULL,
		  "then the hooked path, with its address");
	TAP_CHECK(!out.stack_err && !out.stack_note[0], "named: no error, no note");
	TAP_CHECK(s.tried, "kallsyms read on the first stack");
	s.path = "/nonexistent/kallsyms";
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK_EQ(out.n_frames, 4, "not read again (loaded once)");
	pc_stack_syms_free(&s);

	s = (struct pc_stack_syms){.path = zeros};
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK(out.n_frames == 5 && !out.frames[0].sym[0] &&
			  out.frames[0].addr == 0xffffffff81300010ULL,
		  "hidden: every frame, raw");
	TAP_CHECK(strstr(out.stack_note, "symbols hidden") != NULL, "hidden: the note says so");
	pc_stack_syms_free(&s);

	s = (struct pc_stack_syms){.path = "/nonexistent/kallsyms"};
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK(out.n_frames == 5 && strstr(out.stack_note, "kallsyms unreadable") != NULL,
		  "kallsyms unreadable: raw frames and why");
	ev.stack_len = -EFAULT;
	memset(&out, 0, sizeof(out));
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK(out.n_frames == 0 && out.stack_err == EFAULT, "helper failed: its errno");
	ev.stack_len = 0;
	pc_stack_evidence(&s, &ev, &out);
	TAP_CHECK(out.n_frames == 0 && out.stack_err == ENODATA, "no frames: ENODATA");
	pc_stack_syms_free(&s);
}

static struct pc_report *stack_report(const char *path)
{
	struct pc_report *r = pc_report_new("run", "mremap");
	struct pc_result *res = pc_report_add_result(r, "mremap/moved", "kernel:fexit", true);
	struct pc_stack_syms s = {.path = path};
	struct pc_violation_event ev = event();
	struct pc_evidence *e;

	pc_result_set(res, PC_STATUS_FAIL, "1 of 16 entries changed");
	res->checked = 16;
	res->violations = 3;
	e = pc_result_add_evidence(res, 42, 0x7f0000000000ULL, 0x7f1000000000ULL, 1, 2,
				   "swap/other entry changed kind");
	pc_stack_evidence(&s, &ev, e);
	e = pc_result_add_evidence(res, 42, 0x7f0000001000ULL, 0x7f1000001000ULL, 1, 2,
				   "swap/other entry changed kind");
	pc_stack_evidence(&s, &ev, e);
	e = pc_result_add_evidence(res, 42, 0x7f0000002000ULL, 0x7f1000002000ULL, 1, 2,
				   "swap/other entry changed kind");
	ev.stack_len = -EFAULT;
	pc_stack_evidence(&s, &ev, e);
	pc_stack_syms_free(&s);
	return r;
}

/* The JSON against docs/report-schema.json; skipped without python3's
   jsonschema. */
static void check_schema(const char *json)
{
	int valid = schema_check(json, __FILE__);

	if (valid < 0)
		tap_skip("JSON schema check: no python3 jsonschema, or the tree unknown");
	else
		TAP_CHECK(valid == 0, "JSON with stacks validates against docs/report-schema.json");
}

static void test_writers(const char *path, const char *zeros)
{
	struct pc_report *r = stack_report(path), *hidden_r = stack_report(zeros), *back = NULL;
	char *s, err[256];
	int ret;

	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && !ret && strstr(s, "\n        kernel stack:\n") &&
			  strstr(s, "\n          #1  ffffffff811501a4 move_ptes+0x1a4\n"),
		  "text: the stack under the evidence line");
	free(s);
	s = render(hidden_r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && strstr(s, "\n        kernel stack (symbols hidden: kallsyms shows zero "
				 "addresses (kptr_restrict)):\n          #0  ffffffff81300010\n"),
		  "text: hidden names: raw addresses, the note says why");
	free(s);
	s = render(r, PC_FORMAT_TEXT, &ret);
	TAP_CHECK(s && strstr(s, "\n        kernel stack: as above\n"),
		  "text: the same stack again in one line");
	TAP_CHECK(s && strstr(s, "\n        kernel stack: unavailable (EFAULT: Bad address)\n"),
		  "text: an unavailable stack says why");
	free(s);
	s = render(r, PC_FORMAT_TAP, &ret);
	TAP_CHECK(s && strstr(s, "\n#     kernel stack:\n#       #0  ffffffffc0001040 bpf_prog_"),
		  "TAP: the stack as diagnostics");
	free(s);
	s = render(r, PC_FORMAT_JSON, &ret);
	TAP_CHECK(s && strstr(s, "\"kernel_stack\": [") &&
			  strstr(s, "\"sym\": \"move_ptes+0x1a4\"") &&
			  strstr(s, "\"kernel_stack_errno\": 14"),
		  "JSON: frames array, and the errno of the unavailable one");
	TAP_CHECK(s && pc_gate_report_parse(s, strlen(s), false, &back, err, sizeof(err)) == 0,
		  "the gate parses a report with stacks: %s", s ? err : "no JSON");
	if (back) {
		const struct pc_evidence *e = back->results[0].evidence;

		TAP_CHECK(e[0].n_frames == 4 && e[0].frames[1].addr == 0xffffffff811501a4ULL &&
				  !strcmp(e[0].frames[1].sym, "move_ptes+0x1a4"),
			  "gate keeps the frames");
		TAP_CHECK(e[1].n_frames == 4, "JSON repeats a stack in full");
		TAP_CHECK(e[2].n_frames == 0 && e[2].stack_err == EFAULT, "gate keeps the errno");
		pc_report_free(back);
	}
	if (s)
		check_schema(s);
	free(s);
	pc_report_free(r);
	pc_report_free(hidden_r);
}

int main(void)
{
	char *path = write_tmp(kallsyms), *zeros = write_tmp(hidden);

	tap_plan(0);
	test_ksyms();
	if (path && zeros) {
		test_evidence(path, zeros);
		test_writers(path, zeros);
	}
	if (path)
		unlink(path);
	if (zeros)
		unlink(zeros);
	free(path);
	free(zeros);
	return tap_finish();
}
