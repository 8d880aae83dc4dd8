// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel that died during a suite becomes that suite's failed result
 * (merge/died.c), from consoles as x86_64 and arm64 guests print them:
 * the crash line, the function, the caller the page-table checker
 * stands in front of, the scenario; a hang and a silent death said as
 * such; ptecheck's crash witness in the console's trace dump as its
 * check's failure; and a console that is not there an error, never a pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ptecheck/events.h>
#include "check_text.h"
#include "merge.h"
#include "report_writers.h"
#include "tap.h"

static const char x86_bug[] =
	"\x1b[0m[    0.000000] Linux version 7.2.0-1-amd64\r\n"
	"[   40.000001] ------------[ cut here ]------------\n"
	"[   40.000002] kernel BUG at mm/page_table_check.c:118!\n"
	"[   40.000003] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI\n"
	"[   40.000004] CPU: 1 UID: 0 PID: 412 Comm: mremap_move Not tainted 7.2.0-1-amd64\n"
	"[   40.000005] RIP: 0010:__page_table_check_ptes_set+0x1b4/0x1c0\n"
	"[   40.000007] Call Trace:\n"
	"[   40.000008]  <TASK>\n"
	"[   40.000009]  ? die+0x36/0x90\n"
	"[   40.000010]  page_table_check_ptes_set+0x10/0x20\n"
	"[   40.000011]  move_ptes+0x3a1/0x6c0\n"
	"[   40.000012]  move_page_tables+0x1ee/0x9f0\n"
	"[   40.000013]  </TASK>\n"
	"[   40.000014] ---[ end trace 0000000000000000 ]---\n"
	"[   40.000015] Kernel panic - not syncing: Fatal exception\n";

/* arm64 with the printk caller id, as CONFIG_PRINTK_CALLER prints it. */
static const char arm64_oops[] =
	"[   12.100000][  T412] Unable to handle kernel paging request at virtual address "
	"dead000000000108\n"
	"[   12.100001][  T412] Internal error: Oops: 0000000096000044 [#1] PREEMPT SMP\n"
	"[   12.100002][  T412] CPU: 0 UID: 0 PID: 412 Comm: contpte_gather\n"
	"[   12.100003][  T412] pc : contpte_ptep_get+0x5c/0x1a0\n"
	"[   12.100004][  T412] lr : folio_pte_batch_flags+0x80/0x1c0\n"
	"[   12.100005][  T412] Call trace:\n"
	"[   12.100006][  T412]  contpte_ptep_get+0x5c/0x1a0 (P)\n"
	"[   12.100007][  T412]  folio_pte_batch_flags+0x80/0x1c0\n"
	"[   12.100008][  T412]  zap_pte_range+0x2a0/0x7e0\n"
	"[   12.100009][  T412] ---[ end trace 0000000000000000 ]---\n";

/* A panic names no function of its own: the first frame past the
   reporting of it does. */
static const char sysrq_panic[] =
	"[    3.000000] sysrq: Trigger a crash\n"
	"[    3.000001] Kernel panic - not syncing: sysrq triggered crash\n"
	"[    3.000002] CPU: 0 UID: 0 PID: 153 Comm: sh Not tainted\n"
	"[    3.000003] Call Trace:\n"
	"[    3.000004]  <TASK>\n"
	"[    3.000005]  dump_stack_lvl+0x5d/0x80\n"
	"[    3.000006]  vpanic+0x166/0x360\n"
	"[    3.000007]  panic+0x6b/0x70\n"
	"[    3.000008]  sysrq_handle_crash+0x1a/0x20\n"
	"[    3.000009]  __handle_sysrq.cold+0x91/0x141\n";

/* f58df566524e's batch (x86_64, ftrace_dump_on_oops): the kernel died in
   it, the page-table checker first; the trace dump holds ptecheck's
   witness, judged on entry, and a line that only looks like one. */
