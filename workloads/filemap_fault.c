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
#include <libgen.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "procmm.h"
#include "scratchfs.h"
#include "cli.h"
#include "settings.h"
#include "workload.h"

#define PROG "filemap_fault"

#define MAX_WORKERS	PC_WL_MAX_WORKERS
#define MAX_WORKER_SIZE (64ULL << 30)
#define DEFAULT_SIZE	(128ULL << 20)
#define DEFAULT_SECONDS 5.0
#define MAX_SECONDS	86400.0
#define FILL_CHUNK	(1UL << 20)
#define MAX_FOLIO_ORDER 20
/* The folio census reads the first GiB of worker 0's region at most. */
#define CENSUS_MAX (1ULL << 30)

enum {
	EXIT_MISMATCH = 1,
	EXIT_USAGE = 2,
	EXIT_ERROR = 3,
	EXIT_CANNOT_RUN = PC_WL_EXIT_CANNOT_RUN,
};

enum backing { BK_TMPFS, BK_TMPFS_HUGE, BK_EXT4, BK_DIR, BK_FILE };
enum folio { FOLIO_ASIS, FOLIO_LARGE, FOLIO_SMALL };

/* NULL-ended for pc_wl_lookup(); --backing takes neither "dir" nor "file". */
static const char *const backing_names[] = {[BK_TMPFS] = "tmpfs", [BK_TMPFS_HUGE] = "tmpfs-huge",
					    [BK_EXT4] = "ext4",	  [BK_DIR] = "dir",
					    [BK_FILE] = "file",	  NULL};
/* --folio takes folio_names + 1: FOLIO_LARGE and FOLIO_SMALL. */
static const char *const folio_names[] = {
	[FOLIO_ASIS] = "as-is", [FOLIO_LARGE] = "large", [FOLIO_SMALL] = "small", NULL};
static const char *const mode_names[] = {"read", "write", NULL};
static const char *const map_names[] = {"shared", "private", NULL};

struct config {
	/* --iterations (0: run for seconds), --size (per worker), --json */
	struct pc_workload wl;
	unsigned int workers;
	bool processes;
	bool write;
	bool private_map;
	double seconds;
	enum backing backing;
	const char *dir, *file; /* BK_DIR, BK_FILE */
	enum folio folio;
	bool verify;
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

static void usage(FILE *out);

static struct config cfg = {
	.wl = {.prog = PROG,
	       .error_exit = EXIT_ERROR,
	       .usage = usage,
	       .size_max = MAX_WORKER_SIZE,
	       .size_limit = "64G",
	       .size = DEFAULT_SIZE},
	.workers = 1,
	.seconds = DEFAULT_SECONDS,
	.backing = BK_TMPFS,
	.folio = FOLIO_ASIS,
};
static size_t page_size;
static int data_fd = -1;
static struct shared *sh;

/* For the undo hook, which may run in a signal handler. */
static char base_dir[PATH_MAX];
static pid_t main_pid;

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
		"  --file PATH       no --backing: the data file is PATH, made when missing,\n"
		"                    else used as it is (SIZE x workers long), and kept:\n"
		"                    runs given one PATH fault the same page-cache folios\n"
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

/* Options given, for the ones that exclude each other. */
struct given {
	bool threads, processes, seconds, backing, folio;
};

static double parse_seconds(const char *arg)
{
	double v;
	char *end;

	if (*arg < '0' || *arg > '9')
		usage_error("--seconds wants a positive number, not '%s'", arg);
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !(v > 0) || v > MAX_SECONDS)
		usage_error("--seconds wants a number in (0, 86400], not '%s'", arg);
	return v;
}

static void parse_backing(char *arg)
{
	int i = pc_wl_lookup(arg, backing_names);
	struct stat st;

	if (i >= 0 && i != BK_DIR && i != BK_FILE) {
		cfg.backing = (enum backing)i;
	} else if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		cfg.backing = BK_DIR;
		cfg.dir = arg;
	} else {
		usage_error("--backing wants tmpfs, tmpfs-huge, ext4 or an existing directory, "
			    "not '%s'",
			    arg);
	}
}

