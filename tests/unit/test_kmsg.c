// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the kernel-log scanner (lib/kmsg.c, lib/kmsg_report.c,
 * docs/kernel-log.md) with the default rules: splats written from the
 * kernel's own format strings (Linux 7.2 mm/, kernel/, lib/, arch/ and
 * older forms) grouped with the task they name, harmless logs, the
 * /dev/kmsg record parser (continuations, \xNN, dictionaries, lost and
 * malformed records, user-space records), printk callers, the evidence
 * caps and the reader.  The rules themselves are test_kmsg_rules.c's.
 * Prints kselftest-style TAP; exits 0 if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kmsg.h"
#include "kmsg_feed.h"
#include "tap.h"

static struct pc_kmsg_rules *defaults;

/* A scanner over text (one record a line, seq from 1000), finished. */
static struct pc_kmsg_scan *scan_text(const char *text, int prio)
{
	struct feeder f = {.seq = 1000, .ts = 5000000, .prio = prio};

	if (pc_kmsg_scan_new(&f.s, defaults))
		abort();
	feed_text(&f, text);
	pc_kmsg_scan_finish(f.s);
	return f.s;
}

static int has_line(const struct pc_kmsg_splat *sp, const char *prefix)
{
	size_t i;

	for (i = 0; sp && i < sp->nlines; i++)
		if (!strncmp(sp->lines[i], prefix, strlen(prefix)))
			return 1;
	return 0;
}

static void show(const struct pc_kmsg_splat *sp)
{
	size_t i;

	if (!sp)
		return;
	tap_diag("splat %s seq %llu pid %d comm '%s' lines %zu cut %zu fail %zu closed %d",
		 sp->rule, sp->seq, sp->pid, sp->comm, sp->nlines, sp->ncut, sp->nfail, sp->closed);
	for (i = 0; i < sp->nlines; i++)
		tap_diag("  | %s", sp->lines[i]);
}
/* ---- splats written from the kernel's format strings --------------------- */

/* mm/memory.c print_bad_page_map() with dump_page() and dump_stack(), 7.2. */
static const char bad_page_map[] =
	"BUG: Bad page map in process mremap_batch  pte:8000000107a4d867\n"
	"pgd:800000010a3c1067 p4d:800000010a3c1067 pud:10a3c2067 pmd:10a3c3067\n"
	"page: refcount:1 mapcount:-1 mapping:0000000000000000 index:0x7f3b9c400 pfn:0x107a4d\n"
	"anon flags: 0x17ffffc0020018(uptodate|dirty|swapbacked|node=0|zone=2)\n"
	"raw: 0017ffffc0020018 dead000000000100 dead000000000122 ffff88810a3b0c01\n"
	"raw: 00000007f3b9c400 0000000000000000 00000001fffffffe 0000000000000000\n"
	"page dumped because: bad page map\n"
	"addr:00007f3b9c400000 vm_flags:08100073 anon_vma:ffff88810a3b0c00 "
	"mapping:0000000000000000 index:7f3b9c400\n"
	"file:(null) fault:0x0 mmap:0x0 mmap_prepare: 0x0 read_folio:0x0\n"
	"CPU: 3 UID: 0 PID: 4242 Comm: mremap_batch Tainted: G    B              7.2.13 #1 "
	"PREEMPT(voluntary)\n"
	"Tainted: [B]=BAD_PAGE\n"
	"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.3-debian-1.16.3-2 "
	"04/01/2014\n"
	"Call Trace:\n"
	" <TASK>\n"
	" dump_stack_lvl+0x5d/0x80\n"
	" print_bad_page_map+0x1a3/0x1f0\n"
	" zap_pte_range+0x5c4/0x9a0\n"
	" unmap_page_range+0x2a1/0x4c0\n"
	" unmap_vmas+0xd6/0x1a0\n"
	" exit_mmap+0xe1/0x3c0\n"
	" __mmput+0x41/0x140\n"
	" do_exit+0x2b7/0xad0\n"
	" do_group_exit+0x30/0x80\n"
	" __x64_sys_exit_group+0x18/0x20\n"
	" do_syscall_64+0x82/0x5d0\n"
	" entry_SYSCALL_64_after_hwframe+0x76/0x7e\n"
	" </TASK>\n";

