// SPDX-License-Identifier: GPL-2.0
/*
 * filemap_fault: will-it-scale's page_fault loop on a file.  Each worker
 * maps its own region of one shared file, touches every page, unmaps, and
 * repeats; the rate of pages touched is the figure of merit.  Read faults
 * go through fault-around, which since v6.4 maps a whole run of a large
 * page-cache folio per fault; the backing (tmpfs, huge tmpfs, ext4 on a
 * loop device, or any directory) decides which folios the page cache holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scratchfs.h"
#include "cli.h"
#include "privilege.h"
#include "settings.h"

#define PROG "filemap_fault"

#define MAX_WORKERS	1024
#define MAX_WORKER_SIZE (64ULL << 30)
#define DEFAULT_SIZE	(128ULL << 20)
#define DEFAULT_SECONDS 5.0
#define MAX_SECONDS	86400.0
#define FILL_CHUNK	(1UL << 20)
#define MAX_FOLIO_ORDER 20
/* The folio census reads the first GiB of worker 0's region at most. */
#define CENSUS_MAX (1ULL << 30)
/* kpageflags bits (include/uapi/linux/kernel-page-flags.h). */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define PM_PRESENT	  (1ULL << 63)
#define PM_PFN_MASK	  ((1ULL << 55) - 1)

enum {
	EXIT_MISMATCH = 1,
	EXIT_USAGE = 2,
	EXIT_ERROR = 3,
	EXIT_CANNOT_RUN = 4,
};

enum backing { BK_TMPFS, BK_TMPFS_HUGE, BK_EXT4, BK_DIR };
enum folio { FOLIO_ASIS, FOLIO_LARGE, FOLIO_SMALL };

static const char *const backing_names[] = {
	[BK_TMPFS] = "tmpfs", [BK_TMPFS_HUGE] = "tmpfs-huge", [BK_EXT4] = "ext4", [BK_DIR] = "dir"};
static const char *const folio_names[] = {
	[FOLIO_ASIS] = "as-is", [FOLIO_LARGE] = "large", [FOLIO_SMALL] = "small"};

struct config {
	unsigned int workers;
	bool processes;
	bool write;
	bool private_map;
	double seconds;
	unsigned long iterations; /* 0: run for seconds */
	size_t size;		  /* per worker */
	enum backing backing;
	const char *dir; /* BK_DIR */
	enum folio folio;
	bool verify;
	bool json;
};

/* Shared with worker processes, so it lives in a MAP_SHARED mapping. */
struct result {
	unsigned long long pages;
	unsigned long long passes;
	unsigned long long minflt;
	unsigned long long ns;
	int err; /* errno of the failed call named in what */
	char what[48];
	bool mismatch;
	unsigned long long bad_off;
	unsigned char got, want;
};

struct shared {
	atomic_int go;
	atomic_int stop;
	struct result res[];
};

static struct config cfg = {
	.workers = 1,
	.seconds = DEFAULT_SECONDS,
	.size = DEFAULT_SIZE,
	.backing = BK_TMPFS,
	.folio = FOLIO_ASIS,
};
static size_t page_size;
static int data_fd = -1;
static struct shared *sh;

