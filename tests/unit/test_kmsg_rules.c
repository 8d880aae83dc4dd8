// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the kernel-log check's rules (lib/kmsg_rules.c,
 * docs/kernel-log.md): the rule file parser and its errors, the rules
 * compiled in, every default rule on lines written from the kernel's own
 * format strings (Linux 7.2 mm/, kernel/, lib/, arch/ and older forms) and
 * on harmless look-alikes, and a user's rule file before the defaults.
 * The scanner is test_kmsg.c's.  Prints kselftest-style TAP; exits 0 if
 * all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kmsg.h"
#include "kmsg_feed.h"
#include "tap.h"

/* ---- the rule file format ------------------------------------------------ */

static void test_rule_format(void)
{
	struct pc_kmsg_rules *r;
	const char *name;
	char err[512];
	int rc;

	tap_diag("rule format: comments, blank lines, CR LF and trailing blanks; first match wins");
	pc_kmsg_rules_new(&r);
	rc = pc_kmsg_rules_add_text(r,
				    "# a comment\n"
				    "\n"
				    "   \t\n"
				    "  # an indented comment\n"
				    "ignore quiet-one ^BUG: one$  \r\n"
				    "fail any-bug\t \t^BUG: \n"
				    "fail trailing ^x[ ]$",
				    "t", err, sizeof(err));
	TAP_CHECK_EQ(rc, 0, "well-formed rules load (%s)", err);
	TAP_CHECK_EQ(pc_kmsg_rules_count(r), 3, "three rules, comments and blank lines skipped");
	TAP_CHECK_EQ(pc_kmsg_classify(r, "BUG: one", &name), PC_KMSG_IGNORE,
		     "the earlier ignore rule wins over a later fail rule");
	TAP_CHECK(name && !strcmp(name, "quiet-one"), "classify names the rule");
	TAP_CHECK_EQ(pc_kmsg_classify(r, "BUG: two", &name), PC_KMSG_FAIL,
		     "a line only the fail rule matches fails");
	TAP_CHECK(name && !strcmp(name, "any-bug"), "... named any-bug");
	TAP_CHECK_EQ(pc_kmsg_classify(r, "nothing", &name), PC_KMSG_NONE,
		     "a line no rule matches is neither");
	TAP_CHECK(name == NULL, "... and names no rule");
	TAP_CHECK_EQ(pc_kmsg_classify(r, "x ", NULL), PC_KMSG_FAIL,
		     "a trailing space is written [ ] (the last line has no newline)");
	pc_kmsg_rules_free(r);
}

static void check_bad_text(const char *text, const char *want_at, const char *want,
			   const char *what)
{
	struct pc_kmsg_rules *r;
	char err[512] = "";
	int rc;

	pc_kmsg_rules_new(&r);
	pc_kmsg_rules_add_text(r, "fail first ^a\n", "pre", err, sizeof(err));
	rc = pc_kmsg_rules_add_text(r, text, "rules.txt", err, sizeof(err));
	TAP_CHECK_EQ(rc, -EINVAL, "%s: rejected with -EINVAL", what);
	if (!tap_result(strncmp(err, want_at, strlen(want_at)) == 0 && strstr(err, want) != NULL,
			"%s: message names file:line and says '%s'", what, want))
		tap_diag("got: %s", err);
	TAP_CHECK_EQ(pc_kmsg_rules_count(r), 1, "%s: no rule of the bad text is kept", what);
	pc_kmsg_rules_free(r);
}