static void test_bad_page_map(void)
{
	struct pc_kmsg_scan *s = scan_text(bad_page_map, 1);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("Bad page map: one splat from the BUG line to the end of the stack dump");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "bad-page-map"), "rule bad-page-map");
	TAP_CHECK(sp && !strcmp(sp->comm, "mremap_batch") && sp->pid == 4242,
		  "comm from the BUG line, pid from the CPU line");
	TAP_CHECK(sp && sp->seq == 1000 && sp->level == 1 && sp->ts_usec == 5000000,
		  "seq, level (alert) and time of the BUG line");
	TAP_CHECK(sp && sp->nlines == 27 && sp->ncut == 0 && sp->nfail == 1 && sp->closed,
		  "all 27 lines kept, one fail line, closed");
	TAP_CHECK(sp && !strncmp(sp->lines[0], "BUG: Bad page map", 17) &&
			  !strcmp(sp->lines[sp->nlines - 1], " </TASK>") &&
			  has_line(sp, "pgd:800000010a3c1067") &&
			  has_line(sp, "addr:00007f3b9c400000"),
		  "from the BUG line through pgd, addr, to </TASK>");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->fail_lines, 1, "fail_lines 1");
	if (pc_kmsg_scan_nsplats(s) != 1)
		show(sp);
	pc_kmsg_scan_free(s);
}

/* mm/page_alloc.c bad_page(): dump_page(), print_modules(), dump_stack(). */
static const char bad_page_state[] =
	"BUG: Bad page state in process kworker/u8:3  pfn:107a4d\n"
	"page: refcount:0 mapcount:1 mapping:0000000000000000 index:0x0 pfn:0x107a4d\n"
	"flags: 0x17ffffc0000000(node=0|zone=2|lastcpupid=0x1fffff)\n"
	"raw: 0017ffffc0000000 dead000000000100 dead000000000122 0000000000000000\n"
	"raw: 0000000000000000 0000000000000000 00000000ffffffff 0000000000000000\n"
	"page dumped because: nonzero mapcount\n"
	"Modules linked in: zram\n"
	"CPU: 0 UID: 0 PID: 77 Comm: kworker/u8:3 Tainted: G    B              7.2.13 #1 "
	"PREEMPT(voluntary)\n"
	"Tainted: [B]=BAD_PAGE\n"
	"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
	"Workqueue: events_unbound free_work\n"
	"Call Trace:\n"
	" <TASK>\n"
	" dump_stack_lvl+0x5d/0x80\n"
	" bad_page+0x70/0x110\n"
	" free_frozen_page_commit+0x1c4/0x3e0\n"
	" __folio_put+0x9c/0xb0\n"
	" </TASK>\n"
	"zram0: detected capacity change from 0 to 2097152\n";

static void test_bad_page_state(void)
{
	struct pc_kmsg_scan *s = scan_text(bad_page_state, 1);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("Bad page state: the page dump belongs to the splat, the next line does not");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "bad-page-state"), "rule bad-page-state");
	TAP_CHECK(sp && sp->pid == 77 && !strcmp(sp->comm, "kworker/u8:3"),
		  "comm with a slash from the BUG line, pid from the CPU line");
	TAP_CHECK(sp && sp->nlines == 18 && has_line(sp, "page dumped because: nonzero mapcount") &&
			  has_line(sp, "page: refcount:0 mapcount:1"),
		  "the dump_page() lines are evidence");
	TAP_CHECK(sp && !has_line(sp, "zram0:"), "the line after </TASK> is not");
	pc_kmsg_scan_free(s);
}

/* kernel/fork.c check_mm(): no stack; the next report is its own splat. */
static void test_rss_counter(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *a, *b;
	struct feeder f = {.seq = 10, .ts = 1000000, .prio = 1};

	tap_diag("Bad rss-counter state: Comm/Pid from the line itself (7.2); each report a splat");
	pc_kmsg_scan_new(&s, defaults);
	f.s = s;
	feed_text(&f, "BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_ANONPAGES val:-1 "
		      "Comm:mremap_batch Pid:4242\n"
		      "BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_SWAPENTS val:1 "
		      "Comm:mremap_batch Pid:4242\n"
		      "BUG: non-zero pgtables_bytes on freeing mm: 4096\n");
	a = pc_kmsg_scan_splat(s, 0);
	b = pc_kmsg_scan_splat(s, 2);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 3, "three splats");
	TAP_CHECK(a && !strcmp(a->rule, "bad-rss-counter") && a->pid == 4242 &&
			  !strcmp(a->comm, "mremap_batch") && a->nlines == 1 && a->closed,
		  "the first: bad-rss-counter, mremap_batch/4242, one line, closed by the next");
	TAP_CHECK(b && !strcmp(b->rule, "pgtables-bytes") && b->pid == -1 && !b->comm[0] &&
			  !b->closed,
		  "the last: pgtables-bytes, no task named, still open");
	/* 3 s later: too late to belong to that report. */
	f.ts += 3000000;
	feed_text(&f, "systemd[1]: Started session-3.scope.\n");
	TAP_CHECK(b && b->closed && b->nlines == 1, "a line after a gap of 3 s closes it unjoined");
	pc_kmsg_scan_free(s);
}

