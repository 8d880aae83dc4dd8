// SPDX-License-Identifier: GPL-2.0
/* ptecheck features: what the running kernel lets ptecheck check, and why not. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "calib.h"
#include "cli.h"
#include "cmd_features.h"
#include "hooks.h"
#include "probe.h"
#include "settings.h"
#include "tracefs.h"

static void line(const char *what, bool ok, const char *detail)
{
	printf("  %-34s %-5s %s\n", what, ok ? "yes" : "no", detail);
}

/* Kernel functions ptecheck can hook per path, in order of preference. */
static const struct {
	const char *path;
	const char *func;
	const char *why;
} hooks[] = {
	{"mremap", "move_page_tables", "per-call moved range at fexit"},
	{"mremap", "move_normal_pmd", "PMD-level moves"},
	{"batching", "folio_pte_batch", "per-batch nr (zap, fork, mlock)"},
	{"arm64 contpte", "contpte_get_and_clear_full_ptes", "mremap batch nr on arm64"},
	{"arm64 contpte", "contpte_set_ptes", "mremap batch nr on arm64"},
	{"arm64 contpte", "contpte_ptep_get", "access/dirty gathering"},
	{"filemap", "filemap_map_pages", "fault-around"},
	{"filemap", "set_pte_range", "fault-around batch nr"},
	{"filemap", "folio_add_file_rmap_ptes", "rmap batch nr"},
};

static const char *const tracepoints[] = {
	"syscalls/sys_enter_mremap",
	"syscalls/sys_exit_mremap",
	"tlb/tlb_flush",
	"filemap/mm_filemap_map_pages",
	"vmscan/mm_vmscan_lru_isolate",
	"migrate/set_migration_pte",
	"writeback/sb_mark_inode_writeback",
};

/* Marker functions of each batched path: present in BTF when it exists. */
static const struct {
	const char *path;
	const char *func;
	const char *absent;
} paths[] = {
	{"mremap PMD-level move (v4.20+)", "move_normal_pmd",
	 "move_normal_pmd not in BTF (inlined here, or before v4.20)"},
	{"folio-based fault-around (v6.4+)", "set_pte_range",
	 "set_pte_range absent: fault-around maps page by page"},
	{"batched file rmap", "folio_add_file_rmap_ptes",
	 "folio_add_file_rmap_ptes absent: no batched rmap"},
	{"arm64 contpte (v6.9+)", "contpte_ptep_get",
	 "contpte_ptep_get absent: not arm64, or no contpte support"},
	{"folio_pte_batch out of line", "folio_pte_batch",
	 "folio_pte_batch absent or inlined: batch sizes not observable"},
};