static void test_rule_errors(void)
{
	char path[] = "/tmp/test_kmsg_rules.XXXXXX", err[512], want[600];
	struct pc_kmsg_rules *r;
	int fd, rc;

	tap_diag("bad rule text: each error names origin:line and the reason; nothing is skipped");
	check_bad_text("fail ok ^a\n\nwarn x ^b\n", "rules.txt:3: ", "unknown verb 'warn'",
		       "unknown verb");
	check_bad_text("fail x (unclosed\n", "rules.txt:1: ", "bad regular expression '(unclosed'",
		       "bad regex");
	check_bad_text("# c\nfail x\n", "rules.txt:2: ", "missing regular expression",
		       "missing regex");
	check_bad_text("ignore   \n", "rules.txt:1: ", "missing rule name", "missing name");
	check_bad_text("fail Bad_Name ^x\n", "rules.txt:1: ", "bad rule name 'Bad_Name'",
		       "upper case and _ in a name");
	check_bad_text("fail a2345678901234567890123456789012 ^x\n",
		       "rules.txt:1: ", "bad rule name", "a 32-character name");

	tap_diag("bad rule file: the path is the origin");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "fail good ^x\nfail bad [z-a]\n", 28) != 28) {
		tap_skip("cannot write %s: %s", path, strerror(errno));
		return;
	}
	close(fd);
	pc_kmsg_rules_new(&r);
	rc = pc_kmsg_rules_add_file(r, path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: rule bad: bad regular expression '[z-a]': ", path);
	TAP_CHECK_EQ(rc, -EINVAL, "a file with a bad regex is rejected");
	if (!tap_result(!strncmp(err, want, strlen(want)) && strlen(err) > strlen(want),
			"the message is path:2: ... with regerror's text"))
		tap_diag("got: %s", err);
	TAP_CHECK_EQ(pc_kmsg_rules_count(r), 0, "no rule of the file is kept");
	unlink(path);
	rc = pc_kmsg_rules_add_file(r, path, err, sizeof(err));
	TAP_CHECK_EQ(rc, -ENOENT, "a missing file: -ENOENT");
	TAP_CHECK(strstr(err, path) != NULL, "... and the message names it (%s)", err);
	pc_kmsg_rules_free(r);
}