/* lib/bug.c BUG() in mm/page_table_check.c: cut line, kernel BUG, x86 oops. */
static const char ptc_bug[] =
	"------------[ cut here ]------------\n"
	"kernel BUG at mm/page_table_check.c:83!\n"
	"Oops: invalid opcode: 0000 [#1] SMP NOPTI\n"
	"CPU: 1 UID: 0 PID: 5120 Comm: mremap_batch Not tainted 7.2.13 #1 PREEMPT(voluntary)\n"
	"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
	"RIP: 0010:page_table_check_clear+0x12b/0x140\n"
	"Code: 0f 0b 0f 0b 0f 0b 66 90\n"
	"RSP: 0018:ffffc90000cbfb58 EFLAGS: 00010202\n"
	"RAX: 0000000000000001 RBX: ffffea00041e9340 RCX: 0000000000000000\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __page_table_check_ptes_clear+0x5b/0x70\n"
	" move_ptes+0x2f1/0x6a0\n"
	" move_page_tables+0x3b5/0x7c0\n"
	" </TASK>\n"
	"Modules linked in: zram\n"
	"---[ end trace 0000000000000000 ]---\n"
	"RIP: 0010:page_table_check_clear+0x12b/0x140\n"
	"Code: 0f 0b 0f 0b 0f 0b 66 90\n";

static void test_page_table_check(void)
{
	struct pc_kmsg_scan *s = scan_text(ptc_bug, 4);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("page_table_check BUG: the cut line leads, the oops joins, end trace closes");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat for BUG + oops");
	TAP_CHECK(sp && !strcmp(sp->rule, "page-table-check"), "rule page-table-check");
	TAP_CHECK(sp && sp->nfail == 2, "two fail lines in it (kernel BUG, Oops)");
	TAP_CHECK(sp && sp->nlines == 17 &&
			  !strcmp(sp->lines[0], "------------[ cut here ]------------") &&
			  !strncmp(sp->lines[16], "---[ end trace", 14),
		  "from the cut line to the end trace (past </TASK>)");
	TAP_CHECK(sp && sp->pid == 5120 && !strcmp(sp->comm, "mremap_batch"),
		  "pid and comm from the 7.2 CPU line");
	TAP_CHECK(sp && sp->seq == 1001, "seq of the kernel BUG line");
	pc_kmsg_scan_free(s);
}

/* kernel/panic.c __warn() in mm/rmap.c, 7.2 format, with a WARN() message. */
static const char warn_rmap[] =
	"------------[ cut here ]------------\n"
	"folio mapcount underflow\n"
	"WARNING: mm/rmap.c:1627 at folio_remove_rmap_ptes+0x1c5/0x1e0, CPU#1: kworker/u8:2/54\n"
	"Modules linked in: zram\n"
	"CPU: 1 UID: 0 PID: 54 Comm: kworker/u8:2 Not tainted 7.2.13 #1 PREEMPT(voluntary)\n"
	"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
	"RIP: 0010:folio_remove_rmap_ptes+0x1c5/0x1e0\n"
	"RSP: 0018:ffffc90000cbfb58 EFLAGS: 00010246\n"
	"Call Trace:\n"
	" <TASK>\n"
	" zap_present_ptes+0x3a1/0x9c0\n"
	" zap_pte_range+0x5c4/0x9a0\n"
	" </TASK>\n"
	"---[ end trace 0000000000000000 ]---\n"
	"EXT4-fs (loop0): mounted filesystem r/w with ordered data mode.\n";

/* The same before 7.x: "WARNING: CPU: %d PID: %d at ..." and the CPU line without UID. */
static const char warn_rmap_old[] =
	"------------[ cut here ]------------\n"
	"WARNING: CPU: 2 PID: 311 at mm/rmap.c:1405 page_remove_rmap+0x1e0/0x230\n"
	"Modules linked in:\n"
	"CPU: 2 PID: 311 Comm: a.out Not tainted 6.1.0-18-amd64 #1  Debian 6.1.76-1\n"
	"Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
	"RIP: 0010:page_remove_rmap+0x1e0/0x230\n"
	"Call Trace:\n"
	" <TASK>\n"
	" zap_pte_range+0x5c4/0x9a0\n"
	" </TASK>\n"
	"---[ end trace 0000000000000000 ]---\n";

