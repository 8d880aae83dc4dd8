// SPDX-License-Identifier: GPL-2.0
/*
 * The figures table of `ptecheck bench`: the figures of the original
 * patches, each the speedup of side B over side A of one workload, beside
 * the patch's reference value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "figures.h"
#include "scratchfs.h"
#include "side.h"

static bool is_arm64(void)
{
	return !strcmp(PTECHECK_ARCH_NAME, "arm64");
}

/* A new row of this table: what its ratio is of, and the patch's figure. */
static json_t *figure_row(const char *name, const char *title, const char *ratio_of,
			  const char *reference, double reference_ratio)
{
	json_t *row = pc_bench_row_new(name, "figures", title, PC_BENCH_SPEEDUP);

	json_object_set_new(row, "ratio_of", json_string(ratio_of));
	pc_bench_row_reference(row, reference, reference_ratio);
	return row;
}

static void finish_measured(struct pc_bench *b, json_t *row, const char *note)
{
	json_object_set_new(row, "note", json_string(note));
	pc_bench_row_finish(b, row, PC_BENCH_MEASURED, NULL);
}

/* ---- figure 1: mremap of 1 MiB, 64 KiB folios vs 4 KiB pages --------------- */

static void fig_mremap_folios(struct pc_bench *b)
{
	const char *name = "mremap-folios";
	unsigned long iters = b->o.quick ? 1000 : 10000;
	struct pc_bench_argv a4, a64;
	struct pc_bench_side sa = {.label = "4k",
				   .cmd = &a4,
				   .metric = "mremap_ns_per_iter",
				   .unit = "ns",
				   .per = "/mremap"};
	struct pc_bench_side sb = {.label = "64k",
				   .cmd = &a64,
				   .metric = "mremap_ns_per_iter",
				   .unit = "ns",
				   .per = "/mremap"};
	struct pc_bench_series ser;
	char title[160], it[24], note[400];
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mremap of 1 MiB: 4 KiB pages (A) vs 64 KiB folios (B), %lu iterations", iters);
	row = figure_row(name, title, "mremap time per call, A / B",
			 "1.9 s -> 1.2 s on Apple M3 (arm64; on x86 expect ~1.0: mremap batches "
			 "are 1 PTE there)",
			 1.9 / 1.2);
	snprintf(it, sizeof(it), "%lu", iters);
	pc_bench_workload_argv(b, &a4, "mremap_folios", "--folio", "4k", "--iterations", it,
			       "--json", NULL);
	pc_bench_workload_argv(b, &a64, "mremap_folios", "--folio", "64k", "--iterations", it,
			       "--json", NULL);
	if (pc_bench_pairs(b, row, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser))
		goto out;
	pc_bench_row_instructions(b, row, &ser);
	snprintf(note, sizeof(note),
		 is_arm64()
			 ? "arm64: 64 KiB folios are moved in contpte batches of 16 PTEs; "
			   "the patch's speedup was %.2f (a before/after-patch ratio, here "
			   "4 KiB pages vs 64 KiB folios on one kernel); measured %.2f"
			 : "x86: ~1.0 is the expected result (mremap moves one PTE per batch "
			   "here, so 64 KiB folios save nothing; the reference %.2f is arm64's); "
			   "measured %.2f",
		 1.9 / 1.2, ser.ratio.median);
	finish_measured(b, row, note);
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
}

/* ---- figure 2: mremap of 1 GiB, PMD-aligned vs misaligned ------------------- */

/*
 * A warm-up then b->o.repeat runs of a, each one pair: it maps, moves
 * aligned, maps again, moves misaligned.  The pairs measured (va: the
 * misaligned times, vb: the aligned ones, r: their ratios); why is set
 * when a run failed.
 */
static int pmd_pairs(struct pc_bench *b, const struct pc_bench_argv *a, double *va, double *vb,
		     double *r, char *why, size_t len)
{
	struct pc_bench_child c;
	char line[200];
	int n = 0, rc;
	json_t *wl;

	for (int i = -1; i < b->o.repeat; i++) {
		rc = pc_bench_run(b, a->v, PC_BENCH_CHILD_TIMEOUT_S, &c);
		if (rc) {
			snprintf(why, len, "cannot start %s: %s", a->v[0], strerror(-rc));
			break;
		}
		wl = pc_bench_workload_json(c.out);
		if (!wl) {
			snprintf(why, len, "%s%s",
				 WIFEXITED(c.status) && WEXITSTATUS(c.status) == 4
					 ? "cannot run here: "
					 : "mremap_pmd failed: ",
				 pc_bench_first_line(c.err, line, sizeof(line)));
			pc_bench_child_free(&c);
			break;
		}
		pc_bench_child_free(&c);
		if (i >= 0) {
			va[n] = json_number_value(json_object_get(wl, "misaligned_median_ns"));
			vb[n] = json_number_value(json_object_get(wl, "aligned_median_ns"));
			r[n] = vb[n] > 0 ? va[n] / vb[n] : 0;
			n++;
		}
		json_decref(wl);
	}
	return n;
}

