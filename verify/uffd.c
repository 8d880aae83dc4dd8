// SPDX-License-Identifier: GPL-2.0
/*
 * userfaultfd write protection for the scenarios (verify/uffd.h): the
 * range registered for uffd-wp (the mremap scenarios with
 * UFFD_FEATURE_EVENT_REMAP so that a move keeps the protection, or
 * without: move_ptes then drops the markers and clears the uffd-wp bits;
 * the marker scenarios' with one page per folio protected:
 * verify/marker.c), and a reader process
 * that reads the events.  It must be another process: an mremap waits
 * until its REMAP event is read, and a thread would make the mm shared,
 * which turns the in-kernel tiers' violations inconclusive.
 * The reader counts every write-protect fault and resolves it (the page
 * unprotected, the writer woken), so a write that must fault shows as one
 * event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "measure.h"
#include "uffd.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* v5.11; older headers lack it */
#endif

/* The page the scenario and its reader share. */
enum { U_REMAPS, U_WP_FAULTS, U_ERRNO, U_START, U_LEN };

/*
 * A resolve that failed would leave the writer asleep for good:
 * unregistering the range wakes it (the write then goes through without
 * uffd), and the error tells the scenario the count is not to be trusted.
 */
static void reader_give_up(int fd, __u64 *sh, int err)
{
	struct uffdio_range r = {.start = sh[U_START], .len = sh[U_LEN]};

	__atomic_store_n(&sh[U_ERRNO], (__u64)err, __ATOMIC_RELEASE);
	ioctl(fd, UFFDIO_UNREGISTER, &r);
}

static void __attribute__((noreturn)) reader(int fd, __u64 *sh)
{
	struct uffd_msg msg;
	ssize_t got;

	/* Never outlive the scenario, whose mremap would wait for nobody. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		got = read(fd, &msg, sizeof(msg));
		if (got < 0 && errno == EINTR)
			continue;
		if (got != sizeof(msg))
			_exit(got < 0 ? 1 : 0);
		if (msg.event == UFFD_EVENT_REMAP) {
			__atomic_add_fetch(&sh[U_REMAPS], 1, __ATOMIC_RELEASE);
		} else if (msg.event == UFFD_EVENT_PAGEFAULT &&
			   (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP)) {
			struct uffdio_writeprotect wp = {
				.range = {.start = msg.arg.pagefault.address & ~(__u64)(PAGE - 1),
					  .len = PAGE}};

			__atomic_add_fetch(&sh[U_WP_FAULTS], 1, __ATOMIC_RELEASE);
			if (ioctl(fd, UFFDIO_WRITEPROTECT, &wp))
				reader_give_up(fd, sh, errno);
		}
	}
}

int pc_uffd_open(struct pc_uffd *u, __u64 features, const char **what)
{
	struct uffdio_api api = {.api = UFFD_API, .features = features};

	u->fd = -1;
	u->reader = -1;
	*what = "mmap of the shared counters";
	u->shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (u->shared == MAP_FAILED) {
		u->shared = NULL;
		return -errno;
	}
	*what = "userfaultfd(UFFD_USER_MODE_ONLY) (CONFIG_USERFAULTFD)";
	u->fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (u->fd < 0)
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	*what = features & PC_UFFD_FEATURE_WP_UNPOPULATED
			? "UFFDIO_API with UFFD_FEATURE_WP_UNPOPULATED (v6.4+, "
			  "CONFIG_PTE_MARKER_UFFD_WP)"
		: features & UFFD_FEATURE_EVENT_FORK
			? "UFFDIO_API with UFFD_FEATURE_EVENT_FORK (needs CAP_SYS_PTRACE)"
		: features ? "UFFDIO_API with UFFD_FEATURE_EVENT_REMAP"
			   : "UFFDIO_API";
	if (ioctl(u->fd, UFFDIO_API, &api))
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	/* Forked before the range exists: the reader shares none of it. */
	*what = "fork of the uffd reader";
	u->reader = fork();
	if (u->reader < 0)
		return -errno;
	if (u->reader == 0)
		reader(u->fd, u->shared);
	return 0;
}

int pc_uffd_register(struct pc_uffd *u, char *addr, size_t len, const char **what)
{
	struct uffdio_register reg = {.range = {.start = (__u64)(uintptr_t)addr, .len = len},
				      .mode = UFFDIO_REGISTER_MODE_WP};

	u->shared[U_START] = reg.range.start;
	u->shared[U_LEN] = len;
	/* EINVAL here: no uffd-wp for this memory in this kernel. */
	*what = "UFFDIO_REGISTER_MODE_WP (CONFIG_HAVE_ARCH_USERFAULTFD_WP)";
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	return 0;
}

int pc_uffd_wp(struct pc_uffd *u, char *addr, size_t len, const char **what)
{
	struct uffdio_writeprotect wp = {.range = {.start = (__u64)(uintptr_t)addr, .len = len},
					 .mode = UFFDIO_WRITEPROTECT_MODE_WP};

	*what = "UFFDIO_WRITEPROTECT";
	return ioctl(u->fd, UFFDIO_WRITEPROTECT, &wp) ? -errno : 0;
}

int pc_uffd_protect(struct pc_uffd *u, char *addr, size_t len, const char **what)
{
	int ret = pc_uffd_register(u, addr, len, what);

	return ret ? ret : pc_uffd_wp(u, addr, len, what);
}

__u64 pc_uffd_faults(const struct pc_uffd *u)
{
	return __atomic_load_n(&u->shared[U_WP_FAULTS], __ATOMIC_ACQUIRE);
}

__u64 pc_uffd_remaps(const struct pc_uffd *u)
{
	return __atomic_load_n(&u->shared[U_REMAPS], __ATOMIC_ACQUIRE);
}

int pc_uffd_error(const struct pc_uffd *u)
{
	return (int)__atomic_load_n(&u->shared[U_ERRNO], __ATOMIC_ACQUIRE);
}

void pc_uffd_close(struct pc_uffd *u)
{
	int status;

	if (u->reader > 0) {
		kill(u->reader, SIGKILL);
		while (waitpid(u->reader, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (u->fd >= 0)
		close(u->fd);
	if (u->shared)
		munmap(u->shared, PAGE);
	u->fd = -1;
	u->reader = -1;
	u->shared = NULL;
}
