// SPDX-License-Identifier: GPL-2.0
/*
 * What ptecheck does to its own memory so that the batch histograms count
 * the kernel's work on the scenarios' mappings, not on ptecheck's
 * (lib/procmm.c): its anonymous mappings get MADV_NOHUGEPAGE ("nh" in
 * smaps' VmFlags), its file-backed ones are locked ("lo") and nothing
 * else is, and a buffer left out of a fork is "dc" (MADV_DONTFORK).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "procmm.h"
#include "tap.h"

/* The VmFlags line of the smaps entry holding addr, into flags. */
static bool vmflags_of(uintptr_t addr, char *flags, size_t sz)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool in = false, found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = addr >= lo && addr < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, sz, "%s", line + 8);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool has_flag(const char *flags, const char *f)
{
	char want[8];

	snprintf(want, sizeof(want), " %s", f);
	return strstr(flags, want) != NULL;
}

int main(void)
{
	char flags[256] = "", stack_var = 0;
	void *big = malloc(1 << 20);
	void *anon =
		mmap(NULL, 1 << 21, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err;

	tap_plan(0);
	TAP_CHECK(pc_own_memory_small_folios() == 0, "own anonymous memory: MADV_NOHUGEPAGE");
	TAP_CHECK(vmflags_of((uintptr_t)&stack_var, flags, sizeof(flags)) && has_flag(flags, "nh"),
		  "the stack is nh (%s)", flags);
	TAP_CHECK(anon != MAP_FAILED && vmflags_of((uintptr_t)anon, flags, sizeof(flags)) &&
			  has_flag(flags, "nh"),
		  "an anonymous mapping is nh");
	TAP_CHECK(vmflags_of((uintptr_t)&main, flags, sizeof(flags)) && !has_flag(flags, "nh"),
		  "the program's text (a file) is not touched");

	err = pc_mlock_file_maps();
#ifdef __SANITIZE_ADDRESS__
	/* The sanitizers' mlock interceptor does nothing and returns 0. */
	(void)err;
	tap_skip("AddressSanitizer makes mlock a no-op");
#else
	if (err == -EPERM || err == -ENOMEM) {
		tap_skip("mlock needs CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK here");
	} else {
		TAP_CHECK(err == 0 && vmflags_of((uintptr_t)&main, flags, sizeof(flags)) &&
				  has_flag(flags, "lo"),
			  "the program's text is locked (err %d, %s)", err, flags);
		TAP_CHECK(vmflags_of((uintptr_t)anon, flags, sizeof(flags)) &&
				  !has_flag(flags, "lo"),
			  "anonymous memory is not locked");
		munlockall();
	}
#endif

	pc_fork_copies(anon, 1 << 21, false);
	TAP_CHECK(vmflags_of((uintptr_t)anon, flags, sizeof(flags)) && has_flag(flags, "dc"),
		  "a buffer left out of forks is dc");
	pc_fork_copies(anon, 1 << 21, true);
	TAP_CHECK(vmflags_of((uintptr_t)anon, flags, sizeof(flags)) && !has_flag(flags, "dc"),
		  "and back");
	munmap(anon, 1 << 21);
	free(big);
	return tap_finish();
}