static void test_warn_mm(void)
{
	struct pc_kmsg_scan *s = scan_text(warn_rmap, 4);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("WARNING in mm/rmap.c (7.2): cut line and WARN message lead, end trace closes");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "warn-mm"), "rule warn-mm");
	TAP_CHECK(sp && sp->pid == 54 && !strcmp(sp->comm, "kworker/u8:2"),
		  "comm/pid from 'CPU#1: kworker/u8:2/54' (last slash)");
	TAP_CHECK(sp && sp->nlines == 14 && !strcmp(sp->lines[1], "folio mapcount underflow") &&
			  !has_line(sp, "EXT4-fs"),
		  "cut line, message, ... end trace; not the line after");
	pc_kmsg_scan_free(s);

	s = scan_text(warn_rmap_old, 4);
	sp = pc_kmsg_scan_splat(s, 0);
	tap_diag("WARNING in mm/rmap.c (older format): pid from it, comm from the old CPU line");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "warn-mm") && sp->pid == 311 &&
			  !strcmp(sp->comm, "a.out"),
		  "warn-mm, pid 311, comm a.out from 'CPU: 2 PID: 311 Comm: a.out Not tainted'");
	TAP_CHECK(sp && sp->nlines == 11, "all 11 lines");
	pc_kmsg_scan_free(s);
}

/* mmdebug.h VM_BUG_ON_FOLIO: dump_page(), then BUG(): cut line, kernel BUG, oops. */
static const char vm_bug_on_folio[] =
	"Adding 1048572k swap on /dev/zram0.  Priority:100 extents:1 across:1048572k SS\n"
	"page: refcount:2 mapcount:1 mapping:0000000000000000 index:0x7f0 pfn:0x10a2c3\n"
	"memcg:ffff888100c6c000\n"
	"anon flags: 0x17ffffc0020019(locked|uptodate|dirty|swapbacked|node=0|zone=2)\n"
	"raw: 0017ffffc0020019 ffffea000428b0c8 ffffea000428b048 ffff88810a3b0c01\n"
	"raw: 00000000000007f0 0000000000000000 0000000200000000 ffff888100c6c000\n"
	"page dumped because: VM_BUG_ON_FOLIO(folio_anon_vma(folio)->root != "
	"vma->anon_vma->root)\n"
	"------------[ cut here ]------------\n"
	"kernel BUG at mm/rmap.c:1514!\n"
	"Oops: invalid opcode: 0000 [#1] SMP NOPTI\n"
	"CPU: 0 UID: 0 PID: 901 Comm: mremap_batch Not tainted 7.2.13 #1 PREEMPT(voluntary)\n"
	"RIP: 0010:folio_add_anon_rmap_ptes+0x1f3/0x220\n"
	"Call Trace:\n"
	" <TASK>\n"
	" do_swap_page+0x8e1/0x1370\n"
	" </TASK>\n"
	"---[ end trace 0000000000000000 ]---\n";

static void test_vm_bug_on_folio(void)
{
	struct pc_kmsg_scan *s = scan_text(vm_bug_on_folio, 4);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("VM_BUG_ON_FOLIO: the dump before 'page dumped because' leads; BUG, oops join");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat for dump + BUG + oops");
	TAP_CHECK(sp && !strcmp(sp->rule, "vm-debug-dump"), "rule vm-debug-dump");
	TAP_CHECK(sp && sp->nfail == 3, "three fail lines in it");
	TAP_CHECK(sp && sp->nlines == 16 && !strncmp(sp->lines[0], "page: refcount:2", 16) &&
			  !has_line(sp, "Adding"),
		  "from dump_page()'s first line (not the line before) to the end trace");
	TAP_CHECK(sp && sp->pid == 901 && !strcmp(sp->comm, "mremap_batch"), "task from CPU line");
	pc_kmsg_scan_free(s);
}

static const char oops_x86[] =
	"BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
	"#PF: supervisor read access in kernel mode\n"
	"#PF: error_code(0x0000) - not-present page\n"
	"PGD 0 P4D 0\n"
	"Oops: Oops: 0000 [#1] SMP NOPTI\n"
	"CPU: 1 UID: 0 PID: 5120 Comm: mremap_batch Not tainted 7.2.13 #1 PREEMPT(voluntary)\n"
	"RIP: 0010:move_ptes+0x2f1/0x6a0\n"
	"Call Trace:\n"
	" <TASK>\n"
	" move_page_tables+0x3b5/0x7c0\n"
	" </TASK>\n"
	"Modules linked in: zram\n"
	"CR2: 0000000000000008\n"
	"---[ end trace 0000000000000000 ]---\n";

