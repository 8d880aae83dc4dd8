// SPDX-License-Identifier: GPL-2.0
/*
 * A child sharing the scenario's pages across fork, which reports what it
 * sees of them (verify/sharer.h): the COW isolation oracle of the mremap
 * and fork suites.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fullio.h"
#include "measure.h"
#include "oracle_compare.h"
#include "sharer.h"

/* The sharing child: waits, reports what it sees of each page, writes its own. */
static void __attribute__((noreturn))
cow_child(char *p, size_t npages, bool (*writes)(size_t), int go_fd, int res_fd)
{
	__u8 *seen = malloc(npages);
	char c;

	if (!seen || pc_read_full(go_fd, &c, 1) != 1)
		_exit(1); /* parent gone or failed: say nothing */
	for (size_t i = 0; i < npages; i++)
		seen[i] = pc_block_seen((const __u8 *)p + i * PAGE, PAGE, pc_page_byte(i, SALT_A),
					NULL);
	for (size_t i = 0; writes && i < npages; i++)
		if (writes(i))
			memset(p + i * PAGE, pc_page_byte(i, SALT_B), PAGE);
	/* _exit: no atexit handlers of the parent (settings restore) may run here */
	_exit(pc_write_full(res_fd, seen, npages) ? 1 : 0);
}

int pc_sharer_start(struct pc_sharer *s, char *p, size_t npages, bool (*child_writes)(size_t i),
		    const char **what)
{
	*what = "pipe";
	if (pipe2(s->go, O_CLOEXEC) || pipe2(s->res, O_CLOEXEC))
		return -errno;
	*what = "fork";
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		close(s->go[1]);
		close(s->res[0]);
		cow_child(p, npages, child_writes, s->go[0], s->res[1]);
	}
	close(s->go[0]);
	close(s->res[1]);
	s->go[0] = s->res[1] = -1;
	return 0;
}

ssize_t pc_sharer_collect(struct pc_sharer *s, __u8 *seen, size_t npages)
{
	int ret = pc_write_full(s->go[1], "g", 1);

	return ret ? ret : pc_read_full(s->res[0], seen, npages);
}

void pc_sharer_stop(struct pc_sharer *s)
{
	int status;

	if (s->go[1] >= 0)
		close(s->go[1]); /* EOF releases a child still waiting */
	if (s->pid > 0)
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
	if (s->go[0] >= 0)
		close(s->go[0]);
	for (int i = 0; i < 2; i++)
		if (s->res[i] >= 0)
			close(s->res[i]);
}
