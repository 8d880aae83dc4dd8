// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
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
#include "probe.h"

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