static const char oops_arm64[] =
	"Unable to handle kernel paging request at virtual address dead000000000108\n"
	"Mem abort info:\n"
	"  ESR = 0x0000000096000044\n"
	"  EC = 0x25: DABT (current EL), IL = 32 bits\n"
	"[dead000000000108] address between user and kernel address ranges\n"
	"Internal error: Oops: 0000000096000044 [#1]  SMP\n"
	"Modules linked in:\n"
	"CPU: 2 UID: 0 PID: 610 Comm: mremap_batch Not tainted 7.2.13 #1 PREEMPT\n"
	"Hardware name: linux,dummy-virt (DT)\n"
	"pc : contpte_set_ptes+0x8c/0x1a0\n"
	"Call trace:\n"
	" contpte_set_ptes+0x8c/0x1a0 (P)\n"
	" move_ptes+0x2f1/0x6a0\n"
	"Code: f9400a61 b4000081 f9000023 aa1303e0 (f9000443)\n"
	"---[ end trace 0000000000000000 ]---\n";

static void test_oops(void)
{
	struct pc_kmsg_scan *s = scan_text(oops_x86, 1);
	const struct pc_kmsg_splat *sp = pc_kmsg_scan_splat(s, 0);

	tap_diag("Oops (x86 NULL dereference): headline and oops line are one splat");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "kernel-fault") && sp->nfail == 2 && sp->nlines == 14 &&
			  sp->pid == 5120,
		  "kernel-fault, 2 fail lines, 14 lines to the end trace, pid 5120");
	pc_kmsg_scan_free(s);

	s = scan_text(oops_arm64, 0);
	sp = pc_kmsg_scan_splat(s, 0);
	tap_diag("Oops (arm64 paging request): 'Internal error: Oops' joins, no </TASK> there");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "one splat");
	TAP_CHECK(sp && !strcmp(sp->rule, "kernel-fault") && sp->nlines == 15 && sp->pid == 610 &&
			  !strcmp(sp->comm, "mremap_batch") && sp->closed,
		  "kernel-fault, all 15 lines, mremap_batch/610, closed at the end trace");
	pc_kmsg_scan_free(s);
}

/* ---- harmless logs ------------------------------------------------------- */

static const char harmless[] =
	"------------[ cut here ]------------\n"
	"WARNING: fs/ext4/inode.c:3958 at ext4_dirty_folio+0x3c/0x50, CPU#0: kworker/u8:1/54\n"
	"Modules linked in:\n"
	"CPU: 0 UID: 0 PID: 54 Comm: kworker/u8:1 Not tainted 7.2.13 #1 PREEMPT(voluntary)\n"
	"Call Trace:\n"
	" <TASK>\n"
	" folio_mark_dirty+0x2e/0x60\n"
	" </TASK>\n"
	"---[ end trace 0000000000000000 ]---\n"
	"------------[ cut here ]------------\n"
	"WARNING: CPU: 0 PID: 54 at drivers/gpu/drm/drm_atomic.c:123 "
	"drm_atomic_check_only+0x1/0x2\n"
	"---[ end trace 0000000000000000 ]---\n"
	"Freeing unused kernel image (initmem) memory: 4096K\n"
	"x86/mm: Checked W+X mappings: passed, no W+X pages found.\n"
	"Adding 1048572k swap on /dev/zram0.  Priority:100 extents:1 across:1048572k SS\n"
	"a.out[4321]: segfault at 8 ip 000055d5c4a3b1a9 sp 00007ffc8c8b6f30 error 4\n"
	"traps: a.out[4322] general protection fault ip:55d5c4a3b1b0 sp:7ffc8c8b6f30 error:0\n"
	"Out of memory: Killed process 4323 (a.out) total-vm:4198400kB, anon-rss:2097152kB\n"
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a.out:123]\n"
	"------------[ cut here ]------------\n"
	"x86/mm: Found insecure W+X mapping at address 0xffffffffc0000000\n"
	"WARNING: arch/x86/mm/dump_pagetables.c:246 at note_page+0x6a8/0x6f0, CPU#0: swapper/0/1\n"
	"---[ end trace 0000000000000000 ]---\n";

static void test_harmless(void)
{
	struct pc_kmsg_scan *s = scan_text(harmless, 4);
	const struct pc_kmsg_stats *st = pc_kmsg_scan_stats(s);

	tap_diag("harmless log: WARNs in fs/ and drivers/, boot lines, user-space faults, the W+X "
		 "audit");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 0, "no splat");
	TAP_CHECK_EQ(st->fail_lines, 0, "no fail line");
	TAP_CHECK_EQ(st->ignored, 1, "the W+X audit WARNING is counted as ignored");
	TAP_CHECK_EQ(st->lines, 23, "all 23 lines classified");
	if (pc_kmsg_scan_nsplats(s))
		show(pc_kmsg_scan_splat(s, 0));
	pc_kmsg_scan_free(s);
}

/* ---- the record format --------------------------------------------------- */

