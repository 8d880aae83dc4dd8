// SPDX-License-Identifier: GPL-2.0
/*
 * ptecheck run --stress: starting and stopping the stressors (see
 * stress.h; their work is in stress_loads.c, the zram swap in
 * stress_zram.c).  Each is a forked child working only on its own memory;
 * what it does and how often is counted in a shared page the parent reads
 * after killing it, so the counts survive SIGKILL.  A stressor that cannot
 * work here says why (in the parent before forking, or in its slot) and
 * is reported as skipped, never silently absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "settings.h"
#include "stress_int.h"

struct stressor {
	const char *name;
	const char *comm; /* PC_STRESS_COMM_PREFIX + short name, <= 15 chars */
	void (*fn)(struct stress_slot *slot);
	pid_t pid;
	int status;	 /* wait status once reaped */
	bool died_early; /* exited before we killed it */
	char skip[200];	 /* why it was not started (parent side) */
};

enum { S_RECLAIM, S_COMPACT, S_COLLAPSE, S_MIGRATE, S_FORKEXIT, S_MPROTECT, S_TOUCH, S__COUNT };

static struct stressor stressors[S__COUNT] = {
	[S_RECLAIM] = {"reclaim", PC_STRESS_COMM_PREFIX "reclaim", stress_reclaim},
	[S_COMPACT] = {"compaction", PC_STRESS_COMM_PREFIX "compact", stress_compact},
	[S_COLLAPSE] = {"collapse", PC_STRESS_COMM_PREFIX "collapse", stress_collapse},
	[S_MIGRATE] = {"migration", PC_STRESS_COMM_PREFIX "migrate", stress_migrate},
	[S_FORKEXIT] = {"fork-exit", PC_STRESS_COMM_PREFIX "forkexit", stress_forkexit},
	[S_MPROTECT] = {"mprotect-munmap", PC_STRESS_COMM_PREFIX "mprotect", stress_mprotect},
	[S_TOUCH] = {"touch", PC_STRESS_COMM_PREFIX "touch", stress_touch},
};

struct stress_env stress_env = {.numa_from = -1, .numa_to = -1};
static struct stress_slot *slots;
static pid_t group;
static bool started;

/* ---- start and stop ---------------------------------------------------- */

/* First two nodes with memory, from a list like "0-1,3". */
static int numa_nodes(int *a, int *b)
{
	char buf[256], *s, *save = NULL;
	int n = 0, first = -1, second = -1;

	if (pc_read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)))
		return 1; /* no NUMA sysfs: one node */
	for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		int lo, hi;

		if (sscanf(s, "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(s);
		for (int k = lo; k <= hi && k < 1024; k++, n++) {
			if (first < 0)
				first = k;
			else if (second < 0)
				second = k;
		}
	}
	*a = first;
	*b = second;
	return n;
}

/* Kill the group, then every pid we know, and reap.  Async-signal-safe. */
static void kill_and_reap(void)
{
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];

		if (st->pid > 0 && waitpid(st->pid, &st->status, WNOHANG) == st->pid) {
			st->died_early = true;
			st->pid = -st->pid; /* reaped */
		}
	}
	if (group > 0)
		kill(-group, SIGKILL);
	for (int i = 0; i < S__COUNT; i++)
		if (stressors[i].pid > 0)
			kill(stressors[i].pid, SIGKILL);
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];

		if (st->pid <= 0)
			continue;
		while (waitpid(st->pid, &st->status, 0) < 0 && errno == EINTR)
			;
		st->pid = -st->pid;
	}
	group = 0;
}

/* Every exit path that is not pc_stress_stop(): atexit, fatal signals. */
static int stress_undo(void)
{
	if (getpid() != stress_env.parent_pid)
		return 0;
	kill_and_reap();
	return stress_zram_stop();
}

int pc_stress_start(const struct pc_stress_opts *o, struct pc_report *r)
{
	int n_nodes, n_started = 0, err;

	if (started)
		return -EBUSY;
	stress_env.opts = *o;
	if (!stress_env.opts.scale)
		stress_env.opts.scale = 1;
	stress_env.page_size = (size_t)sysconf(_SC_PAGESIZE);
	stress_env.parent_pid = getpid();
	slots = mmap(NULL, sizeof(*slots) * S__COUNT, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		err = -errno;
		slots = NULL;
		pc_report_note(r, "stress: cannot map the counters: %s", strerror(-err));
		return err;
	}
	/* Before anything exists to undo, so that no exit path misses it. */
	err = pc_settings_add_undo(stress_undo);
	if (err) {
		pc_report_note(r, "stress: cannot register the cleanup: %s", strerror(-err));
		munmap(slots, sizeof(*slots) * S__COUNT);
		slots = NULL;
		return err;
	}
	stress_zram_start(stress_scaled(128 * MIB));
	if (access(STRESS_COMPACT_PATH, W_OK))
		snprintf(stressors[S_COMPACT].skip, sizeof(stressors[S_COMPACT].skip),
			 "cannot write %s: %s (no CONFIG_COMPACTION?)", STRESS_COMPACT_PATH,
			 strerror(errno));
	n_nodes = numa_nodes(&stress_env.numa_from, &stress_env.numa_to);
	if (n_nodes < 2)
		snprintf(stressors[S_MIGRATE].skip, sizeof(stressors[S_MIGRATE].skip),
			 "only one NUMA node with memory: no other node to migrate to "
			 "(move_pages/mbind to the same node would be a no-op)");
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];
		pid_t pid;

		st->pid = 0;
		st->died_early = false;
		if (st->skip[0])
			continue;
		fflush(NULL); /* no buffered output is written twice */
		pid = fork();
		if (pid < 0) {
			snprintf(st->skip, sizeof(st->skip), "fork: %s", strerror(errno));
			continue;
		}
		if (pid == 0) {
			/* Their own group: a terminal's Ctrl-C reaches ptecheck only,
			   which stops them; one kill(-group) ends them all. */
			setpgid(0, group);
			stress_child_init(st->comm);
			st->fn(&slots[i]);
			_exit(0);
		}
		setpgid(pid, group); /* both sides, whichever runs first */
		if (!group)
			group = pid;
		st->pid = pid;
		n_started++;
	}
	started = true;
	if (!n_started) {
		pc_stress_stop(r);
		return -ENOEXEC;
	}
	return 0;
}