static void fig_mremap_pmd(struct pc_bench *b)
{
	const char *name = "mremap-pmd";
	double va[PC_BENCH_MAX_REPEAT], vb[PC_BENCH_MAX_REPEAT], r[PC_BENCH_MAX_REPEAT];
	struct pc_bench_stats sa, sb, sr;
	struct pc_bench_argv a;
	char title[160], why[512] = "", note[512];
	json_t *row;
	int n;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mremap of %s: misaligned, PTE by PTE (A) vs PMD-aligned (B), 4 KiB pages",
		 b->o.quick ? "256 MiB" : "1 GiB");
	row = figure_row(name, title, "time of one mremap call, A / B",
			 "3.4-3.6 ms -> 144-160 us on x86 (merged patch); early version 160-250 "
			 "ms -> 380-400 us",
			 3.5e-3 / 152e-6);
	pc_bench_workload_argv(b, &a, "mremap_pmd", "--size", b->o.quick ? "256M" : "1G", "--mode",
			       "both", "--iterations", "1", "--json", NULL);
	n = pmd_pairs(b, &a, va, vb, r, why, sizeof(why));
	if (why[0] || n == 0) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why[0] ? why : "no pair measured");
		return;
	}
	pc_bench_row_ratios(row, r, n);
	pc_bench_row_side(row, "a", "misaligned", va, n, "ns", "/mremap");
	pc_bench_row_side(row, "b", "aligned", vb, n, "ns", "/mremap");
	pc_bench_stats(va, n, &sa);
	pc_bench_stats(vb, n, &sb);
	pc_bench_stats(r, n, &sr);
	snprintf(note, sizeof(note),
		 "the reference is before/after the patch for an aligned 1 GiB move; here the "
		 "kernel has it, so A (misaligned: every PTE moved) plays 'before' and B "
		 "(aligned: one PMD per 2 MiB) 'after': %.3g ms -> %.3g us%s, speedup %.1f "
		 "(merged patch: ~23)",
		 sa.median / 1e6, sb.median / 1e3,
		 b->o.quick ? " for 256 MiB (--quick; 1 GiB takes about 4x)" : "", sr.median);
	finish_measured(b, row, note);
}

/* ---- figure 3: filemap read faults, large vs small folios -------------------- */

/* The source device of the mount on dir, from /proc/self/mountinfo. */
static int mount_source(const char *dir, char *dev, size_t len)
{
	char line[1024], mnt[PATH_MAX], src[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		if (!strcmp(mnt, dir)) {
			snprintf(dev, len, "%s", src);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * ext4 on a loop device, twice: mounted as is (large folios, where ext4 has
 * them) and with data=journal, with which ext4 keeps 4 KiB folios.  The
 * journal mode cannot change on remount, so the second is unmounted and
 * mounted again on the same loop device.
 */
static int fm_mount(const char *dir, unsigned int mb, bool journal, char *why, size_t len)
{
	char dev[PATH_MAX];
	int err = pc_scratch_blockfs(dir, "ext4", mb, why, len);

	if (err || !journal)
		return err;
	err = mount_source(dir, dev, sizeof(dev));
	if (err) {
		snprintf(why, len, "no mount on %s in /proc/self/mountinfo", dir);
		return err;
	}
	if (umount2(dir, 0)) {
		err = -errno;
		snprintf(why, len, "umount %s: %s", dir, strerror(errno));
		return err;
	}
	if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, "data=journal")) {
		err = -errno;
		snprintf(why, len, "mount %s with data=journal: %s", dev, strerror(errno));
		/* Back as it was, so the scratch bookkeeping can undo it. */
		mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, NULL);
		return err;
	}
	return 0;
}

/* The filemap row's directory under TMPDIR and its two ext4 mounts, or
   under --fs-dir and its two directories. */
struct fm_dirs {
	char base[PATH_MAX], small[PATH_MAX + 8], large[PATH_MAX + 8];
	bool in_fs_dir;
};

/*
 * Without mkfs (a guest's initramfs has none): small and large are two
 * directories on the --fs-dir filesystem, small with ext4's per-inode
 * journal-data flag (chattr +j), which its files inherit; ext4 keeps such
 * a file's folios 4 KiB (ext4_set_inode_mapping_order, v6.16+), as
 * data=journal does.  The workloads' folio census says what each side
 * really had.
 */