/* For the undo hooks, which may run in a signal handler. */
static char base_dir[PATH_MAX];
static pid_t main_pid;
static pid_t child_pids[MAX_WORKERS];
static volatile sig_atomic_t nr_children;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options]\n"
		"\n"
		"will-it-scale's page_fault loop on a file: each worker mmaps its own\n"
		"SIZE-byte region of one shared file, touches every page (one byte per\n"
		"page), munmaps, and repeats.  Prints pages touched per second (\"faults\n"
		"per second\", as will-it-scale counts them), total and per worker, and\n"
		"the minor faults the kernel really took: read faults map up to\n"
		"fault_around_bytes at once, a whole run of a large folio since v6.4.\n"
		"\n"
		"Options:\n"
		"  --threads N       N worker threads (default 1)\n"
		"  --processes N     N worker processes instead of threads\n"
		"  --mode read|write read: PROT_READ, one load per page (default);\n"
		"                    write: PROT_READ|PROT_WRITE MAP_SHARED, one store\n"
		"                    per page (of the byte already there)\n"
		"  --map shared|private  MAP_SHARED (default) or, for --mode read,\n"
		"                    a read-only MAP_PRIVATE mapping\n"
		"  --seconds S       run for S seconds (default 5; decimals allowed)\n"
		"  --iterations N    instead: N passes over the region per worker\n"
		"  --size BYTES      region per worker, K/M/G suffixes allowed, a multiple\n"
		"                    of the page size (default 128M, at most 64G)\n"
		"  --backing B       tmpfs       a tmpfs mounted for the run (default)\n"
		"                    tmpfs-huge  the same with huge=within_size\n"
		"                    ext4        ext4 on a loop device over a sparse image\n"
		"                    DIR         an existing directory (its filesystem)\n"
		"                    Scratch filesystems live in $TMPDIR (or /tmp) and\n"
		"                    are unmounted and deleted on every exit path.\n"
		"  --folio large|small  tmpfs only: large sets hugepages-64kB/shmem_enabled\n"
		"                    to \"always\"; small mounts with huge=never and sets it to\n"
		"                    \"never\" (not with tmpfs-huge).  Default: change nothing.\n"
		"                    Newer kernels (seen on 6.18) size a tmpfs mount's folios\n"
		"                    by its huge= option only, so large may still give 4 KiB\n"
		"                    folios: the census below shows what formed.  ext4 has\n"
		"                    no knob: its folios are the kernel's choice.\n"
		"  --verify          check every byte read through the mappings against\n"
		"                    the pattern the file was filled with\n"
		"  --json            print one JSON object line instead of text\n"
		"  --help            this text\n"
		"\n"
		"Before the run, worker 0's region (its first GiB) is mapped once and its\n"
		"folio sizes read from /proc/self/pagemap and /proc/kpageflags (root only).\n"
		"\n"
		"Every setting changed and every scratch filesystem is undone on exit,\n"
		"including on SIGINT, SIGTERM, SIGHUP and SIGQUIT.\n"
		"\n"
		"Exit status: 0 ok, 1 --verify found a wrong byte, 2 usage, 3 an\n"
		"operation failed, 4 cannot run here (not root, no loop device support,\n"
		"no mkfs.ext4, no 64 KiB mTHP).\n"
		"\n"
		"Examples:\n"
		"  " PROG " --threads 4 --seconds 10\n"
		"  " PROG " --backing tmpfs-huge --mode read --verify\n"
		"  " PROG " --backing ext4 --processes 2 --iterations 20 --json\n");
}

/* Exits EXIT_USAGE (2) with the message and a pointer to --help. */
#define usage_error(...) pc_usage_error(PROG, __VA_ARGS__)