static void own_opt(int c, char *arg, void *ctx)
{
	struct given *given = ctx;
	unsigned long n;

	switch (c) {
	case 't':
	case 'p':
		if (!pc_parse_ulong(arg, &n) || !n || n > MAX_WORKERS)
			usage_error("--threads/--processes wants 1 to 1024, not '%s'", arg);
		cfg.workers = (unsigned int)n;
		cfg.processes = c == 'p';
		if (c == 'p')
			given->processes = true;
		else
			given->threads = true;
		break;
	case 'm':
		cfg.write = pc_wl_choice("--mode", arg, mode_names) == 1;
		break;
	case 'M':
		cfg.private_map = pc_wl_choice("--map", arg, map_names) == 1;
		break;
	case 'S':
		cfg.seconds = parse_seconds(arg);
		given->seconds = true;
		break;
	case 'b':
		parse_backing(arg);
		given->backing = true;
		break;
	case 'F':
		cfg.backing = BK_FILE;
		cfg.file = arg;
		break;
	case 'f':
		cfg.folio = (enum folio)(pc_wl_choice("--folio", arg, folio_names + 1) + 1);
		given->folio = true;
		break;
	case 'v':
		cfg.verify = true;
		break;
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"threads", required_argument, NULL, 't'},
		{"processes", required_argument, NULL, 'p'},
		{"mode", required_argument, NULL, 'm'},
		{"map", required_argument, NULL, 'M'},
		{"seconds", required_argument, NULL, 'S'},
		{"backing", required_argument, NULL, 'b'},
		{"file", required_argument, NULL, 'F'},
		{"folio", required_argument, NULL, 'f'},
		{"verify", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	struct given given = {0};

	pc_wl_parse(&cfg.wl, argc, argv, opts, own_opt, &given);
	if (given.threads && given.processes)
		usage_error("--threads and --processes exclude each other%s", "");
	if (given.seconds && cfg.wl.iterations)
		usage_error("--seconds and --iterations exclude each other%s", "");
	if (cfg.file && (given.backing || given.folio))
		usage_error("--file excludes --backing and --folio (the file is what it is)%s", "");
	if (cfg.write && cfg.private_map)
		usage_error("--mode write needs --map shared (a private write is an anonymous "
			    "COW fault)%s",
			    "");
	if (cfg.backing == BK_TMPFS_HUGE && cfg.folio == FOLIO_SMALL)
		usage_error("--folio small contradicts --backing tmpfs-huge%s", "");
	if (cfg.wl.size < page_size || cfg.wl.size % page_size) {
		char ps[32];

		snprintf(ps, sizeof(ps), "%zu", page_size);
		usage_error("--size must be a non-zero multiple of the page size (%s)", ps);
	}
}

/* The byte at file offset off: differs between pages, so a misplaced page shows. */
static inline unsigned char pattern(uint64_t off)
{
	return (unsigned char)(((off >> 3) * 0x9E3779B97F4A7C15ULL) >> 56) ^ (unsigned char)off;
}

/* An undo hook (async-signal-safe), registered before the scratch
   filesystem's, so it runs after them. */
static int remove_base_dir(void)
{
	if (main_pid != getpid() || !base_dir[0])
		return 0;
	if (rmdir(base_dir) && errno != ENOENT)
		return -errno;
	base_dir[0] = '\0';
	return 0;
}

static bool on_tmpfs(const char *dir)
{
	struct statfs sfs;

	return !statfs(dir, &sfs) && sfs.f_type == TMPFS_MAGIC;
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
	const char *tmp = pc_wl_tmpdir();
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
	if (snprintf(base_dir, sizeof(base_dir), "%s/" PROG ".XXXXXX", tmp) >=
	    (int)sizeof(base_dir) - 8) {
		errno = ENAMETOOLONG;
		pc_wl_die("scratch directory name in $TMPDIR");
	}
	/* Registered before mkdtemp(): the hook removes it after the unmount. */
	pc_settings_add_undo(remove_base_dir);
	if (!mkdtemp(base_dir)) {
		int e = errno;

		base_dir[0] = '\0';
		errno = e;
		pc_wl_die("mkdtemp() in $TMPDIR");
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

/* Fills the new data file (data_fd) with the pattern. */
static void fill_file(size_t total)
{
	unsigned char *buf;
	size_t off, i, n;
	ssize_t w;

	/* Full size first: huge=within_size only allocates huge folios inside i_size. */
	if (ftruncate(data_fd, (off_t)total))
		pc_wl_die("ftruncate() of the data file");
	buf = malloc(FILL_CHUNK);
	if (!buf)
		pc_wl_die("malloc()");
	for (off = 0; off < total; off += n) {
		n = total - off < FILL_CHUNK ? total - off : FILL_CHUNK;
		for (i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		w = pwrite(data_fd, buf, n, (off_t)off);
		if (w < 0)
			pc_wl_die("filling the data file");
		if ((size_t)w != n) {
			errno = ENOSPC;
			pc_wl_die("filling the data file");
		}
	}
	free(buf);
	/* Written back now, so writeback does not run during the measurement. */
	if (cfg.backing != BK_TMPFS && cfg.backing != BK_TMPFS_HUGE && fdatasync(data_fd))
		pc_wl_die("fdatasync() of the data file");
}

/* Creates the data file, unlinked at once, and fills it with the pattern. */
static void create_file(const char *dir, size_t total)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/" PROG ".XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		pc_wl_die("data file name");
	}
	data_fd = mkostemp(path, O_CLOEXEC);
	if (data_fd < 0)
		pc_wl_die("creating the data file");
	/* The descriptor keeps it alive: no exit path can leave it behind. */
	unlink(path);
	fill_file(total);
}

/* --file: opens PATH, or makes it nameless (O_TMPFILE), fills it and links it
   as PATH, so that a run failing while it fills leaves no short file. */
static void open_file(size_t total)
{
	char dir[PATH_MAX], proc[64];
	struct stat st;

	data_fd = open(cfg.file, O_RDWR | O_CLOEXEC);
	if (data_fd < 0 && errno == ENOENT) {
		snprintf(dir, sizeof(dir), "%s", cfg.file);
		data_fd = open(dirname(dir), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (data_fd < 0)
			pc_wl_die("creating the --file (O_TMPFILE in its directory)");
		fill_file(total);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", data_fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, cfg.file, AT_SYMLINK_FOLLOW))
			pc_wl_die("linking the --file");
		return;
	}
	if (data_fd < 0 || fstat(data_fd, &st))
		pc_wl_die("opening the --file");
	if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size != total)
		usage_error("--file %s is not a regular file of --size x workers bytes", cfg.file);
}

/* The folio sizes in worker 0's region (its first GiB), or why unknown. */
struct census {
	bool ok;
	unsigned long long hist[MAX_FOLIO_ORDER + 1]; /* folios per order */
	char why[256];
};

static void folio_census(struct census *c)
{
	size_t span = cfg.wl.size < CENSUS_MAX ? cfg.wl.size : CENSUS_MAX;
	size_t npages = span / page_size, i;
	char *p;

	memset(c, 0, sizeof(*c));
	p = mmap(NULL, span, PROT_READ, MAP_SHARED | MAP_POPULATE, data_fd, 0);
	if (p == MAP_FAILED) {
		snprintf(c->why, sizeof(c->why), "mmap: %s", strerror(errno));
		return;
	}
	for (i = 0; i < npages; i++)
		(void)*(volatile char *)(p + i * page_size);
	c->ok = !pc_folio_census(p, npages, page_size, c->hist, MAX_FOLIO_ORDER, c->why,
				 sizeof(c->why));
	munmap(p, span);
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
	uint64_t base = (uint64_t)w * cfg.wl.size, t0;
	int prot = cfg.write ? PROT_READ | PROT_WRITE : PROT_READ;
	int flags = cfg.private_map ? MAP_PRIVATE : MAP_SHARED;
	int who = cfg.processes ? RUSAGE_SELF : RUSAGE_THREAD;
	struct rusage ru0, ru1;
	unsigned char sink = 0;
	size_t off;

	while (!atomic_load(&sh->go))
		sched_yield();
	getrusage(who, &ru0);
	t0 = pc_wl_now_ns();
	for (;;) {
		unsigned char *p;

		if ((cfg.wl.iterations && r->passes >= cfg.wl.iterations) || atomic_load(&sh->stop))
			break;
		p = mmap(NULL, cfg.wl.size, prot, flags, data_fd, (off_t)base);
		if (p == MAP_FAILED) {
			record_error(r, "mmap() of the region");
			break;
		}
		for (off = 0; off < cfg.wl.size; off += page_size) {
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
		if (munmap(p, cfg.wl.size)) {
			record_error(r, "munmap() of the region");
			break;
		}
		r->passes++;
		if (r->mismatch || r->err)
			break;
	}
	r->ns = pc_wl_now_ns() - t0;
	getrusage(who, &ru1);
	r->minflt = (unsigned long long)(ru1.ru_minflt - ru0.ru_minflt);
	(void)sink;
}

/* --seconds: short naps, so that a worker that fails stops the run early. */
static void run_for_seconds(void)
{
	uint64_t end = pc_wl_now_ns() + (uint64_t)(cfg.seconds * 1e9);
	struct timespec ts;
	uint64_t left, t;

	while (!atomic_load(&sh->stop) && (t = pc_wl_now_ns()) < end) {
		left = end - t < 10000000 ? end - t : 10000000;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		nanosleep(&ts, NULL);
	}
	atomic_store(&sh->stop, 1);
}

/* Once every worker exists: starts them, and stops them after --seconds. */
static void meanwhile(void)
{
	atomic_store(&sh->go, 1);
	if (!cfg.wl.iterations)
		run_for_seconds();
}

/* Before the file is filled: folios are sized when they are allocated. */
static void choose_folios(const char *dir)
{
	bool tmpfs_like = cfg.backing == BK_TMPFS || cfg.backing == BK_TMPFS_HUGE ||
			  (cfg.backing == BK_DIR && on_tmpfs(dir));

	if (cfg.folio == FOLIO_ASIS)
		return;
	/* Without 64 KiB mTHP there are no 64 KiB folios to avoid. */
	if (tmpfs_like)
		pc_wl_mthp_require(64, 1, cfg.folio == FOLIO_LARGE ? "always" : "never",
				   cfg.folio == FOLIO_SMALL);
	else if (!cfg.wl.json)
		fprintf(stderr, PROG ": note: --folio changes nothing on a %s backing\n",
			backing_names[cfg.backing]);
}

struct totals {
	unsigned long long pages, minflt;
	double rate; /* pages per second, summed over the workers */
};

static double worker_rate(const struct result *r)
{
	return r->ns ? (double)r->pages * 1e9 / (double)r->ns : 0.0;
}

/* Sums the workers' results; exits on the first that failed. */
static struct totals collect(void)
{
	struct totals t = {0};
	unsigned int w;

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
		t.pages += r->pages;
		t.minflt += r->minflt;
		t.rate += worker_rate(r);
	}
	return t;
}

/* Unmounts and restores now, so that a failure shows in the exit status. */
static void undo_now(void)
{
	int err;

	close(data_fd);
	data_fd = -1;
	err = pc_settings_restore_all();
	if (err) {
		fprintf(stderr, PROG ": undoing the scratch filesystem or settings: %s\n",
			strerror(-err));
		exit(EXIT_ERROR);
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

static double pages_per_fault(const struct totals *t)
{
	return t->minflt ? (double)t->pages / (double)t->minflt : 0.0;
}

static void print_json(const struct totals *t, const struct census *c)
{
	unsigned int w, o;
	char name[16];
	int first;

	pc_wl_json_begin();
	printf(",\"backing\":\"%s\",\"mode\":\"%s\",\"map\":\"%s\","
	       "\"folio\":\"%s\",\"workers\":%u,\"worker_kind\":\"%s\",\"size\":%zu,"
	       "\"page_size\":%zu,\"seconds\":%.3f,\"iterations\":%lu,\"verify\":%s,"
	       "\"faults_per_sec\":%.1f,\"pages\":%llu,\"minor_faults\":%llu,"
	       "\"pages_per_fault\":%.2f,\"per_worker\":[",
	       backing_names[cfg.backing], mode_names[cfg.write], map_names[cfg.private_map],
	       folio_names[cfg.folio], cfg.workers, cfg.processes ? "processes" : "threads",
	       cfg.wl.size, page_size, cfg.wl.iterations ? 0.0 : cfg.seconds, cfg.wl.iterations,
	       cfg.verify ? "true" : "false", t->rate, t->pages, t->minflt, pages_per_fault(t));
	for (w = 0; w < cfg.workers; w++) {
		struct result *r = &sh->res[w];

		printf("%s{\"faults_per_sec\":%.1f,\"pages\":%llu,\"passes\":%llu,"
		       "\"minor_faults\":%llu,\"seconds\":%.3f}",
		       w ? "," : "", worker_rate(r), r->pages, r->passes, r->minflt,
		       (double)r->ns / 1e9);
	}
	printf("],\"folios\":");
	if (!c->ok) {
		printf("null}\n");
		return;
	}
	printf("{");
	for (o = 0, first = 1; o <= MAX_FOLIO_ORDER; o++) {
		if (!c->hist[o])
			continue;
		printf("%s\"%s\":%llu", first ? "" : ",", order_name(o, name, sizeof(name)),
		       c->hist[o]);
		first = 0;
	}
	printf("}}\n");
}

static void print_text(const struct totals *t, const struct census *c)
{
	unsigned int w, o;
	char name[16];

	printf(PROG ": backing=%s mode=%s map=%s folio=%s %u %s x %zu MiB%s\n",
	       backing_names[cfg.backing], mode_names[cfg.write], map_names[cfg.private_map],
	       folio_names[cfg.folio], cfg.workers, cfg.processes ? "processes" : "threads",
	       cfg.wl.size >> 20, cfg.verify ? ", verified" : "");
	if (c->ok) {
		printf(PROG ": folios in worker 0's region:");
		for (o = 0; o <= MAX_FOLIO_ORDER; o++)
			if (c->hist[o])
				printf(" %s x %llu", order_name(o, name, sizeof(name)), c->hist[o]);
		printf("\n");
	} else {
		printf(PROG ": folio sizes unknown: %s\n", c->why);
	}
	for (w = 0; w < cfg.workers; w++) {
		struct result *r = &sh->res[w];

		printf(PROG ": worker %u: %.0f faults/s (%llu pages in %llu passes, "
			    "%llu minor faults, %.3f s)\n",
		       w, worker_rate(r), r->pages, r->passes, r->minflt, (double)r->ns / 1e9);
	}
	printf(PROG ": total %.0f faults/s; %llu minor faults for %llu pages (%.2f pages "
		    "per fault)\n",
	       t->rate, t->minflt, t->pages, pages_per_fault(t));
}

int main(int argc, char **argv)
{
	char fsdir[PATH_MAX + 8];
	struct census census;
	struct totals totals;
	const char *dir;
	size_t total;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	main_pid = getpid();
	parse_args(argc, argv);
	total = cfg.wl.size * cfg.workers;
	pc_wl_start();
	if (cfg.backing == BK_FILE) {
		open_file(total);
	} else {
		dir = prepare_backing(total, fsdir, sizeof(fsdir));
		choose_folios(dir);
		create_file(dir, total);
	}
	folio_census(&census);

	sh = mmap(NULL, sizeof(*sh) + cfg.workers * sizeof(sh->res[0]), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		pc_wl_die("mmap() of the results");
	pc_wl_run_workers(cfg.workers, cfg.processes, run_worker, meanwhile);
	totals = collect();
	undo_now();
	if (cfg.wl.json)
		print_json(&totals, &census);
	else
		print_text(&totals, &census);
	pc_wl_flush();
	return 0;
}