/* The rules compiled in are the bytes of data/kernel-log.patterns. */
static void test_embedded_defaults(void)
{
	char path[4096], *slash, buf[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s", __FILE__);
	slash = strstr(path, "/tests/unit/");
	if (path[0] != '/' || !slash) {
		tap_skip("no absolute source path in __FILE__ (%s)", __FILE__);
		return;
	}
	snprintf(slash, sizeof(path) - (slash - path), "/data/kernel-log.patterns");
	f = fopen(path, "r");
	if (!f) {
		tap_skip("%s: %s", path, strerror(errno));
		return;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	tap_diag("embedding: quotes, backslashes and newlines survive the generated C string");
	TAP_CHECK(strcmp(buf, pc_kmsg_default_rules) == 0,
		  "pc_kmsg_default_rules is byte-identical to %s (%zu bytes)", path, n);
	TAP_CHECK(strchr(pc_kmsg_default_rules, '\\') && strchr(pc_kmsg_default_rules, '"'),
		  "... which holds backslashes and double quotes");
}

/* ---- every default rule, on its kernel line and on look-alikes ----------- */

struct case_line {
	const char *line;
	int verdict;
	const char *rule;
};

static const struct case_line default_cases[] = {
	/* mm/memory.c print_bad_page_map() */
	{"BUG: Bad page map in process mremap_batch  pte:8000000107a4d867", PC_KMSG_FAIL,
	 "bad-page-map"},
	{"BUG: Bad page map in process a.out  pte:8000000107a4d867 pmd:10a3c3067", PC_KMSG_FAIL,
	 "bad-page-map"},
	{"BUG: Bad page map: 12 messages suppressed", PC_KMSG_FAIL, "bad-page-map"},
	/* mm/page_alloc.c bad_page(), mm/filemap.c */
	{"BUG: Bad page state in process kworker/u8:3  pfn:107a4d", PC_KMSG_FAIL, "bad-page-state"},
	{"BUG: Bad page state: 3 messages suppressed", PC_KMSG_FAIL, "bad-page-state"},
	{"BUG: Bad page cache in process a.out  pfn:107a4d", PC_KMSG_FAIL, "bad-page-cache"},
	/* kernel/fork.c check_mm() */
	{"BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_ANONPAGES val:-1 Comm:a.out "
	 "Pid:4242",
	 PC_KMSG_FAIL, "bad-rss-counter"},
	{"BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_FILEPAGES val:1", PC_KMSG_FAIL,
	 "bad-rss-counter"},
	{"BUG: non-zero pgtables_bytes on freeing mm: 4096", PC_KMSG_FAIL, "pgtables-bytes"},
	/* mm/page_table_check.c */
	{"kernel BUG at mm/page_table_check.c:83!", PC_KMSG_FAIL, "page-table-check"},
	{"WARNING: mm/page_table_check.c:206 at __page_table_check_ptes_set+0x7b/0xd0, CPU#0: "
	 "a.out/1",
	 PC_KMSG_FAIL, "page-table-check"},
	/* include/linux/mmdebug.h dumps */
	{"page dumped because: VM_BUG_ON_FOLIO(!folio_test_locked(folio))", PC_KMSG_FAIL,
	 "vm-debug-dump"},
	{"page dumped because: VM_WARN_ON_ONCE_FOLIO(folio_test_hugetlb(folio))", PC_KMSG_FAIL,
	 "vm-debug-dump"},
	{"vmg ffff888104c3fd80 dumped because: VM_WARN_ON_VMG(vmg->start >= vmg->end)",
	 PC_KMSG_FAIL, "vm-debug-dump"},
	/* mm/swapfile.c */
	{"get_swap_device: Bad swap file entry 3ffffffffffff", PC_KMSG_FAIL, "bad-swap-entry"},
	{"get_swap_device: Bad swap offset entry 0000a01f", PC_KMSG_FAIL, "bad-swap-entry"},
	{"swap_info_get: Bad swap offset entry 4000000000000001", PC_KMSG_FAIL, "bad-swap-entry"},
	{"swap_free: Unused swap offset entry 00000401", PC_KMSG_FAIL, "bad-swap-entry"},
	{"Bad swap file entry 3ffffffffffff", PC_KMSG_FAIL, "bad-swap-entry"},
	/* mm/kasan, mm/kfence, mm/slub.c, lib/list_debug.c */
	{"BUG: KASAN: slab-use-after-free in move_ptes+0x2f1/0x6a0", PC_KMSG_FAIL, "mm-sanitizer"},
	{"BUG: KFENCE: use-after-free read in zap_pte_range+0x5c4/0x9a0", PC_KMSG_FAIL,
	 "mm-sanitizer"},
	{"BUG kmalloc-64 (Tainted: G    B            ): Object already free", PC_KMSG_FAIL,
	 "slab-corruption"},
	{"BUG vm_area_struct (Not tainted): Poison overwritten", PC_KMSG_FAIL, "slab-corruption"},
	{"list_del corruption, ffff88810a3b0c08->next is LIST_POISON1 (dead000000000100)",
	 PC_KMSG_FAIL, "list-corruption"},
	{"list_add corruption. next->prev should be prev (ffff88810a3b0c08), but was "
	 "0000000000000000. (next=ffff88810a3b0c48).",
	 PC_KMSG_FAIL, "list-corruption"},
	/* kernel/panic.c __warn(): 7.2 and older forms, mm/ and arch/x/mm/ */
	{"WARNING: mm/rmap.c:1627 at folio_remove_rmap_ptes+0x1c5/0x1e0, CPU#1: a.out/4242",
	 PC_KMSG_FAIL, "warn-mm"},
	{"WARNING: CPU: 2 PID: 311 at mm/rmap.c:1405 page_remove_rmap+0x1e0/0x230", PC_KMSG_FAIL,
	 "warn-mm"},
	{"WARNING: at mm/mremap.c:212 move_ptes+0x1e0/0x230()", PC_KMSG_FAIL, "warn-mm"},
	{"WARNING: arch/arm64/mm/contpte.c:245 at contpte_set_ptes+0x8c/0x1a0, CPU#2: a.out/17",
	 PC_KMSG_FAIL, "warn-mm"},
	{"WARNING: CPU: 0 PID: 1 at arch/x86/mm/pat/memtype.c:1030 untrack_pfn+0x5c/0x110",
	 PC_KMSG_FAIL, "warn-mm"},
	{"WARNING: include/linux/rmap.h:139 at folio_add_file_rmap_ptes+0x9a/0xc0, CPU#0: a.out/1",
	 PC_KMSG_FAIL, "warn-mm-header"},
	{"WARNING: arch/x86/include/asm/pgtable.h:1200 at ptep_clear+0x1/0x10, CPU#0: a.out/1",
	 PC_KMSG_FAIL, "warn-mm-header"},
	/* kernel/sched/core.c __might_resched() in mm */
	{"BUG: sleeping function called from invalid context at mm/memory.c:6890", PC_KMSG_FAIL,
	 "sleep-in-atomic-mm"},
	{"BUG: sleeping function called from invalid context at include/linux/mmap_lock.h:367",
	 PC_KMSG_FAIL, "sleep-in-atomic-mm"},
	/* lib/bug.c, faults, oopses, panic */
	{"kernel BUG at mm/rmap.c:1514!", PC_KMSG_FAIL, "kernel-bug"},
	{"kernel BUG at fs/buffer.c:1234!", PC_KMSG_FAIL, "kernel-bug"},
	{"BUG: unable to handle page fault for address: ffffea0004000008", PC_KMSG_FAIL,
	 "kernel-fault"},
	{"BUG: kernel NULL pointer dereference, address: 0000000000000008", PC_KMSG_FAIL,
	 "kernel-fault"},
	{"BUG: unable to handle kernel paging request at ffffea0004000008", PC_KMSG_FAIL,
	 "kernel-fault"},
	{"Unable to handle kernel paging request at virtual address dead000000000108", PC_KMSG_FAIL,
	 "kernel-fault"},
	{"Oops: general protection fault, probably for non-canonical address 0xdead000000000100: "
	 "0000 [#1] SMP NOPTI",
	 PC_KMSG_FAIL, "oops"},
	{"Oops: invalid opcode: 0000 [#1] SMP NOPTI", PC_KMSG_FAIL, "oops"},
	{"invalid opcode: 0000 [#1] SMP PTI", PC_KMSG_FAIL, "oops"},
	{"general protection fault, probably for non-canonical address 0xdead000000000122: 0000 "
	 "[#1] SMP",
	 PC_KMSG_FAIL, "oops"},
	{"Internal error: Oops - BUG: 00000000f2000800 [#1]  SMP", PC_KMSG_FAIL, "oops"},
	{"Kernel panic - not syncing: Fatal exception", PC_KMSG_FAIL, "panic"},
	/* the W+X audit of kernel mappings is ignored */
	{"WARNING: arch/x86/mm/dump_pagetables.c:246 at note_page+0x6a8/0x6f0, CPU#0: swapper/0/1",
	 PC_KMSG_IGNORE, "wx-audit"},
	{"WARNING: CPU: 0 PID: 1 at arch/arm64/mm/ptdump.c:185 note_page+0x2b4/0x2f0",
	 PC_KMSG_IGNORE, "wx-audit"},
	/* harmless: WARNs outside mm, other BUG: reports, user-space faults, page words */
	{"WARNING: fs/ext4/inode.c:3958 at ext4_dirty_folio+0x3c/0x50, CPU#0: kworker/u8:1/54",
	 PC_KMSG_NONE, NULL},
	{"WARNING: CPU: 0 PID: 54 at drivers/gpu/drm/drm_atomic.c:123 "
	 "drm_atomic_check_only+0x1/0x2",
	 PC_KMSG_NONE, NULL},
	{"WARNING: drivers/mmc/core/core.c:12 at mmc_start_request+0x1/0x2, CPU#0: a/1",
	 PC_KMSG_NONE, NULL},
	{"WARNING: at move_ptes+0x2f1/0x6a0, CPU#1: a.out/42", PC_KMSG_NONE, NULL},
	{"WARNING: possible circular locking dependency detected", PC_KMSG_NONE, NULL},
	{"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a.out:123]", PC_KMSG_NONE, NULL},
	{"BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!", PC_KMSG_NONE,
	 NULL},
	{"BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580",
	 PC_KMSG_NONE, NULL},
	{"Freeing unused kernel image (initmem) memory: 4096K", PC_KMSG_NONE, NULL},
	{"x86/mm: Checked W+X mappings: passed, no W+X pages found.", PC_KMSG_NONE, NULL},
	{"Memory: 2014612K/2096632K available (18432K kernel code, 3164K rwdata, 12032K rodata)",
	 PC_KMSG_NONE, NULL},
	{"Adding 1048572k swap on /dev/zram0.  Priority:100 extents:1 across:1048572k SS",
	 PC_KMSG_NONE, NULL},
	{"a.out[4321]: segfault at 8 ip 000055d5c4a3b1a9 sp 00007ffc8c8b6f30 error 4 in "
	 "a.out[11a9,55d5c4a3a000+1000] likely on CPU 1 (core 1, socket 0)",
	 PC_KMSG_NONE, NULL},
	{"traps: a.out[4322] general protection fault ip:55d5c4a3b1b0 sp:7ffc8c8b6f30 error:0 in "
	 "a.out[11b0,55d5c4a3a000+1000]",
	 PC_KMSG_NONE, NULL},
	{"Out of memory: Killed process 4323 (a.out) total-vm:4198400kB, anon-rss:2097152kB",
	 PC_KMSG_NONE, NULL},
	{"a.out: page allocation failure: order:9, mode:0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
	 "nodemask=(null)",
	 PC_KMSG_NONE, NULL},
	{"page dumped because: nonzero mapcount", PC_KMSG_NONE, NULL},
	{"page dumped because: bad page map", PC_KMSG_NONE, NULL},
	{"ptecheck: this run expects no BUG: Bad page map", PC_KMSG_NONE, NULL},
	{"Memory failure: 0x107a4d: recovery action for clean LRU page: Recovered", PC_KMSG_NONE,
	 NULL},
	{"EXT4-fs (loop0): mounted filesystem r/w with ordered data mode. Quota mode: none.",
	 PC_KMSG_NONE, NULL},
};

static void test_default_rules(void)
{
	struct pc_kmsg_rules *r;
	char err[512] = "";
	size_t i;

	tap_diag("default rules: each fails on its kernel line; harmless look-alikes do not");
	pc_kmsg_rules_new(&r);
	TAP_CHECK_EQ(pc_kmsg_rules_load_default(r, err, sizeof(err)), 0,
		     "the default rules compile (%s)", err);
	TAP_CHECK(pc_kmsg_rules_count(r) >= 20, "%zu default rules", pc_kmsg_rules_count(r));
	for (i = 0; i < sizeof(default_cases) / sizeof(default_cases[0]); i++) {
		const struct case_line *c = &default_cases[i];
		const char *name = NULL;
		int v = pc_kmsg_classify(r, c->line, &name);
		int ok = v == c->verdict && (c->rule ? name && !strcmp(name, c->rule) : !name);

		if (!tap_result(ok, "%s: %.60s", c->rule ? c->rule : "none", c->line))
			tap_diag("verdict %d rule %s, expected %d %s", v, name ? name : "-",
				 c->verdict, c->rule ? c->rule : "-");
	}
	pc_kmsg_rules_free(r);
}

/* ---- a user's rules before the defaults --------------------------------- */

static void test_user_rules(void)
{
	char path[] = "/tmp/test_kmsg_user.XXXXXX", err[512] = "";
	struct pc_kmsg_rules *r;
	struct pc_kmsg_scan *s;
	struct feeder f = {.seq = 1, .ts = 100, .prio = 1};
	const char *name;
	int fd;

	tap_diag("a user rule file loaded before the defaults can ignore a default fail");
	fd = mkstemp(path);
	if (fd < 0 || dprintf(fd, "# known on this kernel\nignore known-rss ^BUG: Bad "
				  "rss-counter state .* type:MM_SWAPENTS\n") < 0) {
		tap_skip("cannot write %s", path);
		return;
	}
	close(fd);
	pc_kmsg_rules_new(&r);
	TAP_CHECK_EQ(pc_kmsg_rules_add_file(r, path, err, sizeof(err)), 0, "user file loads (%s)",
		     err);
	TAP_CHECK_EQ(pc_kmsg_rules_load_default(r, err, sizeof(err)), 0, "then the defaults");
	TAP_CHECK_EQ(pc_kmsg_classify(r,
				      "BUG: Bad rss-counter state mm:00000000b4a1c2d3 "
				      "type:MM_SWAPENTS val:1",
				      &name),
		     PC_KMSG_IGNORE, "the user's ignore wins");
	TAP_CHECK(name && !strcmp(name, "known-rss"), "... by its name");
	pc_kmsg_scan_new(&s, r);
	f.s = s;
	feed_text(&f, "BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_SWAPENTS val:1\n"
		      "BUG: Bad rss-counter state mm:00000000b4a1c2d3 type:MM_ANONPAGES val:-1\n");
	pc_kmsg_scan_finish(s);
	TAP_CHECK_EQ(pc_kmsg_scan_nsplats(s), 1, "only the other counter is a splat");
	TAP_CHECK_EQ(pc_kmsg_scan_stats(s)->ignored, 1, "one line ignored");
	pc_kmsg_scan_free(s);
	pc_kmsg_rules_free(r);
	unlink(path);
}

int main(void)
{
	tap_plan(0);
	test_rule_format();
	test_rule_errors();
	test_embedded_defaults();
	test_default_rules();
	test_user_rules();
	return tap_finish();
}