static void test_continuation(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *sp;

	tap_diag("continuation: 'c' begins a line, '+' records join it (kernels before 4.9)");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 1, 1, 100, "c", NULL, "BUG: Bad page map in process ");
	feed(s, 1, 2, 100, "+", NULL, "mremap_batch  pte:");
	feed(s, 1, 3, 100, "+", NULL, "8000000107a4d867");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 0, "nothing matched while the line may go on");
	feed(s, 6, 4, 200, "-", NULL, "next line");
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1,
		     "the joined line fails when the next record ends it");
	TAP_CHECK(sp && sp->nlines >= 1 &&
			  !strcmp(sp->lines[0], "BUG: Bad page map in process mremap_batch  "
						"pte:8000000107a4d867") &&
			  !strcmp(sp->comm, "mremap_batch") && sp->seq == 1,
		  "one joined line, comm found in it, seq of the first fragment");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->lines, 2, "two logical lines from four records");
	pc_kmsg_scan_free(s);

	tap_diag("continuation: a 'c' record (7.x: an unmerged pr_cont) stays its own line");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 4, 1, 100, "-", NULL, "Modules linked in: zram");
	feed(s, 4, 2, 100, "c", NULL, " loop");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->lines, 2, "two lines; finish ends the pending one");
	pc_kmsg_scan_free(s);
}

static void test_escapes(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *sp;

	tap_diag("\\x0a inside a message splits it into lines");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 4, 1, 100, "-", NULL, "first line\\x0aBUG: Bad page map in process a  pte:1\\x0a");
	pc_kmsg_scan_finish(s);
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->lines, 2, "two lines (no empty third one)");
	TAP_CHECK(sp && !strcmp(sp->rule, "bad-page-map") && sp->nlines == 1 && sp->seq == 1,
		  "the second line is the splat, with the record's seq");
	pc_kmsg_scan_free(s);

	tap_diag("\\xNN is undone before matching; evidence shows non-printables as \\xNN");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 1, 1, 100, "-", NULL, "BUG: Bad \\x70age map in process a\\x5cb\\x01  pte:1");
	pc_kmsg_scan_finish(s);
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK(sp && !strcmp(sp->rule, "bad-page-map"), "an escaped letter still matches");
	TAP_CHECK(sp && !strcmp(sp->comm, "a\\b\\x01"),
		  "comm: backslash as is, byte 0x01 as \\x01 (got '%s')", sp ? sp->comm : "-");
	TAP_CHECK(sp && !strcmp(sp->lines[0], "BUG: Bad page map in process a\\b\\x01  pte:1"),
		  "the evidence line likewise");
	pc_kmsg_scan_free(s);
}

static void test_dictionary(void)
{
	struct pc_kmsg_scan *s;
	const char rec[] = "6,7,100,-;usb 1-1: new high-speed USB device number 2\n"
			   " SUBSYSTEM=usb\n"
			   " DEVICE=BUG: Bad page map in process x  pte:1\n";

	tap_diag("dictionary lines (leading space) are skipped, even when they look bad");
	pc_kmsg_scan_new(&s, defaults);
	TAP_CHECK_EQ(pc_kmsg_scan_record(s, rec, sizeof(rec) - 1), 0, "record accepted");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->lines, 1, "one line");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->dict_lines, 2, "two dictionary lines counted");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 0, "no splat");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->malformed, 0, "not malformed");
	pc_kmsg_scan_free(s);
}

static void test_lost(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_stats *st;

	tap_diag("a sequence gap is counted as lost records, with the first range");
	pc_kmsg_scan_new(&s, defaults);
	st = pc_kmsg_scan_stats(s);
	feed(s, 6, 100, 1, "-", NULL, "a");
	feed(s, 6, 101, 2, "-", NULL, "b");
	feed(s, 6, 105, 3, "-", NULL, "c");
	feed(s, 6, 110, 4, "-", NULL, "d");
	TAP_CHECK_EQ(st->lost_records, 7, "3 + 4 records lost");
	TAP_CHECK_EQ(st->lost_events, 2, "in two gaps");
	TAP_CHECK(st->have_lost_range && st->lost_first == 102 && st->lost_last == 104,
		  "first lost range 102-104");
	TAP_CHECK(st->have_seq && st->first_seq == 100 && st->last_seq == 110, "seq 100..110 seen");
	pc_kmsg_scan_free(s);

	tap_diag("EPIPE: counted once with the gap it explains");
	pc_kmsg_scan_new(&s, defaults);
	st = pc_kmsg_scan_stats(s);
	feed(s, 6, 100, 1, "-", NULL, "a");
	pc_kmsg_scan_lost(s, 0);
	feed(s, 6, 150, 2, "-", NULL, "b");
	pc_kmsg_scan_finish(s);
	TAP_CHECK(st->epipe == 1 && st->lost_events == 1 && st->lost_records == 49 &&
			  st->lost_unknown == 0 && st->lost_first == 101 && st->lost_last == 149,
		  "1 EPIPE, 1 loss event of 49 records (101-149)");
	pc_kmsg_scan_free(s);

	tap_diag("EPIPE with nothing to measure it (first read, or last): unknown size");
	pc_kmsg_scan_new(&s, defaults);
	st = pc_kmsg_scan_stats(s);
	pc_kmsg_scan_lost(s, 0);
	feed(s, 6, 500, 1, "-", NULL, "a");
	pc_kmsg_scan_lost(s, 0);
	pc_kmsg_scan_finish(s);
	TAP_CHECK(st->epipe == 2 && st->lost_events == 2 && st->lost_unknown == 2 &&
			  st->lost_records == 0 && !st->have_lost_range,
		  "2 EPIPEs, 2 losses of unknown size, no range");
	pc_kmsg_scan_free(s);
}