static const char witnessed[] =
	"[   15.600000] BUG: unable to handle page fault for address: ffd4000002000030\n"
	"[   15.600001] Oops: 0002 [#1] SMP\n"
	"[   15.600002] CPU: 0 UID: 0 PID: 118 Comm: ptecheck Not tainted 7.2.13 #4\n"
	"[   15.600003] RIP: 0010:folio_add_file_rmap_ptes+0x6a/0x220\n"
	"[   15.600004] Call Trace:\n"
	"[   15.600005]  <TASK>\n"
	"[   15.600006]  bpf_trampoline_6442500943+0x8e/0x130\n"
	"[   15.600007]  ? bpf_probe_read_kernel+0x18/0x40\n"
	"[   15.600008]  set_pte_range+0x1b9/0x340\n"
	"[   15.600009]  bpf_trampoline_6442513919+0x96/0x138\n"
	"[   15.600009]  filemap_map_pages+0x439/0x730\n"
	"[   15.600009]  </TASK>\n"
	"[   15.600010] Dumping ftrace buffer:\n"
	"[   15.600011] ---------------------------------\n"
	"[   15.600012] ptecheck-118       0...6. 15556280us : bpf_trace_printk: "
	"ptecheck-witness: check=6 verdict=13 tier=2 pid=118 addr=0x7f1f48ae0000 "
	"expected=256 seen=512\n"
	"[   15.600013] ptecheck-118       0...6. 15560207us : bpf_trace_printk: "
	"ptecheck-witness: check=6 verdict=13 tier=2 pid=118 addr=0x7f1f48c01000 "
	"expected=256 seen=785\n"
	"[   15.600014] sh-99   1...1. 15560300us : bpf_trace_printk: ptecheck-witness: "
	"check=999 verdict=13 tier=2 pid=99 addr=0x1 expected=1 seen=2\n"
	"[   15.600015] sh-99   1...1. 15560301us : bpf_trace_printk: ptecheck-witness: cut\n"
	"[   15.600016] ---[ end trace 0000000000000000 ]---\n"
	"[   15.600017] Kernel panic - not syncing: Fatal exception\n";

static const char quiet[] = "[    1.000000] Run /init as init process\n"
			    "[    2.000000] ptecheck: suite filemap\n";

/* A temporary console log holding text; its path in buf. */
static const char *console_file(char *buf, const char *text)
{
	int fd;

	strcpy(buf, "/tmp/test_merge.XXXXXX");
	fd = mkstemp(buf);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return buf;
}

/* The result a death of suite mremap makes of text; NULL if none. */
static const struct pc_result *die_with(struct pc_report *r, const char *text, unsigned int hung,
					const char *scenario, int *rc)
{
	char path[64], err[256];
	struct pc_death d = {.suite = "mremap", .scenario = scenario, .hung_s = hung};

	d.console = console_file(path, text);
	*rc = pc_merge_death(r, &d, err, sizeof(err));
	unlink(path);
	return pc_report_find_result(r, "mremap/kernel-log", PC_TIER_CONSOLE);
}

static void test_x86_bug(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res;
	int rc;

	res = die_with(r, x86_bug, 0, "anon-64k", &rc);
	TAP_CHECK(rc == 0 && res && res->status == PC_STATUS_FAIL, "x86 BUG: the suite fails");
	TAP_CHECK(res && strstr(res->summary, "died during suite mremap (scenario anon-64k "
					      "running): kernel BUG at mm/page_table_check.c:118!"),
		  "the summary names the suite, the scenario and the crash line (%s)",
		  res ? res->summary : "");
	TAP_CHECK(res && strstr(res->summary,
				"in __page_table_check_ptes_set, called from move_ptes;"),
		  "the function, and the mm caller past the checker's own frames");
	TAP_CHECK(res && res->n_evidence == 2 && res->evidence[0].pid == 412 &&
			  !strcmp(res->evidence[0].what,
				  "page-table-check: kernel BUG at mm/page_table_check.c:118!") &&
			  strstr(res->evidence[0].lines, "\nRIP: 0010:__page_table_check") &&
			  !strchr(res->evidence[0].lines, '\r'),
		  "the report as evidence, its pid, named by the line its rule matched, "
		  "cleaned of timestamps");
	TAP_CHECK(res && res->n_evidence == 2 &&
			  !strcmp(res->evidence[1].what,
				  "panic: Kernel panic - not syncing: Fatal exception"),
		  "the panic after its end marker: a report of its own");
	TAP_CHECK(pc_report_exit_code(r) == 1, "the report exits 1");
	pc_report_free(r);
}

static void test_arm64_oops(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res;
	int rc;

	res = die_with(r, arm64_oops, 0, NULL, &rc);
	TAP_CHECK(rc == 0 && res && res->status == PC_STATUS_FAIL, "arm64 oops: the suite fails");
	TAP_CHECK(res &&
			  strstr(res->summary, "during suite mremap: Unable to handle kernel "
					       "paging request") &&
			  strstr(res->summary, ", in contpte_ptep_get, called from "
					       "folio_pte_batch_flags;"),
		  "pc : names the function, the caller id is stripped, no scenario said (%s)",
		  res ? res->summary : "");
	pc_report_free(r);
}

