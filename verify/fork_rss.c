// SPDX-License-Identifier: GPL-2.0
/*
 * What fork's batches add to the child's RSS (fork/rss).
 *
 * The state: 64 KiB (or, in rss-16k, 16 KiB) anonymous folios, every page
 * written, the range read
 * back (whole folios; its present pages counted by pagemap).  Two forks
 * back to back, each child reading its own RssAnon at once and sending it
 * up a pipe before it exits: the first with the range MADV_DONTFORK (left
 * out of the copy), the second with it MADV_DOFORK again.  Both children
 * run the same code from the same parent memory, so their counts differ
 * by the range alone: copy_present_ptes adds each batch's nr to the
 * child's counter (pc_fork_rss), and a batch of 16 that adds one leaves
 * the second child 15 short per folio.  Judged where /proc/self/status
 * counts RSS exactly (pc_rss_exact; a skip that says so otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ptecheck/fork.h>
#include "fork_int.h"
#include "procmm.h"
#include "shape.h"

#define OFF 0

/* A child forked now: its RssAnon in pages, read at once, into *pages.
   0 or -errno. */
static int child_rss(__u64 *pages)
{
	struct pc_status_rss rss;
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		__u64 v = pc_status_rss_read(0, &rss) ? ~0ULL : rss.anon_kb / (PAGE / KIB);

		_exit(write(fds[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(fds[1]);
	got = read(fds[0], pages, sizeof(*pages));
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return got == sizeof(*pages) && *pages != ~0ULL ? 0 : -EIO;
}

int fk_measure_rss(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	int slot = pc_slot_add(a, ctx, PC_CHK_FORK_RSS, TIER_RSS);
	struct pc_oracle_msg *m = &a->msg[slot];
	const size_t fp = *(const size_t *)data;
	const unsigned int kb = (unsigned int)(fp * PAGE / KIB);
	struct pc_range rg = {.fd = -1};
	struct pc_folios fo = {0};
	__u64 without = 0, with = 0;
	size_t present = 0, len, n;
	char no_folio[80];
	const char *what;
	struct pc_rss_calib calib;
	int ret, v;

	if (!pc_mthp_on(ctx, a, false, kb))
		return 0;
	if (!pc_rss_exact(&calib)) {
		pc_skip_rss_inexact(a, slot, &calib);
		return 0;
	}
	/* Less than a PMD: THP would otherwise give one 2 MiB folio. */
	n = pc_scaled_len(ctx, 1 * MIB, 4 * fp * PAGE, fp * PAGE) / PAGE;
	if (pc_folios_alloc(&fo, n, fp))
		return pc_skip_rest(a, "calloc", ENOMEM);
	len = fo.n * PAGE;
	snprintf(no_folio, sizeof(no_folio),
		 "no %u KiB folio formed whole (mTHP fell back to small folios)", kb);
	pc_window_begin(ctx, &a->win, &a->disturbed);
	ret = pc_range_map(&rg, fo.n, false, OFF, &what);
	if (ret) {
		ret = pc_skip_rest(a, what, -ret);
		goto out;
	}
	ret = pc_folios_read_for(a, ctx, &fo, rg.base, no_folio);
	if (ret)
		goto out;
	for (size_t i = 0; i < fo.n; i++)
		present += !!(fo.pagemap[i] & PC_PM_PRESENT);
	if (madvise(rg.base, len, MADV_DONTFORK)) {
		ret = pc_skip_rest(a, "madvise(MADV_DONTFORK)", errno);
		goto out;
	}
	ret = child_rss(&without);
	if (!ret && madvise(rg.base, len, MADV_DOFORK))
		ret = -errno;
	if (!ret)
		ret = child_rss(&with);
	if (ret) {
		ret = pc_skip_rest(a, "fork, /proc/self/status in the child", -ret);
		goto out;
	}
	v = pc_fork_rss((__s64)without, (__s64)with, (__s64)present);
	m->checked++;
	if (pc_is_violation(v))
		pc_oracle_add_evidence(m, v, (__u64)(uintptr_t)rg.base, 0, present, with - without,
				       "RssAnon of a child forked with the range, less one forked "
				       "without it (MADV_DONTFORK)");
	pc_slot_judge(a, slot);
	pc_oracle_appendf(m,
			  "the child's RssAnon %llu pages with the range, %llu without: +%lld "
			  "for %zu present (%zu of %zu folios, %u KiB anon mTHP, whole)",
			  (unsigned long long)with, (unsigned long long)without,
			  (long long)(with - without), present, fo.n_whole, fo.n / fp, kb);
out:
	pc_window_end(ctx, &a->win, &a->disturbed);
	pc_range_release(&rg);
	pc_folios_free(&fo);
	return ret < 0 ? ret : 0;
}