static void test_malformed(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *sp;
	const char *bad[] = {"garbage without a header\n", "6,abc,1,-;x\n", "6,1,2;no flags\n",
			     "6,1,2,-\n", "BUG: Bad page map in process x  pte:1\n"};
	size_t i;

	tap_diag("malformed records are counted and kept as lines, and still matched");
	pc_kmsg_scan_new(&s, defaults);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TAP_CHECK_EQ(pc_kmsg_scan_record(s, bad[i], strlen(bad[i])), 0, "accepted: %.*s",
			     (int)strcspn(bad[i], "\n"), bad[i]);
	TAP_CHECK_EQ(pc_kmsg_scan_record(s, "", 0), 0, "an empty record is accepted");
	pc_kmsg_scan_finish(s);
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->malformed, 6, "six malformed");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->lines, 6, "six lines");
	TAP_CHECK(sp && !strcmp(sp->rule, "bad-page-map") && sp->level == -1,
		  "a headerless fail line is a splat, level -1");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->have_seq, 0, "no seq from malformed records");
	pc_kmsg_scan_free(s);
}

static void test_user_records(void)
{
	struct pc_kmsg_scan *s;

	tap_diag("records written by user space (facility != 0) are never blamed");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, (1 << 3) | 1, 1, 100, "-", NULL, "BUG: Bad page map in process fake  pte:1");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 0, "no splat");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->user_records, 1, "counted as a user record");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->last_seq, 1, "its seq still counts");
	pc_kmsg_scan_free(s);

	tap_diag("... unless asked to (a test injecting a splat, a relaying harness)");
	pc_kmsg_scan_new(&s, defaults);
	pc_kmsg_scan_match_user(s, 1);
	feed(s, (1 << 3) | 4, 1, 100, "-", NULL, "BUG: Bad page map in process fake  pte:1");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "a user record is judged when asked");
	pc_kmsg_scan_free(s);
}

/* ---- callers, caps ------------------------------------------------------ */

static void test_callers(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *sp;
	unsigned long long seq = 1;

	tap_diag("printk caller ids: another task's lines neither join nor end a splat");
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 1, seq++, 100, "-", "T4242", "BUG: Bad page map in process a.out  pte:1");
	feed(s, 6, seq++, 101, "-", "T1", "systemd[1]: Started session-3.scope.");
	feed(s, 1, seq++, 102, "-", "T4242", "addr:00007f3b9c400000 vm_flags:08100073");
	feed(s, 4, seq++, 103, "-", "T4242", "CPU: 3 UID: 0 PID: 4242 Comm: a.out Not tainted 7.2");
	feed(s, 6, seq++, 104, "-", "C1", "------------[ cut here ]------------");
	feed(s, 4, seq++, 105, "-", "T4242", " </TASK>");
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK(sp && sp->nlines == 4 && sp->closed && !strcmp(sp->caller, "T4242") &&
			  !has_line(sp, "systemd") && !has_line(sp, "------------[ cut"),
		  "the splat has its own 4 lines, closed at its </TASK>");
	feed(s, 4, seq++, 106, "-", "C1", "BUG: KASAN: use-after-free in zap_pte_range+0x1/0x2");
	pc_kmsg_scan_finish(s);
	sp = pc_kmsg_scan_splat(s, 1);
	TAP_CHECK(sp && !strcmp(sp->rule, "mm-sanitizer") && sp->nlines == 2 &&
			  !strcmp(sp->lines[0], "------------[ cut here ]------------"),
		  "CPU 1's report takes its own earlier line as leading line");
	TAP_CHECK(sp && sp->pid == -1, "no pid from a CPU caller id");
	pc_kmsg_scan_free(s);
}