static void __attribute__((noreturn)) die_errno(const char *what)
{
	pc_die_errno(PROG, EXIT_ERROR, what);
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	/* strtoul() would accept "-1" and leading blanks. */
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out && *out <= max;
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"threads", required_argument, NULL, 't'},
		{"processes", required_argument, NULL, 'p'},
		{"mode", required_argument, NULL, 'm'},
		{"map", required_argument, NULL, 'M'},
		{"seconds", required_argument, NULL, 'S'},
		{"iterations", required_argument, NULL, 'i'},
		{"size", required_argument, NULL, 's'},
		{"backing", required_argument, NULL, 'b'},
		{"folio", required_argument, NULL, 'f'},
		{"verify", no_argument, NULL, 'v'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool have_threads = false, have_procs = false, have_seconds = false;
	unsigned long n;
	struct stat st;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'p':
			if (!parse_uint(optarg, MAX_WORKERS, &n))
				usage_error("--threads/--processes wants 1 to 1024, not '%s'",
					    optarg);
			cfg.workers = (unsigned int)n;
			cfg.processes = c == 'p';
			if (c == 'p')
				have_procs = true;
			else
				have_threads = true;
			break;
		case 'm':
			if (!strcmp(optarg, "read"))
				cfg.write = false;
			else if (!strcmp(optarg, "write"))
				cfg.write = true;
			else
				usage_error("--mode wants read or write, not '%s'", optarg);
			break;
		case 'M':
			if (!strcmp(optarg, "shared"))
				cfg.private_map = false;
			else if (!strcmp(optarg, "private"))
				cfg.private_map = true;
			else
				usage_error("--map wants shared or private, not '%s'", optarg);
			break;
		case 'S':
			if (*optarg < '0' || *optarg > '9')
				usage_error("--seconds wants a positive number, not '%s'", optarg);
			errno = 0;
			cfg.seconds = strtod(optarg, &end);
			if (errno || *end || !(cfg.seconds > 0) || cfg.seconds > MAX_SECONDS)
				usage_error("--seconds wants a number in (0, 86400], not '%s'",
					    optarg);
			have_seconds = true;
			break;
		case 'i':
			if (!parse_uint(optarg, ULONG_MAX, &cfg.iterations))
				usage_error("--iterations wants a positive integer, not '%s'",
					    optarg);
			break;
		case 's':
			if (!pc_parse_size(optarg, MAX_WORKER_SIZE, &cfg.size))
				usage_error("--size wants BYTES[K|M|G] up to 64G, not '%s'",
					    optarg);
			break;
		case 'b':
			if (!strcmp(optarg, "tmpfs")) {
				cfg.backing = BK_TMPFS;
			} else if (!strcmp(optarg, "tmpfs-huge")) {
				cfg.backing = BK_TMPFS_HUGE;
			} else if (!strcmp(optarg, "ext4")) {
				cfg.backing = BK_EXT4;
			} else if (!stat(optarg, &st) && S_ISDIR(st.st_mode)) {
				cfg.backing = BK_DIR;
				cfg.dir = optarg;
			} else {
				usage_error(
					"--backing wants tmpfs, tmpfs-huge, ext4 or an existing "
					"directory, not '%s'",
					optarg);
			}
			break;
		case 'f':
			if (!strcmp(optarg, "large"))
				cfg.folio = FOLIO_LARGE;
			else if (!strcmp(optarg, "small"))
				cfg.folio = FOLIO_SMALL;
			else
				usage_error("--folio wants large or small, not '%s'", optarg);
			break;
		case 'v':
			cfg.verify = true;
			break;
		case 'j':
			cfg.json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			/* getopt_long() has already named the bad option. */
			fprintf(stderr, "Try '" PROG " --help'.\n");
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (have_threads && have_procs)
		usage_error("--threads and --processes exclude each other%s", "");
	if (have_seconds && cfg.iterations)
		usage_error("--seconds and --iterations exclude each other%s", "");
	if (cfg.write && cfg.private_map)
		usage_error("--mode write needs --map shared (a private write is an anonymous "
			    "COW fault)%s",
			    "");
	if (cfg.backing == BK_TMPFS_HUGE && cfg.folio == FOLIO_SMALL)
		usage_error("--folio small contradicts --backing tmpfs-huge%s", "");
	if (cfg.size < page_size || cfg.size % page_size) {
		char ps[32];

		snprintf(ps, sizeof(ps), "%zu", page_size);
		usage_error("--size must be a non-zero multiple of the page size (%s)", ps);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The byte at file offset off: differs between pages, so a misplaced page shows. */
static inline unsigned char pattern(uint64_t off)
{
	return (unsigned char)(((off >> 3) * 0x9E3779B97F4A7C15ULL) >> 56) ^ (unsigned char)off;
}

/* Undo hooks (async-signal-safe); registration order makes them run last-in first. */
static int remove_base_dir(void)
{
	if (main_pid != getpid() || !base_dir[0])
		return 0;
	if (rmdir(base_dir) && errno != ENOENT)
		return -errno;
	base_dir[0] = '\0';
	return 0;
}

/* Worker processes hold the file mapped: they must go before the unmount. */
static int kill_children(void)
{
	int i, status;

	if (main_pid != getpid())
		return 0;
	for (i = 0; i < nr_children; i++)
		if (child_pids[i] > 0)
			kill(child_pids[i], SIGKILL);
	for (i = 0; i < nr_children; i++) {
		if (child_pids[i] <= 0)
			continue;
		while (waitpid(child_pids[i], &status, 0) < 0 && errno == EINTR)
			;
		child_pids[i] = 0;
	}
	nr_children = 0;
	return 0;
}

static bool on_tmpfs(const char *dir)
{
	struct statfs sfs;

	return !statfs(dir, &sfs) && sfs.f_type == TMPFS_MAGIC;
}

static void set_shmem_mthp(const char *mode)
{
	int err = pc_mthp_set(64, 1, mode);

	if (!err)
		return;
	/* Without 64 KiB mTHP there are no 64 KiB folios to avoid. */
	if (err == -ENOENT && cfg.folio == FOLIO_SMALL)
		return;
	if (err == -ENOENT || err == -EACCES || err == -EPERM || err == -EROFS) {
		fprintf(stderr,
			PROG ": 64 KiB mTHP unavailable here: hugepages-64kB/shmem_enabled: %s\n",
			strerror(-err));
		exit(EXIT_CANNOT_RUN);
	}
	fprintf(stderr, PROG ": writing \"%s\" to hugepages-64kB/shmem_enabled: %s\n", mode,
		strerror(-err));
	exit(EXIT_ERROR);
}

static void __attribute__((noreturn)) scratch_failed(const char *what, int err, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why[0] ? why : strerror(-err));
	/* Missing privilege or kernel/userspace support: this machine cannot run it. */
	if (err == -EPERM || err == -EACCES || err == -ENODEV || err == -ENOENT)
		exit(EXIT_CANNOT_RUN);
	exit(EXIT_ERROR);
}

/* Mounts the scratch filesystem, or checks DIR; returns the directory for the file. */
static const char *prepare_backing(size_t total, char *fsdir, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char opts[128], why[512];
	unsigned long long total_kb = (total >> 10) + (total >> 13) + 16384;
	struct statvfs vfs;
	struct sysinfo si;
	unsigned int size_mb;
	int err;

	if (cfg.backing == BK_DIR)
		return cfg.dir;

	if (cfg.backing != BK_EXT4 && !sysinfo(&si) &&
	    total > (unsigned long long)si.totalram * si.mem_unit / 2) {
		fprintf(stderr,
			PROG ": a tmpfs holds the file in memory: %zu MiB is over half of RAM\n",
			total >> 20);
		exit(EXIT_USAGE);
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(base_dir, sizeof(base_dir), "%s/" PROG ".XXXXXX", tmp) >=
	    (int)sizeof(base_dir) - 8) {
		errno = ENAMETOOLONG;
		die_errno("scratch directory name in $TMPDIR");
	}
	/* Registered before mkdtemp(): the hook removes it after the unmount. */
	pc_settings_add_undo(remove_base_dir);
	if (!mkdtemp(base_dir)) {
		int e = errno;

		base_dir[0] = '\0';
		errno = e;
		die_errno("mkdtemp() in $TMPDIR");
	}
	snprintf(fsdir, len, "%s/fs", base_dir);

	switch (cfg.backing) {
	case BK_TMPFS:
	case BK_TMPFS_HUGE:
		snprintf(opts, sizeof(opts), "size=%lluk,mode=0700%s", total_kb,
			 cfg.backing == BK_TMPFS_HUGE ? ",huge=within_size"
			 : cfg.folio == FOLIO_SMALL   ? ",huge=never"
						      : "");
		err = pc_scratch_tmpfs(fsdir, opts, why, sizeof(why));
		if (err)
			scratch_failed("scratch tmpfs", err, why);
		break;
	case BK_EXT4:
		/* Room for the file plus ext4's metadata and journal. */
		size_mb = (unsigned int)((total_kb >> 10) + 64);
		if (!statvfs(base_dir, &vfs) && (unsigned long long)vfs.f_bavail * vfs.f_frsize <
							(unsigned long long)size_mb << 20) {
			fprintf(stderr, PROG ": %s has no room for a %u MiB ext4 image\n", tmp,
				size_mb);
			exit(EXIT_CANNOT_RUN);
		}
		err = pc_scratch_blockfs(fsdir, "ext4", size_mb, why, sizeof(why));
		if (err)
			scratch_failed("scratch ext4", err, why);
		break;
	default:
		break;
	}
	return fsdir;
}

/* Creates the data file, unlinked at once, and fills it with the pattern. */
static void create_file(const char *dir, size_t total)
{
	char path[PATH_MAX];
	unsigned char *buf;
	size_t off, i, n;
	ssize_t w;

	if (snprintf(path, sizeof(path), "%s/" PROG ".XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		die_errno("data file name");
	}
	data_fd = mkostemp(path, O_CLOEXEC);
	if (data_fd < 0)
		die_errno("creating the data file");
	/* The descriptor keeps it alive: no exit path can leave it behind. */
	unlink(path);
	/* Full size first: huge=within_size only allocates huge folios inside i_size. */
	if (ftruncate(data_fd, (off_t)total))
		die_errno("ftruncate() of the data file");
	buf = malloc(FILL_CHUNK);
	if (!buf)
		die_errno("malloc()");
	for (off = 0; off < total; off += n) {
		n = total - off < FILL_CHUNK ? total - off : FILL_CHUNK;
		for (i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		w = pwrite(data_fd, buf, n, (off_t)off);
		if (w < 0)
			die_errno("filling the data file");
		if ((size_t)w != n) {
			errno = ENOSPC;
			die_errno("filling the data file");
		}
	}
	free(buf);
	/* Written back now, so writeback does not run during the measurement. */
	if (cfg.backing != BK_TMPFS && cfg.backing != BK_TMPFS_HUGE && fdatasync(data_fd))
		die_errno("fdatasync() of the data file");
}

/*
 * Folio sizes in worker 0's region, from the PFNs (pagemap) and the compound
 * head/tail flags (kpageflags): a head starts a folio, tails extend it.
 * hist[order] counts folios; false when the files cannot tell (not root).
 */
static bool folio_census(unsigned long long hist[MAX_FOLIO_ORDER + 1], char *why, size_t len)
{
	size_t span = cfg.size < CENSUS_MAX ? cfg.size : CENSUS_MAX;
	size_t npages = span / page_size, i, j, run = 0;
	uint64_t *pm = NULL, *flags = NULL;
	int pm_fd = -1, kf_fd = -1;
	bool ok = false;
	char *p;

	memset(hist, 0, sizeof(hist[0]) * (MAX_FOLIO_ORDER + 1));
	p = mmap(NULL, span, PROT_READ, MAP_SHARED | MAP_POPULATE, data_fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return false;
	}
	pm = malloc(npages * sizeof(*pm));
	flags = malloc(npages * sizeof(*flags));
	pm_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (!pm || !flags || pm_fd < 0 || kf_fd < 0) {
		snprintf(why, len, "%s: %s",
			 !pm || !flags ? "malloc"
			 : pm_fd < 0   ? "/proc/self/pagemap"
				       : "/proc/kpageflags",
			 strerror(errno));
		goto out;
	}
	for (i = 0; i < npages; i++)
		(void)*(volatile char *)(p + i * page_size);
	if (pread(pm_fd, pm, npages * sizeof(*pm),
		  (off_t)((uintptr_t)p / page_size * sizeof(*pm))) !=
	    (ssize_t)(npages * sizeof(*pm))) {
		snprintf(why, len, "reading /proc/self/pagemap: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < npages; i = j) {
		uint64_t pfn = pm[i] & PM_PFN_MASK;

		if (!(pm[i] & PM_PRESENT) || !pfn) {
			snprintf(why, len, "no PFNs in /proc/self/pagemap (needs CAP_SYS_ADMIN)");
			goto out;
		}
		/* One read per run of physically contiguous pages. */
		for (j = i + 1;
		     j < npages && (pm[j] & PM_PRESENT) && (pm[j] & PM_PFN_MASK) == pfn + (j - i);
		     j++)
			;
		if (pread(kf_fd, flags + i, (j - i) * sizeof(*flags),
			  (off_t)(pfn * sizeof(*flags))) != (ssize_t)((j - i) * sizeof(*flags))) {
			snprintf(why, len, "reading /proc/kpageflags: %s", strerror(errno));
			goto out;
		}
	}
	for (i = 0; i <= npages; i++) {
		bool tail = i < npages && (flags[i] & (1ULL << KPF_COMPOUND_TAIL)) && run;

		if (tail) {
			run++;
			continue;
		}
		if (run) {
			unsigned int order = 0;

			while ((2UL << order) <= run && order < MAX_FOLIO_ORDER)
				order++;
			hist[order]++;
		}
		run = i < npages ? 1 : 0;
	}
	ok = true;
out:
	if (pm_fd >= 0)
		close(pm_fd);
	if (kf_fd >= 0)
		close(kf_fd);
	free(pm);
	free(flags);
	munmap(p, span);
	return ok;
}

static void record_error(struct result *r, const char *what)
{
	r->err = errno;
	snprintf(r->what, sizeof(r->what), "%s", what);
	atomic_store(&sh->stop, 1);
}

/* Returns false, with the first wrong byte recorded, on a mismatch. */
static bool verify_page(struct result *r, const unsigned char *page, uint64_t file_off)
{
	size_t i;

	for (i = 0; i < page_size; i++) {
		if (page[i] != pattern(file_off + i)) {
			r->mismatch = true;
			r->bad_off = file_off + i;
			r->got = page[i];
			r->want = pattern(file_off + i);
			atomic_store(&sh->stop, 1);
			return false;
		}
	}
	return true;
}

static void run_worker(unsigned int w)
{
	struct result *r = &sh->res[w];
	uint64_t base = (uint64_t)w * cfg.size, t0;
	int prot = cfg.write ? PROT_READ | PROT_WRITE : PROT_READ;
	int flags = cfg.private_map ? MAP_PRIVATE : MAP_SHARED;
	int who = cfg.processes ? RUSAGE_SELF : RUSAGE_THREAD;
	struct rusage ru0, ru1;
	unsigned char sink = 0;
	size_t off;

	while (!atomic_load(&sh->go))
		sched_yield();
	getrusage(who, &ru0);
	t0 = now_ns();
	for (;;) {
		unsigned char *p;

		if ((cfg.iterations && r->passes >= cfg.iterations) || atomic_load(&sh->stop))
			break;
		p = mmap(NULL, cfg.size, prot, flags, data_fd, (off_t)base);
		if (p == MAP_FAILED) {
			record_error(r, "mmap() of the region");
			break;
		}
		for (off = 0; off < cfg.size; off += page_size) {
			if (cfg.write)
				p[off] = pattern(base + off);
			else
				sink ^= *(volatile unsigned char *)(p + off);
			r->pages++;
			if (cfg.verify && !verify_page(r, p + off, base + off))
				break;
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
				break;
		}
		if (munmap(p, cfg.size)) {
			record_error(r, "munmap() of the region");
			break;
		}
		r->passes++;
		if (r->mismatch || r->err)
			break;
	}
	r->ns = now_ns() - t0;
	getrusage(who, &ru1);
	r->minflt = (unsigned long long)(ru1.ru_minflt - ru0.ru_minflt);
	(void)sink;
}

static void *thread_main(void *arg)
{
	run_worker((unsigned int)(uintptr_t)arg);
	return NULL;
}

static void fatal_mask(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

/* Starts the workers, runs them for the time or passes asked, waits for them. */
static void run_workers(void)
{
	pthread_t *threads = NULL;
	sigset_t fatal, old;
	unsigned int w;
	int err, status;
	pid_t pid;

	fatal_mask(&fatal);
	if (cfg.processes) {
		pc_settings_add_undo(kill_children);
		for (w = 0; w < cfg.workers; w++) {
			/* A child must exist in child_pids before a handler can run. */
			sigprocmask(SIG_BLOCK, &fatal, &old);
			pid = fork();

			if (pid == 0) {
				/* Workers die with the run, never outlive its mounts. */
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != main_pid)
					_exit(EXIT_ERROR);
				sigprocmask(SIG_SETMASK, &old, NULL);
				run_worker(w);
				_exit(0);
			}
			if (pid < 0) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				die_errno("fork()");
			}
			child_pids[nr_children] = pid;
			nr_children = nr_children + 1;
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	} else {
		threads = calloc(cfg.workers, sizeof(*threads));
		if (!threads)
			die_errno("calloc()");
		/* The main thread alone takes the fatal signals. */
		pthread_sigmask(SIG_BLOCK, &fatal, &old);
		for (w = 0; w < cfg.workers; w++) {
			err = pthread_create(&threads[w], NULL, thread_main, (void *)(uintptr_t)w);
			if (err) {
				errno = err;
				die_errno("pthread_create()");
			}
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}

	atomic_store(&sh->go, 1);
	if (!cfg.iterations) {
		uint64_t end = now_ns() + (uint64_t)(cfg.seconds * 1e9);
		struct timespec ts;
		uint64_t left, t;

		/* Short naps: a worker that fails stops the run early. */
		while (!atomic_load(&sh->stop) && (t = now_ns()) < end) {
			left = end - t < 10000000 ? end - t : 10000000;
			ts.tv_sec = 0;
			ts.tv_nsec = (long)left;
			nanosleep(&ts, NULL);
		}
		atomic_store(&sh->stop, 1);
	}

	if (cfg.processes) {
		for (w = 0; w < cfg.workers; w++) {
			while (waitpid(child_pids[w], &status, 0) < 0)
				if (errno != EINTR)
					die_errno("waitpid()");
			child_pids[w] = 0;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, PROG ": worker process %u %s %d\n", w,
					WIFSIGNALED(status) ? "killed by signal" : "exited with",
					WIFSIGNALED(status) ? WTERMSIG(status)
							    : WEXITSTATUS(status));
				exit(EXIT_ERROR);
			}
		}
		nr_children = 0;
	} else {
		for (w = 0; w < cfg.workers; w++)
			pthread_join(threads[w], NULL);
		free(threads);
	}
}

static const char *order_name(unsigned int order, char *buf, size_t len)
{
	unsigned long long bytes = (unsigned long long)page_size << order;

	if (bytes >= 1ULL << 20)
		snprintf(buf, len, "%lluM", bytes >> 20);
	else
		snprintf(buf, len, "%lluK", bytes >> 10);
	return buf;
}

int main(int argc, char **argv)
{
	unsigned long long hist[MAX_FOLIO_ORDER + 1], pages = 0, minflt = 0;
	char fsdir[PATH_MAX + 8], census_why[256], name[16];
	double total_rate = 0;
	const char *dir;
	bool census, tmpfs_like;
	unsigned int w, o;
	size_t total;
	int err, first;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	main_pid = getpid();
	parse_args(argc, argv);
	total = cfg.size * cfg.workers;

	/* Before anything is changed, so that every exit path undoes it. */
	pc_settings_install_handlers();
	/* Least privilege (docs/robustness.md): keep what the workload and
	   the undo of its settings need (PFNs, mounts, mlock), shed the rest. */
	errno = -pc_caps_limit_if_privileged(PC_CAPS_SCENARIO);
	if (errno)
		die_errno("dropping capabilities");
	dir = prepare_backing(total, fsdir, sizeof(fsdir));

	tmpfs_like = cfg.backing == BK_TMPFS || cfg.backing == BK_TMPFS_HUGE ||
		     (cfg.backing == BK_DIR && on_tmpfs(dir));
	/* Before the file is filled: folios are sized when they are allocated. */
	if (cfg.folio != FOLIO_ASIS && tmpfs_like)
		set_shmem_mthp(cfg.folio == FOLIO_LARGE ? "always" : "never");
	else if (cfg.folio != FOLIO_ASIS && !cfg.json)
		fprintf(stderr, PROG ": note: --folio changes nothing on a %s backing\n",
			backing_names[cfg.backing]);

	create_file(dir, total);
	census = folio_census(hist, census_why, sizeof(census_why));

	sh = mmap(NULL, sizeof(*sh) + cfg.workers * sizeof(sh->res[0]), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die_errno("mmap() of the results");
	run_workers();

	for (w = 0; w < cfg.workers; w++) {
		struct result *r = &sh->res[w];

		if (r->err) {
			/* Closed first, so the unmount at exit() is not held up by it. */
			close(data_fd);
			fprintf(stderr, PROG ": worker %u: %s: %s\n", w, r->what, strerror(r->err));
			exit(EXIT_ERROR);
		}
		if (r->mismatch) {
			close(data_fd);
			fprintf(stderr,
				PROG ": verify: worker %u: file offset %llu reads 0x%02x, "
				     "the pattern is 0x%02x\n",
				w, r->bad_off, r->got, r->want);
			exit(EXIT_MISMATCH);
		}
		pages += r->pages;
		minflt += r->minflt;
		total_rate += r->ns ? (double)r->pages * 1e9 / (double)r->ns : 0;
	}

	close(data_fd);
	data_fd = -1;
	/* Unmount and restore now, so a failure shows in the exit status. */
	err = pc_settings_restore_all();
	if (err) {
		fprintf(stderr, PROG ": undoing the scratch filesystem or settings: %s\n",
			strerror(-err));
		exit(EXIT_ERROR);
	}

	if (cfg.json) {
		printf("{\"workload\":\"" PROG
		       "\",\"backing\":\"%s\",\"mode\":\"%s\",\"map\":\"%s\","
		       "\"folio\":\"%s\",\"workers\":%u,\"worker_kind\":\"%s\",\"size\":%zu,"
		       "\"page_size\":%zu,\"seconds\":%.3f,\"iterations\":%lu,\"verify\":%s,"
		       "\"faults_per_sec\":%.1f,\"pages\":%llu,\"minor_faults\":%llu,"
		       "\"pages_per_fault\":%.2f,\"per_worker\":[",
		       backing_names[cfg.backing], cfg.write ? "write" : "read",
		       cfg.private_map ? "private" : "shared", folio_names[cfg.folio], cfg.workers,
		       cfg.processes ? "processes" : "threads", cfg.size, page_size,
		       cfg.iterations ? 0.0 : cfg.seconds, cfg.iterations,
		       cfg.verify ? "true" : "false", total_rate, pages, minflt,
		       minflt ? (double)pages / (double)minflt : 0.0);
		for (w = 0; w < cfg.workers; w++) {
			struct result *r = &sh->res[w];

			printf("%s{\"faults_per_sec\":%.1f,\"pages\":%llu,\"passes\":%llu,"
			       "\"minor_faults\":%llu,\"seconds\":%.3f}",
			       w ? "," : "", r->ns ? (double)r->pages * 1e9 / (double)r->ns : 0.0,
			       r->pages, r->passes, r->minflt, (double)r->ns / 1e9);
		}
		printf("],\"folios\":");
		if (census) {
			printf("{");
			for (o = 0, first = 1; o <= MAX_FOLIO_ORDER; o++) {
				if (!hist[o])
					continue;
				printf("%s\"%s\":%llu", first ? "" : ",",
				       order_name(o, name, sizeof(name)), hist[o]);
				first = 0;
			}
			printf("}}\n");
		} else {
			printf("null}\n");
		}
	} else {
		printf(PROG ": backing=%s mode=%s map=%s folio=%s %u %s x %zu MiB%s\n",
		       backing_names[cfg.backing], cfg.write ? "write" : "read",
		       cfg.private_map ? "private" : "shared", folio_names[cfg.folio], cfg.workers,
		       cfg.processes ? "processes" : "threads", cfg.size >> 20,
		       cfg.verify ? ", verified" : "");
		if (census) {
			printf(PROG ": folios in worker 0's region:");
			for (o = 0; o <= MAX_FOLIO_ORDER; o++)
				if (hist[o])
					printf(" %s x %llu", order_name(o, name, sizeof(name)),
					       hist[o]);
			printf("\n");
		} else {
			printf(PROG ": folio sizes unknown: %s\n", census_why);
		}
		for (w = 0; w < cfg.workers; w++) {
			struct result *r = &sh->res[w];

			printf(PROG ": worker %u: %.0f faults/s (%llu pages in %llu passes, "
				    "%llu minor faults, %.3f s)\n",
			       w, r->ns ? (double)r->pages * 1e9 / (double)r->ns : 0.0, r->pages,
			       r->passes, r->minflt, (double)r->ns / 1e9);
		}
		printf(PROG ": total %.0f faults/s; %llu minor faults for %llu pages (%.2f pages "
			    "per fault)\n",
		       total_rate, minflt, pages, minflt ? (double)pages / (double)minflt : 0.0);
	}
	if (fflush(stdout))
		die_errno("writing the result");
	return 0;
}