/* What a stressor did, for the note. */
static void describe(int i, char *buf, size_t len)
{
	const struct stress_slot *sl = &slots[i];
	unsigned long long it = sl->iterations, e0 = sl->extra[0], e1 = sl->extra[1];
	size_t pmd_mib = stress_pmd_size() / MIB;

	switch (i) {
	case S_RECLAIM:
		snprintf(buf, len,
			 "%llu MADV_PAGEOUT passes over %zu MiB anonymous (mTHP) and %zu MiB "
			 "file memory (in %s), %s; writer threads: %llu + %llu passes",
			 it, stress_scaled(64 * MIB) / MIB, stress_scaled(16 * MIB) / MIB,
			 stress_env.opts.file_dir,
			 stress_zram_was_on() ? "swapping to zram" : "no zram swap", e0, e1);
		break;
	case S_COMPACT:
		snprintf(buf, len, "%llu writes of 1 to %s", it, STRESS_COMPACT_PATH);
		break;
	case S_COLLAPSE:
		snprintf(buf, len,
			 "%llu MADV_COLLAPSE calls on %zu MiB ranges, %llu collapsed, each split "
			 "again by a 64 KiB hole; writer thread: %llu passes",
			 it, pmd_mib, e0, e1);
		break;
	case S_MIGRATE:
		snprintf(buf, len, "%llu migrate_pages between nodes %d and %d; writer: %llu", it,
			 stress_env.numa_from, stress_env.numa_to, e0);
		break;
	case S_FORKEXIT:
		snprintf(buf, len,
			 "%llu fork+exit of a %zu MiB mTHP process (each child writes a quarter)",
			 it, stress_scaled(8 * MIB) / MIB);
		break;
	case S_MPROTECT:
		snprintf(buf, len,
			 "%llu rounds of mprotect on a 64 KiB range and munmap+mmap of its "
			 "neighbour",
			 it);
		break;
	case S_TOUCH:
		snprintf(buf, len,
			 "%llu mremap moves of a %zu MiB range; 2 threads: %llu store and %llu "
			 "load passes over %zu MiB",
			 it,
			 ((stress_scaled(4 * MIB) + stress_pmd_size() - 1) &
			  ~(stress_pmd_size() - 1)) /
				 MIB,
			 e0, e1, stress_scaled(32 * MIB) / MIB);
		break;
	default:
		snprintf(buf, len, "%llu iterations", it);
	}
}

void pc_stress_stop(struct pc_report *r)
{
	char ran[400] = "", skipped[200] = "", what[300];
	size_t used = 0, sused = 0;
	int err;

	if (!started)
		return;
	kill_and_reap();
	err = stress_zram_stop();
	started = false;
	stress_zram_note(r, err);
	for (int i = 0; i < S__COUNT; i++) {
		struct stressor *st = &stressors[i];
		struct stress_slot *sl = &slots[i];

		sl->why[sizeof(sl->why) - 1] = 0;
		if (st->skip[0]) {
			pc_report_note(r, "stress: %s skipped: %s", st->name, st->skip);
			sused += snprintf(skipped + sused, sizeof(skipped) - sused, "%s%s",
					  sused ? ", " : "", st->name);
			continue;
		}
		if (sl->why[0]) {
			pc_report_note(r, "stress: %s gave up after %llu iterations: %s", st->name,
				       sl->iterations, sl->why);
			sused += snprintf(skipped + sused, sizeof(skipped) - sused, "%s%s",
					  sused ? ", " : "", st->name);
			continue;
		}
		describe(i, what, sizeof(what));
		if (st->died_early)
			pc_report_note(r, "stress: %s died early (%s %d): %s", st->name,
				       WIFSIGNALED(st->status) ? "signal" : "exit",
				       WIFSIGNALED(st->status) ? WTERMSIG(st->status)
							       : WEXITSTATUS(st->status),
				       what);
		else
			pc_report_note(r, "stress: %s: %s", st->name, what);
		used += snprintf(ran + used, sizeof(ran) - used, "%s%s %llu", used ? ", " : "",
				 st->name, sl->iterations);
	}
	pc_report_note(r, "stress: stressors that ran (iterations): %s; skipped: %s",
		       used ? ran : "none", sused ? skipped : "none");
	for (int i = 0; i < S__COUNT; i++)
		stressors[i].skip[0] = 0;
	munmap(slots, sizeof(*slots) * S__COUNT);
	slots = NULL;
	stress_zram_forget();
}

const char *pc_stress_name_of(int pid)
{
	for (int i = 0; i < S__COUNT; i++)
		if (pid > 0 && stressors[i].pid == pid)
			return stressors[i].name;
	return NULL;
}
