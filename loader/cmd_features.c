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
#include "probe.h"
#include "load.h"
#include "session.h"
#include "sessions.h"
#include "settings.h"
#include "tracefs.h"

static void line(const char *what, bool ok, const char *detail)
{
	printf("  %-34s %-5s %s\n", what, ok ? "yes" : "no", detail);
}

/* "checks  tiers": the line of `Checks and the tiers each will use here`. */
static void tiers_line(const char *checks, const char *tiers)
{
	printf("  %-34s %s\n", checks, tiers);
}

/* A sample of the disturbance sources (include/ptecheck/disturb.h). */
static const char *const disturbance_tracepoints[] = {
	"vmscan/mm_vmscan_lru_isolate",
	"migrate/set_migration_pte",
	"writeback/sb_mark_inode_writeback",
};

/* A function a path hooks: fentry here, else a kprobe, else why neither. */
static void hook_line(const struct pc_feature_hook *h)
{
	char what[80], reason[256], kreason[256], both[600];
	int fe = pc_probe_fentry(h->func, reason, sizeof(reason));
	int kp = fe ? pc_probe_kprobe(h->func, kreason, sizeof(kreason)) : -1;

	snprintf(what, sizeof(what), "%s %s", h->label, h->func);
	if (fe == 0) {
		line(what, true, reason);
	} else if (kp == 0) {
		line(what, true, kreason);
	} else {
		snprintf(both, sizeof(both), "%s; %s", reason, kreason);
		line(what, false, both);
	}
}

static void basics(void)
{
	enum pc_ptc_state ptc;
	char buf[128];
	int kfd;

	printf("Basics:\n");
	line("kernel BTF", access("/sys/kernel/btf/vmlinux", R_OK) == 0, "/sys/kernel/btf/vmlinux");
	line("tracefs", access("/sys/kernel/tracing/events", F_OK) == 0, "/sys/kernel/tracing");
	line("PFNs in pagemap, kpageflags", access("/proc/kpageflags", R_OK) == 0,
	     "userspace oracles (root)");
	ptc = pc_page_table_check(buf, sizeof(buf));
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	line("kernel log (/dev/kmsg)", kfd >= 0,
	     kfd >= 0 ? "check kernel-log" : "not readable: kernel-log skips");
	if (kfd >= 0)
		close(kfd);
	line("page_table_check", ptc == PC_PTC_ON, buf);
}

static void mthp_sizes(void)
{
	char buf[128];

	printf("\nmTHP sizes (anonymous):");
	for (unsigned int kb = 16; kb <= 2048; kb *= 2) {
		char path[128];

		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled", kb);
		if (pc_sysfs_choice(path, buf, sizeof(buf)) == 0)
			printf(" %ukB=%s", kb, buf);
	}
	printf("\n");
}

/* The largest program of s: its index in s->costs, -1 when none. */
static int largest(const struct pc_session *s)
{
	int big = -1;

	for (int i = 0; i < s->n_costs; i++)
		if (big < 0 || s->costs[i].verified_insns > s->costs[big].verified_insns)
			big = i;
	return big;
}

/* One command's session, test-loaded and attached as the command does,
   then closed: yes only where every program loaded (its figures against
   the budget), else each refusal; -v: every program's instructions. */
static void object_line(const struct pc_command_session *c, struct pc_session *s, bool verbose)
{
	struct pc_session_opts so = c->so;
	char detail[400];
	int big;
	bool over, slow;

	pc_session_open(s, &so);
	big = largest(s);
	over = big >= 0 && s->costs[big].verified_insns > PC_VERIFY_BUDGET_INSNS;
	/* A wall time: a busy machine (or TCG) stretches it, so it is said
	   apart from the instructions, the verifier's work itself. */
	slow = s->load_ms + s->attach_ms > PC_LOAD_BUDGET_MS;
	if (s->loaded && !s->n_refused)
		snprintf(detail, sizeof(detail),
			 "%d programs, the largest %s: %u instructions verified (budget %d)%s; "
			 "load %.1f ms, attach %.1f ms (budget %.0f ms)%s",
			 s->n_costs, big >= 0 ? s->costs[big].name : "-",
			 big >= 0 ? s->costs[big].verified_insns : 0, PC_VERIFY_BUDGET_INSNS,
			 over ? ": OVER BUDGET" : "", s->load_ms, s->attach_ms, PC_LOAD_BUDGET_MS,
			 slow ? ": slower than the budget" : "");
	else
		snprintf(detail, sizeof(detail), "%s",
			 s->n_refused ? s->refused[0].line : s->load_error);
	line(c->command, s->loaded && !s->n_refused, detail);
	for (int i = 1; i < s->n_refused; i++)
		line("", false, s->refused[i].line);
	for (int i = 0; verbose && i < s->n_costs; i++)
		printf("      %-40s %7u\n", s->costs[i].name, s->costs[i].verified_insns);
	pc_session_close(s);
}

/* Every command's tracing object; run's session stays for the tiers.
   True when the kernel refused a program of ptecheck's own. */