static int fm_dirs_in(struct fm_dirs *d, const char *fs_dir, char *why, size_t len)
{
	int fd, fl = 0, err = 0;

	if (mkdir(d->small, 0700) || mkdir(d->large, 0700)) {
		snprintf(why, len, "mkdir in %s: %s", d->base, strerror(errno));
		return -1;
	}
	fd = open(d->small, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0)
		err = errno;
	fl |= FS_JOURNAL_DATA_FL;
	if (!err && ioctl(fd, FS_IOC_SETFLAGS, &fl) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, len,
			 "--fs-dir %s: the journal-data flag (chattr +j) on %s: %s (the 4 KiB "
			 "side needs ext4 with a journal%s)",
			 fs_dir, d->small, strerror(err),
			 err == EPERM ? ", and CAP_SYS_RESOURCE to set the flag" : "");
		return -1;
	}
	return 0;
}

/* Makes base and mounts small and large in it (or, with --fs-dir, makes
   them there): 0, or -1 with why. */
static int fm_prepare(struct fm_dirs *d, const char *fs_dir, unsigned int size_mb, char *why,
		      size_t len)
{
	char w[512];

	if (pc_bench_mkdtemp(fs_dir, d->base, sizeof(d->base), why, len))
		return -1;
	d->in_fs_dir = fs_dir != NULL;
	snprintf(d->small, sizeof(d->small), "%s/small", d->base);
	snprintf(d->large, sizeof(d->large), "%s/large", d->base);
	if (fs_dir)
		return fm_dirs_in(d, fs_dir, why, len);
	if (fm_mount(d->large, 2 * size_mb + 64, false, w, sizeof(w)) ||
	    fm_mount(d->small, 2 * size_mb + 64, true, w, sizeof(w))) {
		snprintf(why, len, "ext4 on a loop device: %s", w);
		return -1;
	}
	return 0;
}

static void fm_release(const struct fm_dirs *d)
{
	if (!d->base[0])
		return;
	if (!d->in_fs_dir)
		pc_scratch_release_all();
	rmdir(d->small);
	rmdir(d->large);
	rmdir(d->base);
}

/* The folios each side's file had and the pages a fault mapped: row's extra and note. */
static void fm_note(json_t *row, const json_t *wa, const json_t *wb, char *note, size_t len)
{
	bool small_large, large_large;
	char cs[160], cl[160];
	double ppf_a, ppf_b;

	pc_bench_census_text(wa, cs, sizeof(cs), &small_large);
	pc_bench_census_text(wb, cl, sizeof(cl), &large_large);
	ppf_a = json_number_value(json_object_get(wa, "pages_per_fault"));
	ppf_b = json_number_value(json_object_get(wb, "pages_per_fault"));
	json_object_set_new(row, "extra",
			    json_pack("{s:s, s:s, s:f, s:f}", "folios_a", cs, "folios_b", cl,
				      "pages_per_fault_a", ppf_a, "pages_per_fault_b", ppf_b));
	snprintf(note, len,
		 "folios: A %s, B %s%s; pages per fault: A %.1f, B %.1f.  The reference is "
		 "before/after the batching with large folios on both sides; here one kernel "
		 "compares folio sizes, and %s, so the ratio also counts the faults large "
		 "folios save, not only batched rmap and refcount",
		 cs, cl,
		 small_large || !large_large ? " (NOT the intended small/large split: read the "
					       "ratio with care)"
					     : "",
		 ppf_a, ppf_b,
		 ppf_b > ppf_a * 1.5 ? "a read fault maps a whole large folio here"
				     : "both sides map about as many pages per fault");
}

static void fig_filemap(struct pc_bench *b)
{
	const char *name = "filemap-fault", *secs = b->o.quick ? "0.3" : "2";
	unsigned int size_mb = b->o.quick ? 16 : 64;
	struct pc_bench_argv as, al;
	struct pc_bench_side sa = {.label = "small",
				   .cmd = &as,
				   .metric = "faults_per_sec",
				   .rate = true,
				   .unit = "pages/s",
				   .per = ""};
	struct pc_bench_side sb = {.label = "large",
				   .cmd = &al,
				   .metric = "faults_per_sec",
				   .rate = true,
				   .unit = "pages/s",
				   .per = ""};
	struct pc_bench_series ser;
	struct fm_dirs d = {0};
	char size[16], why[600], note[900], how[1300];
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	row = figure_row(name,
			 "filemap read faults (will-it-scale page_fault shape), ext4: 4 KiB "
			 "folios (A, data=journal) vs large folios (B)",
			 "pages faulted in per second, B / A",
			 "+15 % from batched rmap, +2 % from batched refcount", 1.15 * 1.02);
	if (fm_prepare(&d, b->o.fs_dir, size_mb, why, sizeof(why))) {
		pc_bench_row_finish(b, row, PC_BENCH_SKIPPED, why);
		goto out;
	}
	snprintf(size, sizeof(size), "%uM", size_mb);
	pc_bench_workload_argv(b, &as, "filemap_fault", "--backing", d.small, "--size", size,
			       "--seconds", secs, "--json", NULL);
	pc_bench_workload_argv(b, &al, "filemap_fault", "--backing", d.large, "--size", size,
			       "--seconds", secs, "--json", NULL);
	if (pc_bench_pairs(b, row, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser))
		goto out;
	fm_note(row, sa.wl, sb.wl, note, sizeof(note));
	if (d.in_fs_dir) {
		snprintf(how, sizeof(how),
			 "files in --fs-dir %s, A's directory with ext4's journal-data flag "
			 "(chattr +j), not a data=journal mount; %s",
			 b->o.fs_dir, note);
		finish_measured(b, row, how);
	} else {
		finish_measured(b, row, note);
	}
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
	fm_release(&d);
}