static void test_caps(void)
{
	struct pc_kmsg_scan *s;
	const struct pc_kmsg_splat *sp;
	unsigned long long seq = 1;
	char line[64];
	int i;

	tap_diag("evidence is capped at %d lines a splat; the rest is counted",
		 PC_KMSG_SPLAT_MAX_LINES);
	pc_kmsg_scan_new(&s, defaults);
	feed(s, 1, seq++, 100, "-", NULL, "BUG: Bad page state in process a.out  pfn:107a4d");
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), " frame_%d+0x1/0x2", i);
		feed(s, 4, seq++, 100, "-", NULL, line);
	}
	feed(s, 4, seq++, 100, "-", NULL, " </TASK>");
	sp = pc_kmsg_scan_splat(s, 0);
	TAP_CHECK(sp && sp->nlines == PC_KMSG_SPLAT_MAX_LINES && sp->ncut == 102 - sp->nlines &&
			  sp->closed,
		  "64 kept, 38 counted as cut, closed at </TASK>");
	pc_kmsg_scan_free(s);

	tap_diag("splats past %d are counted, not stored", PC_KMSG_MAX_SPLATS);
	pc_kmsg_scan_new(&s, defaults);
	for (i = 0; i < PC_KMSG_MAX_SPLATS + 76; i++)
		feed(s, 1, seq++, 100, "-", NULL,
		     "BUG: non-zero pgtables_bytes on freeing mm: 4096");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), PC_KMSG_MAX_SPLATS, "%d stored", PC_KMSG_MAX_SPLATS);
	TAP_CHECK(pc_kmsg_scan_stats(s)->splats == PC_KMSG_MAX_SPLATS + 76 &&
			  pc_kmsg_scan_stats(s)->splats_dropped == 76,
		  "all counted, 76 as dropped");
	TAP_CHECK(pc_kmsg_scan_splat(s, PC_KMSG_MAX_SPLATS) == NULL, "index past the end: NULL");
	pc_kmsg_scan_free(s);
}

/* ---- reading ------------------------------------------------------------- */

static void test_drain(void)
{
	struct pc_kmsg_scan *s;
	int sv[2], fd, rc;
	const char *recs[] = {"6,1,10,-;one\n", "6,2,11,-;two\n",
			      "1,3,12,-;BUG: Bad page map in process x  pte:1\n"};
	size_t i;

	tap_diag("drain reads record by record until EAGAIN (a SOCK_SEQPACKET pair stands in)");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)) {
		tap_skip("socketpair: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 3; i++)
		if (write(sv[1], recs[i], strlen(recs[i])) < 0)
			tap_diag("write: %s", strerror(errno));
	pc_kmsg_scan_new(&s, defaults);
	rc = pc_kmsg_drain(sv[0], s);
	TAP_CHECK_EQ(rc, 0, "drain returns 0 at EAGAIN");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->records, 3, "three records read");
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "the splat is there before finish (live use)");
	TAP_CHECK(pc_kmsg_scan_splat(s, 0) && !pc_kmsg_scan_splat(s, 0)->closed,
		  "... still open: a live reader waits for closed");
	pc_kmsg_scan_finish(s);
	TAP_CHECK(pc_kmsg_scan_splat(s, 0) && pc_kmsg_scan_splat(s, 0)->closed, "finish closes it");
	close(sv[1]);
	TAP_CHECK_EQ(pc_kmsg_drain(sv[0], s), 0, "end of file: 0");
	close(sv[0]);
	pc_kmsg_scan_free(s);

	fd = pc_kmsg_open_at_end();
	if (fd < 0) {
		tap_skip("/dev/kmsg: %s", strerror(-fd));
		return;
	}
	pc_kmsg_scan_new(&s, defaults);
	TAP_CHECK_EQ(pc_kmsg_drain(fd, s), 0, "/dev/kmsg from its end: drain returns 0");
	TAP_CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "opened O_CLOEXEC");
	TAP_CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "opened O_NONBLOCK");
	close(fd);
	pc_kmsg_scan_free(s);
}

int main(void)
{
	char err[512] = "";

	tap_plan(0);
	if (pc_kmsg_rules_new(&defaults) ||
	    pc_kmsg_rules_load_default(defaults, err, sizeof(err))) {
		tap_result(0, "default rules load: %s", err);
		return tap_finish();
	}
	test_bad_page_map();
	test_bad_page_state();
	test_rss_counter();
	test_page_table_check();
	test_warn_mm();
	test_vm_bug_on_folio();
	test_oops();
	test_harmless();
	test_continuation();
	test_escapes();
	test_dictionary();
	test_lost();
	test_malformed();
	test_user_records();
	test_callers();
	test_caps();
	test_drain();
	pc_kmsg_rules_free(defaults);
	return tap_finish();
}
