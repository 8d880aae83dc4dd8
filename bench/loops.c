// SPDX-License-Identifier: GPL-2.0
/* The loops the overhead and export tables measure (bench/loops.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "loops.h"
#include "scratchfs.h"

/* Loop wname's bare side (its command, figure metric, and whether the
   figure is a rate, pages/s, or a time), warmed up, then the table's rows. */
static void loop_rows(struct pc_bench *b, const struct pc_bench_loops *t, const char *wname,
		      const struct pc_bench_argv *cmd, const char *metric, bool rate)
{
	struct pc_bench_side bare = {.label = "bare",
				     .cmd = cmd,
				     .metric = metric,
				     .rate = rate,
				     .unit = rate ? "pages/s" : "ns",
				     .per = rate ? "" : "/loop"};
	char why[512];

	/* Warm-up: one bare run, discarded (page cache, binaries, mTHP pools; the
	   fault loop's file is made by it). */
	if (pc_bench_run_side(b, &bare, why, sizeof(why)))
		fprintf(stderr, "ptecheck: bench: %s warm-up: %s\n", wname, why);
	t->rows(b, wname, &bare);
	json_decref(bare.wl);
}

/* The fault loop's one file, on a tmpfs of the bench's own. */
struct ff_file {
	char base[PATH_MAX], fs[PATH_MAX + 8], path[PATH_MAX + 16];
};

/* Mounts the tmpfs: 0, or -1 with why.  The file is made by the first run. */
static int ff_prepare(struct ff_file *f, unsigned int size_mb, char *why, size_t len)
{
	char opts[80], w[512];

	if (pc_bench_mkdtemp(NULL, f->base, sizeof(f->base), why, len))
		return -1;
	snprintf(f->fs, sizeof(f->fs), "%s/fs", f->base);
	snprintf(f->path, sizeof(f->path), "%s/data", f->fs);
	/* huge=never: 4 KiB folios whatever shmem_enabled says, as before. */
	snprintf(opts, sizeof(opts), "size=%um,mode=0700,huge=never", size_mb + 16);
	if (pc_scratch_tmpfs(f->fs, opts, w, sizeof(w))) {
		snprintf(why, len, "scratch tmpfs for the fault loop's file: %s", w);
		return -1;
	}
	return 0;
}

static void ff_release(const struct ff_file *f)
{
	if (!f->base[0])
		return;
	pc_scratch_release_all();
	rmdir(f->fs);
	rmdir(f->base);
}

/*
 * The fault loop, bare and traced, on ONE file made once, so every run
 * faults the same page-cache folios: a file made per run, on a tmpfs
 * mounted per run, landed on other physical pages each time (here nearly
 * every page in a 2 MiB block of its own, a different set per run).
 */
static void fault_loop(struct pc_bench *b, const struct pc_bench_loops *t)
{
	const char *wname = "filemap-fault";
	unsigned int size_mb = b->o.quick ? 16 : 64;
	struct ff_file f = {0};
	struct pc_bench_argv ff;
	char size[16], why[600];

	if (!t->selected(b, wname))
		return;
	if (ff_prepare(&f, size_mb, why, sizeof(why))) {
		t->skip(b, wname, why);
		goto out;
	}
	snprintf(size, sizeof(size), "%uM", size_mb);
	pc_bench_workload_argv(b, &ff, "filemap_fault", "--file", f.path, "--size", size,
			       "--seconds", b->o.quick ? "0.3" : "2", "--json", NULL);
	loop_rows(b, t, wname, &ff, "faults_per_sec", true);
out:
	ff_release(&f);
}

void pc_bench_loops(struct pc_bench *b, const struct pc_bench_loops *t)
{
	struct pc_bench_argv mf;
	char iters[16];

	snprintf(iters, sizeof(iters), "%d", b->o.quick ? 2000 : 10000);
	pc_bench_workload_argv(b, &mf, "mremap_folios", "--folio", "64k", "--iterations", iters,
			       "--json", NULL);
	if (t->selected(b, "mremap-folios"))
		loop_rows(b, t, "mremap-folios", &mf, "total_ns", false);
	/* tmpfs, 4 KiB folios: the most faults per page, the most hook calls. */
	fault_loop(b, t);
}