/* ---- figure 4: contpte mlock/munlock loop (arm64) ------------------------------ */

static void fig_contpte(struct pc_bench *b)
{
	const char *name = "contpte-mlock";
	struct pc_bench_argv a4, a64;
	struct pc_bench_side sa = {.label = "4k",
				   .cmd = &a4,
				   .metric = "median_ns",
				   .unit = "ns",
				   .per = "/iteration"};
	struct pc_bench_side sb = {.label = "64k",
				   .cmd = &a64,
				   .metric = "median_ns",
				   .unit = "ns",
				   .per = "/iteration"};
	struct pc_bench_series ser;
	char title[200], it[16], note[700];
	const char *size = b->o.quick ? "8M" : "64M";
	int iters = b->o.quick ? 20 : 100;
	bool emulated = !strcmp(b->platform.kind, "emulated");
	long long f64, f64_a, lost;
	json_t *row;

	if (!pc_bench_selected(b, name))
		return;
	snprintf(title, sizeof(title),
		 "mlock+r/w+munlock loop over %s: 4 KiB pages (A) vs 64 KiB contpte folios (B), "
		 "%d iterations",
		 size, iters);
	row = figure_row(name, title, "median time per iteration, A / B", "31.5 s -> 28.1 s",
			 31.5 / 28.1);
	if (!is_arm64()) {
		pc_bench_row_finish(b, row, PC_BENCH_NOT_APPLICABLE,
				    "arm64 only (run in the arm64 guest: guest/vmtest --arch arm64 "
				    "--build-dir build-guest-arm64 -- bench --quick --only "
				    "contpte-mlock)");
		return;
	}
	snprintf(it, sizeof(it), "%d", iters);
	pc_bench_workload_argv(b, &a4, "contpte_mlock", "--folio", "4k", "--size", size,
			       "--iterations", it, "--json", NULL);
	pc_bench_workload_argv(b, &a64, "contpte_mlock", "--folio", "64k", "--size", size,
			       "--iterations", it, "--json", NULL);
	if (pc_bench_pairs(b, row, &sa, &sb, PC_BENCH_SPEEDUP, 2, &ser))
		goto out;
	pc_bench_row_instructions(b, row, &ser);
	f64 = json_integer_value(json_object_get(sb.wl, "folios_64k"));
	f64_a = json_integer_value(json_object_get(sa.wl, "folios_64k"));
	lost = json_integer_value(json_object_get(sa.wl, "bytes_lost")) +
	       json_integer_value(json_object_get(sb.wl, "bytes_lost"));
	/* Counts mean something under TCG; wall time there is the emulator's. */
	json_object_set_new(row, "counts",
			    json_pack("{s:I, s:I, s:i, s:I}", "folios_64k_b", f64, "folios_64k_a",
				      f64_a, "iterations", iters, "bytes_lost", lost));
	snprintf(note, sizeof(note),
		 "%scounts: B formed %lld 64 KiB folios (A %lld), %d iterations per run, %lld "
		 "bytes lost; the reference is before/after the patch on the 256 MiB x 500 loop "
		 "(real hardware)%s",
		 emulated ? "timings EMULATED (QEMU TCG): the ratio is of emulated runs and says "
			    "little about hardware; "
			  : "",
		 f64, f64_a, iters, lost,
		 f64 > 0 ? "" : "; no 64 KiB folio formed, so B is not contpte");
	finish_measured(b, row, note);
out:
	json_decref(sa.wl);
	json_decref(sb.wl);
}

static void figures(struct pc_bench *b)
{
	fig_mremap_folios(b);
	fig_mremap_pmd(b);
	fig_filemap(b);
	fig_contpte(b);
}

static const char *const figure_rows[] = {
	"mremap-folios", "mremap-pmd", "filemap-fault", "contpte-mlock", NULL,
};

const struct pc_bench_table pc_bench_figures = {
	.name = "figures",
	.heading = "Figures: speedup of B over A (time A / time B), median [min..max] of the "
		   "per-pair ratios",
	.rows = figure_rows,
	.run = figures,
};
