// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "hooks.h"
#include "probe.h"
#include "session.h"
#include "settings.h"
#include "tracefs.h"

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();
		if (!btf)
			btf = NULL;
	}
	return btf;
}

/*
 * Loads an empty fentry or fexit program on func and attaches it: the
 * load tells whether BTF and lockdown allow it (and whether the trampoline
 * accepts the prototype: struct returns are refused), the attach whether
 * the architecture can build the trampoline (struct arguments).
 */
int pc_probe_tracing(const char *func, bool fexit, char *reason, size_t len)
{
	struct bpf_insn insns[2] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	const char *kind = fexit ? "fexit" : "fentry";
	struct btf *btf = vmlinux_btf();
	int id, fd, link, err;

	if (!btf) {
		snprintf(reason, len, "no kernel BTF (/sys/kernel/btf/vmlinux)");
		return -ENOENT;
	}
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(reason, len, "%s not in BTF: absent or inlined in this kernel", func);
		return -ENOENT;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pc_probe", "GPL", insns, 2, &opts);
	if (fd < 0) {
		err = -errno;
		snprintf(reason, len, "%s on %s refused: %s%s", kind, func, strerror(errno),
			 errno == EPERM ? " (lockdown or missing capability)" : "");
		return err;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		err = -errno;
		close(fd);
		/* 524 is the kernel's internal ENOTSUPP, which libc cannot name. */
		snprintf(reason, len, "%s on %s loads but does not attach: %s", kind, func,
			 err == -524 ? "not supported by this kernel's BPF trampoline (ENOTSUPP)"
				     : strerror(-err));
		return err;
	}
	close(link);
	close(fd);
	snprintf(reason, len, "%s on %s", kind, func);
	return 0;
}

int pc_probe_fentry(const char *func, char *reason, size_t len)
{
	return pc_probe_tracing(func, false, reason, len);
}

bool pc_kernel_has_func(const char *func)
{
	return vmlinux_btf() && btf__find_by_name_kind(vmlinux_btf(), func, BTF_KIND_FUNC) >= 0;
}

/* The struct btf of the running kernel, NULL when it has none. */
const struct btf *pc_vmlinux_btf(void)
{
	return vmlinux_btf();
}

int pc_probe_kprobe(const char *func, char *reason, size_t len)
{
	char line[512];
	bool found = false;
	FILE *f;

	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) != 0) {
		snprintf(reason, len, "kprobes not built into this kernel (no kprobe PMU)");
		return -ENOENT;
	}
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		snprintf(reason, len, "/proc/kallsyms: %s", strerror(errno));
		return -errno;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, ' ');

		if (name && strcmp(name + 1, func) == 0)
			found = true;
		else if (name) {
			size_t n = strlen(func);

			found = strncmp(name + 1, func, n) == 0 && name[1 + n] == '\n';
		}
	}
	fclose(f);
	if (!found) {
		snprintf(reason, len, "%s not in kallsyms: inlined or absent", func);
		return -ENOENT;
	}
	snprintf(reason, len, "kprobe on %s", func);
	return 0;
}

bool pc_have_bpf_privilege(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	/* CAP_BPF = 39, CAP_PERFMON = 38: both in the second word. */
	return (data[1].effective & (1U << (39 - 32))) && (data[1].effective & (1U << (38 - 32)));
}

/* "y", "on", "1" (kstrtobool's true) or false words; -1 if neither. */
static int cmdline_bool(const char *name)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	int v = -1;

	if (f)
		fclose(f);
	buf[n] = 0;
	for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n")) {
		size_t len = strlen(name);

		if (strncmp(p, name, len) || p[len] != '=')
			continue;
		p += len + 1;
		if (!strcmp(p, "on") || *p == 'y' || *p == 'Y' || *p == '1')
			v = 1;
		else if (!strcmp(p, "off") || *p == 'n' || *p == 'N' || *p == '0')
			v = 0;
	}
	return v;
}

/* 1 if the kernel config has "opt=y", 0 if not, -1 if no config is readable
   (/proc/config.gz, or /boot/config-RELEASE; gzread reads both). */
static int config_has(const char *opt)
{
	char path[256], line[256];
	struct utsname u;
	gzFile f = gzopen("/proc/config.gz", "rb");
	int found = 0;

	if (!f && uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "rb");
	}
	if (!f)
		return -1;
	while (gzgets(f, line, sizeof(line))) {
		size_t n = strlen(opt);

		if (!strncmp(line, opt, n) && line[n] == '=' && line[n + 1] == 'y')
			found = 1;
	}
	gzclose(f);
	return found;
}

enum pc_ptc_state pc_page_table_check(char *detail, size_t len)
{
	int param, enforced;

	if (!pc_kernel_has_func("__page_table_check_zero")) {
		snprintf(detail, len, "not built (CONFIG_PAGE_TABLE_CHECK)");
		return PC_PTC_NOT_BUILT;
	}
	param = cmdline_bool("page_table_check");
	if (param >= 0) {
		snprintf(detail, len, "%s (page_table_check=%s at boot)", param ? "on" : "off",
			 param ? "on" : "off");
		return param ? PC_PTC_ON : PC_PTC_OFF;
	}
	enforced = config_has("CONFIG_PAGE_TABLE_CHECK_ENFORCED");
	if (enforced < 0) {
		snprintf(detail, len,
			 "built in; on only if CONFIG_PAGE_TABLE_CHECK_ENFORCED (config not "
			 "readable): boot with page_table_check=on to be sure");
		return PC_PTC_UNKNOWN;
	}
	if (enforced) {
		snprintf(detail, len, "on (CONFIG_PAGE_TABLE_CHECK_ENFORCED)");
		return PC_PTC_ON;
	}
	snprintf(detail, len, "built in, off: boot with page_table_check=on");
	return PC_PTC_OFF;
}

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