static bool tracing_objects(struct pc_session *run, bool verbose)
{
	static struct pc_session other; /* large: not on the stack, as run */
	bool refused = false;

	printf("\nTracing object (loaded as each command loads it%s):\n",
	       verbose ? "; each program's instructions verified" : "");
	for (int i = 0; i < pc_n_command_sessions; i++) {
		struct pc_session *s = strcmp(pc_command_sessions[i].command, "run") ? &other : run;

		object_line(&pc_command_sessions[i], s, verbose);
		refused = refused || pc_session_refused(s);
	}
	return refused;
}

/* A path's presence line from data: in this kernel when its function is (BTF). */
static void oracle_path_line(const struct pc_oracle_features *o)
{
	char absent[96];
	bool have = pc_kernel_has_func(o->func);

	snprintf(absent, sizeof(absent), "%s absent from BTF", o->func);
	line(o->label, have, have ? o->have : absent);
}

/* Every section after Basics: tracepoints and walk, the tracing object,
   hooks, then per path; true when a program of ptecheck's was refused. */
static bool kernel_sections(bool verbose)
{
	struct pc_hook_choice choice[PC_N_TRACE_PATHS][PC_PATH_GROUPS];
	struct pc_features f[PC_N_TRACE_PATHS];
	static struct pc_session run; /* large: not on the stack */
	struct pc_walk_calib calib;
	char reason[256];
	bool walk, refused;
	__u64 limit;

	printf("\nTracepoints (tier kernel:syscall-walk and histograms):\n");
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		for (const char *const *tp = pc_trace_paths[k]->tracepoints; tp && *tp; tp++)
			line(*tp, pc_tracepoint_exists(*tp), "");
	for (size_t i = 0; i < sizeof(disturbance_tracepoints) / sizeof(*disturbance_tracepoints);
	     i++)
		line(disturbance_tracepoints[i], pc_tracepoint_exists(disturbance_tracepoints[i]),
		     "");
	walk = pc_calibrate_walk(&calib, &limit, reason, sizeof(reason)) == 0;
	line("page-table walk from BPF", walk, reason);
	refused = tracing_objects(&run, verbose);
	/* A part the kernel refused is no tier here. */
	walk = walk && !run.load_refused && !pc_load_sys_refused(&run, PC_SYS_MREMAP);
	printf("\nIn-kernel hooks (tiers kernel:fexit, kernel:kprobe):\n");
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		for (int i = 0; i < pc_trace_paths[k]->n_feature_hooks; i++)
			hook_line(&pc_trace_paths[k]->feature_hooks[i]);
	mthp_sizes();
	printf("\nHook groups (chosen by trying: fentry/fexit, else kprobes):\n");
	for (int k = 0; k < PC_N_TRACE_PATHS; k++) {
		const struct pc_trace_path *p = pc_trace_paths[k];

		/* As run's session chose and loaded them. */
		memcpy(choice[k], run.hooks[k], sizeof(choice[k]));
		for (int g = 0; g < p->n_groups; g++) {
			if (run.load_refused) {
				choice[k][g].mech = PC_MECH_NONE;
				snprintf(choice[k][g].reason, sizeof(choice[k][g].reason), "%s",
					 run.load_error);
			}
			line(p->groups[g].name, choice[k][g].mech != PC_MECH_NONE,
			     choice[k][g].reason);
		}
		f[k] = (struct pc_features){walk, &run, &calib, choice[k], line, tiers_line};
	}
	printf("\nPaths this kernel has (BTF; absent = not in this kernel, or inlined):\n");
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		if (pc_trace_paths[k]->feature_paths)
			pc_trace_paths[k]->feature_paths(&f[k]);
		else
			oracle_path_line(pc_trace_paths[k]->oracle);
	printf("\nChecks and the tiers each will use here:\n");
	for (int k = 0; k < PC_N_TRACE_PATHS; k++)
		if (pc_trace_paths[k]->feature_tiers)
			pc_trace_paths[k]->feature_tiers(&f[k]);
		else
			tiers_line(pc_trace_paths[k]->oracle->checks,
				   pc_trace_paths[k]->oracle->tiers);
	return refused;
}

int pc_cmd_features(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'}, {"verbose", no_argument, NULL, 'v'}, {}};
	bool verbose = false, refused;
	int c;

	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (c == 'v') {
			verbose = true;
			continue;
		}
		if (c == 'h') {
			printf("Usage: ptecheck features [-v]\n\n"
			       "Shows what the running kernel lets ptecheck check: for every\n"
			       "hook, whether it works here and, when not, why.  Found by\n"
			       "probing (BTF look-ups, trial loads), never by version number.\n"
			       "The tracing object is loaded as run, watch, hist and export load\n"
			       "it: a program the kernel refuses is named, and exits 3.\n\n"
			       "  -v, --verbose  each program's instructions verified\n\n"
			       "Exit: 0 everything loaded, 2 usage or no privilege, 3 the kernel\n"
			       "refused a program of ptecheck's own.\n\n"
			       "Example:\n  sudo ptecheck features -v\n");
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
	basics();
	refused = kernel_sections(verbose);
	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout)) {
		pc_err(errno, "cannot write to standard output");
		return PC_EXIT_ERROR;
	}
	return refused ? PC_EXIT_ERROR : PC_EXIT_PASS;
}