static void test_panic(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res;
	int rc;

	res = die_with(r, sysrq_panic, 0, NULL, &rc);
	TAP_CHECK(rc == 0 && res &&
			  strstr(res->summary, "Kernel panic - not syncing: sysrq triggered crash, "
					       "in sysrq_handle_crash,"),
		  "a panic: in the first frame past dump_stack and panic (%s)",
		  res ? res->summary : "");
	pc_report_free(r);
}

static void test_hang_and_silence(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res;
	int rc;

	res = die_with(r, quiet, 600, "trunc-race-ext4", &rc);
	TAP_CHECK(rc == 0 && res && res->status == PC_STATUS_FAIL &&
			  strstr(res->summary, "did not finish suite mremap (scenario "
					       "trunc-race-ext4 running) within 600 s (hung?)"),
		  "a hang fails, named as one (%s)", res ? res->summary : "");
	TAP_CHECK(res && res->n_evidence == 1 &&
			  !strcmp(res->evidence[0].what, "the console's last lines") &&
			  strstr(res->evidence[0].lines, "Run /init"),
		  "a hang's evidence: the console's last lines");
	pc_report_free(r);

	r = pc_report_new("run", "all");
	res = die_with(r, quiet, 0, NULL, &rc);
	TAP_CHECK(rc == 0 && res && res->status == PC_STATUS_FAIL &&
			  strstr(res->summary, "no crash line on its console"),
		  "a guest that ended with no crash line still fails, saying so");
	pc_report_free(r);
}

/* The witness lines of a console are their check's failed result, in the
   tier that judged them; lines that do not parse, or name no check, are
   not results.  Each test line is the format the BPF side prints. */
static void test_witness(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	const struct pc_result *res, *log;
	char line[256];
	int rc;

	TAP_CHECK(snprintf(line, sizeof(line), PC_WITNESS_PRINT, 6u, 13, 2u, 118u,
			   0x7f1f48ae0000ULL, 256ULL, 512ULL) > 0 &&
			  strstr(witnessed, line),
		  "the test console's witness is the format the BPF side prints");
	log = die_with(r, witnessed, 0, "trunc-race-deep-ext4", &rc);
	TAP_CHECK(rc == 0 && log && log->status == PC_STATUS_FAIL,
		  "the death itself still fails the suite's kernel log");
	TAP_CHECK(log && strstr(log->summary, "in folio_add_file_rmap_ptes, called from "
					      "set_pte_range;"),
		  "the caller past ptecheck's own trampolines (%s)", log ? log->summary : "");
	res = pc_report_find_result(r, pc_check_name(6), "kernel:fexit");
	TAP_CHECK(
		res && !strcmp(res->name, "filemap/batch-bounds") &&
			res->status == PC_STATUS_FAIL && res->checked == 2 && res->violations == 2,
		"two witnesses: filemap/batch-bounds [kernel:fexit] fails, 2 judged, 2 violations");
	TAP_CHECK(res && strstr(res->summary, "judged on entry, before the kernel died during "
					      "suite mremap (scenario trunc-race-deep-ext4"),
		  "the summary says they were judged on entry and where it died (%s)",
		  res ? res->summary : "");
	TAP_CHECK(res && res->n_evidence == 2 && res->evidence[0].pid == 118 &&
			  res->evidence[0].addr == 0x7f1f48ae0000ULL &&
			  res->evidence[0].expected == 256 && res->evidence[0].seen == 512 &&
			  strstr(res->evidence[0].what, "judged on entry"),
		  "the evidence: pid, address, the folio's pages, where the batch ended");
	TAP_CHECK(r->n_results == 2, "a witness naming no check, or cut short, makes no result");
	pc_report_free(r);

	r = pc_report_new("run", "all");
	die_with(r, x86_bug, 0, NULL, &rc);
	TAP_CHECK(rc == 0 && r->n_results == 1, "no witness on the console: the kernel log alone");
	pc_report_free(r);
}

static void test_no_console(void)
{
	struct pc_report *r = pc_report_new("run", "all");
	struct pc_death d = {.suite = "mremap", .console = "/nonexistent/console.log"};
	char err[256] = "";

	TAP_CHECK(pc_merge_death(r, &d, err, sizeof(err)) == -ENOENT &&
			  strstr(err, "/nonexistent/console.log") && r->n_results == 0,
		  "no console: an error naming it, no result made (%s)", err);
	pc_report_free(r);
}

int main(void)
{
	tap_plan(0);
	test_x86_bug();
	test_arm64_oops();
	test_panic();
	test_hang_and_silence();
	test_witness();
	test_no_console();
	return tap_finish();
}