int pc_cmd_features(int argc, char **argv)
{
	struct pc_hook_choice choice[PC_HOOK__COUNT];
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {}};
	char reason[256], buf[128];
	struct pc_walk_calib calib;
	__u64 limit;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("Usage: ptecheck features\n\n"
			       "Shows what the running kernel lets ptecheck check: for every\n"
			       "hook, whether it works here and, when not, why.  Found by\n"
			       "probing (BTF look-ups, trial loads), never by version number.\n\n"
			       "Example:\n  sudo ptecheck features\n");
			return PC_EXIT_PASS;
		}
		return PC_EXIT_USAGE;
	}
	if (!pc_have_bpf_privilege()) {
		pc_err(0, "features needs root (CAP_BPF and CAP_PERFMON) to probe the kernel");
		return PC_EXIT_USAGE;
	}
	pc_tracefs_ensure();
	printf("ptecheck %s features of this kernel (%s build)\n\n", PTECHECK_VERSION,
	       PTECHECK_ARCH_NAME);
	printf("Basics:\n");
	line("kernel BTF", access("/sys/kernel/btf/vmlinux", R_OK) == 0, "/sys/kernel/btf/vmlinux");
	line("tracefs", access("/sys/kernel/tracing/events", F_OK) == 0, "/sys/kernel/tracing");
	line("PFNs in pagemap, kpageflags", access("/proc/kpageflags", R_OK) == 0,
	     "userspace oracles (root)");
	{
		enum pc_ptc_state ptc = pc_page_table_check(buf, sizeof(buf));
		int kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

		line("kernel log (/dev/kmsg)", kfd >= 0,
		     kfd >= 0 ? "check kernel-log" : "not readable: kernel-log skips");
		if (kfd >= 0)
			close(kfd);
		line("page_table_check", ptc == PC_PTC_ON, buf);
	}
	printf("\nTracepoints (tier kernel:syscall-walk and histograms):\n");
	for (size_t i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++)
		line(tracepoints[i], pc_tracepoint_exists(tracepoints[i]), "");
	c = pc_calibrate_walk(&calib, &limit, reason, sizeof(reason));
	line("page-table walk from BPF", c == 0, reason);
	printf("\nIn-kernel hooks (tiers kernel:fexit, kernel:kprobe):\n");
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		char what[80], kreason[256];
		int fe = pc_probe_fentry(hooks[i].func, reason, sizeof(reason));
		int kp = fe ? pc_probe_kprobe(hooks[i].func, kreason, sizeof(kreason)) : -1;

		snprintf(what, sizeof(what), "%s %s", hooks[i].path, hooks[i].func);
		if (fe == 0)
			line(what, true, reason);
		else if (kp == 0)
			line(what, true, kreason);
		else {
			char both[600];

			snprintf(both, sizeof(both), "%s; %s", reason, kreason);
			line(what, false, both);
		}
	}
	printf("\nmTHP sizes (anonymous):");
	for (unsigned int kb = 16; kb <= 2048; kb *= 2) {
		char path[128];

		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled", kb);
		if (pc_sysfs_choice(path, buf, sizeof(buf)) == 0)
			printf(" %ukB=%s", kb, buf);
	}
	printf("\n\nHook groups (chosen by trying: fentry/fexit, else kprobes):\n");
	pc_hooks_choose(choice);
	for (int g = 0; g < PC_HOOK__COUNT; g++)
		line(pc_hook_group_name(g), choice[g].mech != PC_MECH_NONE, choice[g].reason);
	printf("\nPaths this kernel has (BTF; absent = not in this kernel, or inlined):\n");
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		bool have = pc_kernel_has_func(paths[i].func);

		line(paths[i].path, have, have ? paths[i].func : paths[i].absent);
	}
	printf("\nChecks and the tiers each will use here:\n");
	printf("  mremap/moved, ad-bits, perms       oracle (pagemap, data-loss, COW)%s%s\n",
	       c == 0 ? " + kernel:syscall-walk" : "",
	       choice[PC_HOOK_MOVE_PAGE_TABLES].mech ? " + kernel:fexit (move_page_tables)" : "");
	printf("  mremap/pmd-move                    %s%s\n",
	       c == 0 ? "kernel:syscall-walk" : "skip: page-table walk unavailable",
	       choice[PC_HOOK_MOVE_PAGE_TABLES].mech ? " + kernel:fexit" : "");
	printf("  mremap/folio-intact                oracle:kpageflags\n");
	if (choice[PC_HOOK_CONTPTE_BATCH].mech)
		printf("  mremap/batch, per-batch ad-bits    %s (contpte_*)\n",
		       pc_hook_tier_name(choice[PC_HOOK_CONTPTE_BATCH].mech));
	else
		printf("  mremap/batch                       skip: %s\n",
		       choice[PC_HOOK_CONTPTE_BATCH].reason);
	printf("  filemap/batch-bounds, ptes-set     oracle (pagemap, sigbus, data)%s\n",
	       choice[PC_HOOK_FILEMAP].mech ? " + kernel (set_pte_range)" : "");
	printf("  filemap/rmap-count                 oracle:kpagecount%s\n",
	       choice[PC_HOOK_FILEMAP_RMAP].mech ? " + kernel (folio_add_file_rmap_ptes)" : "");
	printf("  filemap/rss-count                  oracle:status-rss\n");
	printf("  contpte/gather, fold, clear-young  %s\n",
	       choice[PC_HOOK_CONTPTE].mech ? "kernel:kprobe (contpte_*) + oracles"
	       : pc_kernel_has_func("contpte_ptep_get")
		       ? "oracles only (no kprobes here)"
		       : "skip: no contiguous PTEs in this kernel (arm64 only)");
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout)) {
		pc_err(errno, "cannot write to standard output");
		return PC_EXIT_ERROR;
	}
	return PC_EXIT_PASS;
}
