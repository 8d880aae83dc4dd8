// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table lock under which contpte/gather is judged (contpte_ptl.h):
 * where the lock of a page table lives, calibrated on the loader's own page
 * tables (bpf/contpte_ptl.bpf.c), and the address ranges of the functions
 * known to hold it, from /proc/kallsyms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "contpte_ptl.h"
#include "contpte_ptl.skel.h"
#include "ptecheck.skel.h"
#include "probe.h"

#define PMD_SPAN (2UL << 20) /* what one page table maps */

/* ---- the callers, from /proc/kallsyms ------------------------------------- */

static const struct {
	__u32 ctx;
	const char *name;
} callers[] = {
#define CALLER(id, fn) {PC_CP_CTX_##id, fn},
	PC_CONTPTE_LOCKED_CALLERS(CALLER)
#undef CALLER
};
#define N_CALLERS (sizeof(callers) / sizeof(callers[0]))

struct ksym {
	__u64 addr;
	int caller; /* index in callers[], -1 for any other symbol */
};

static int by_addr(const void *a, const void *b)
{
	__u64 x = ((const struct ksym *)a)->addr, y = ((const struct ksym *)b)->addr;

	return x < y ? -1 : x > y;
}

/* callers[] index of a symbol (a GCC clone "f.isra.0", "f.cold" is f), or -1;
 *exact: the name is the function's own. */
static int caller_of(const char *name, bool *exact)
{
	size_t n = strcspn(name, ".");

	for (size_t i = 0; i < N_CALLERS; i++)
		if (strlen(callers[i].name) == n && strncmp(name, callers[i].name, n) == 0) {
			*exact = name[n] == 0;
			return (int)i;
		}
	return -1;
}

/* The kernel's own symbols (not modules'), sorted; dup[i]: callers[i]'s
   exact name seen more than once (two static functions). */
static int read_kallsyms(struct ksym **out, size_t *n, int *dup)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	size_t cap = 0, len = 0;
	struct ksym *v = NULL;
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		bool exact = false;
		int c;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		if (len == cap) {
			struct ksym *w = realloc(v, (cap = cap ? cap * 2 : 65536) * sizeof(*v));

			if (!w) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = w;
		}
		c = (type == 't' || type == 'T') ? caller_of(name, &exact) : -1;
		if (c >= 0 && exact)
			dup[c]++;
		v[len++] = (struct ksym){addr, c};
	}
	fclose(f);
	qsort(v, len, sizeof(*v), by_addr);
	*out = v;
	*n = len;
	return 0;
}

/* The ranges of the callers: from each one's address to the next symbol's.
   Returns how many of callers[] were found, or -errno. */
static int find_callers(struct pc_cp_judging *j, char *why, size_t len)
{
	int dup[N_CALLERS] = {0}, err, found = 0;
	bool seen[N_CALLERS] = {0};
	struct ksym *v = NULL;
	size_t n = 0;

	err = read_kallsyms(&v, &n, dup);
	if (err) {
		snprintf(why, len, "/proc/kallsyms: %s", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < n && j->n_callers < PC_CP_MAX_CALLERS; i++) {
		int c = v[i].caller;
		size_t k = i + 1;

		if (c < 0 || dup[c] > 1 || v[i].addr == 0)
			continue;
		while (k < n && v[k].addr <= v[i].addr) /* aliases at the same address */
			k++;
		if (k == n)
			continue;
		j->lo[j->n_callers] = v[i].addr;
		j->hi[j->n_callers] = v[k].addr;
		j->ctx[j->n_callers++] = callers[c].ctx;
		found += !seen[c];
		seen[c] = true;
	}
	free(v);
	if (!found) {
		snprintf(why, len,
			 "none of the functions known to hold the page-table lock is in "
			 "/proc/kallsyms with an address (kptr_restrict?)");
		return -ENOENT;
	}
	return found;
}

/* ---- the lock: calibration -------------------------------------------------- */

/* Reads the pagemap entry of two pages in two page tables, three times:
   every read takes the page table's lock in pagemap_pmd_range(). */
static int touch_tables(void)
{
	size_t span = 3 * PMD_SPAN;
	char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;
	int fd, err = 0;

	if (m == MAP_FAILED)
		return -errno;
	a = (char *)(((unsigned long)m + PMD_SPAN - 1) & ~(PMD_SPAN - 1));
	madvise(a, 2 * PMD_SPAN, MADV_NOHUGEPAGE); /* PTE tables, not huge PMDs */
	a[0] = 1;
	a[PMD_SPAN] = 1;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	for (int round = 0; fd >= 0 && round < 3 && !err; round++) {
		for (int t = 0; t < 2 && !err; t++) {
			__u64 e;
			off_t off = (off_t)((unsigned long)(a + t * PMD_SPAN) / 4096) * 8;

			if (pread(fd, &e, sizeof(e), off) != sizeof(e))
				err = -EIO;
		}
	}
	if (fd >= 0)
		close(fd);
	munmap(m, span);
	return err;
}

/* The calibration programs, loaded and attached. */
static int load_calibration(struct contpte_ptl_bpf **out, char *why, size_t len)
{
	struct contpte_ptl_bpf *skel = contpte_ptl_bpf__open();
	int err;

	if (!skel) {
		err = -errno;
		snprintf(why, len, "cannot open the calibration object: %s", strerror(-err));
		return err;
	}
	skel->rodata->cal_pid_tgid = ((__u64)getpid() << 32) | (__u32)gettid();
	err = contpte_ptl_bpf__load(skel);
	if (!err)
		err = contpte_ptl_bpf__attach(skel);
	if (err) {
		snprintf(why, len, "kprobes on pte_offset_map_lock refused: %s", strerror(-err));
		contpte_ptl_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/* The candidate every pair agrees on, from bits (bit c: candidate c), or -1. */
static int agreed(const __u32 *bits, __u32 n)
{
	__u32 all = (1U << PC_PTL_CANDIDATES) - 1;

	for (__u32 i = 0; i < n; i++)
		all &= bits[i];
	for (int c = 0; c < PC_PTL_CANDIDATES; c++)
		if (all & (1U << c))
			return c;
	return -1;
}

/* The base, from the arm64 model or derived from the locks themselves. */
static int choose_base(struct pc_cp_judging *j, const struct contpte_ptl_bpf__bss *b, char *what,
		       size_t len)
{
	static const __u32 va_bits[PC_PTL_CANDIDATES] = PC_PTL_VA_BITS;
	int ce = agreed(b->cal_embedded, b->cal_n), cp = agreed(b->cal_pointer, b->cal_n);
	__u64 derived =
		pc_ptl_base_embedded(b->cal_table[0], b->cal_lock[0], j->ptl_off, j->page_size);
	bool same = true;

	if (ce >= 0 || cp >= 0) {
		int c = ce >= 0 ? ce : cp;

		j->ptl_mode = ce >= 0 ? PC_PTL_EMBEDDED : PC_PTL_POINTER;
		j->ptl_base = pc_arm64_vmemmap_base(va_bits[c], j->page_size);
		snprintf(what, len, "the arm64 vmemmap of VA_BITS %u", va_bits[c]);
		return 0;
	}
	for (__u32 i = 1; i < b->cal_n; i++)
		same = same && pc_ptl_base_embedded(b->cal_table[i], b->cal_lock[i], j->ptl_off,
						    j->page_size) == derived;
	if (!same)
		return -ENOENT;
	j->ptl_mode = PC_PTL_EMBEDDED;
	j->ptl_base = derived;
	snprintf(what, len, "derived from the locks (no arm64 VA_BITS model matched)");
	return 0;
}

/* Why the answers do not give a lock we can read, or NULL. */
static const char *unusable(const struct contpte_ptl_bpf__bss *b, char *buf, size_t len)
{
	__u32 tables = 0;

	if (!b->cal_ran)
		return "pte_offset_map_lock never returned to the calibrating thread (inlined or "
		       "renamed here?)";
	if (b->cal_page_size == 0)
		return "struct ptdesc has no _pt_pad_2 word (kernel older than v6.5?)";
	for (__u32 i = 0; i < b->cal_n && i < PC_PTL_PAIRS; i++) {
		if (!b->cal_held_word[i])
			return "the lock word read free while the kernel held it (not a spinlock "
			       "word: PREEMPT_RT?)";
		tables += i == 0 || b->cal_table[i] != b->cal_table[0];
	}
	if (b->cal_n < 2 || tables < 2) {
		snprintf(buf, len, "%u locks in %u page tables seen: too few to calibrate",
			 b->cal_n, tables);
		return buf;
	}
	if (b->cal_free_zero == 0) {
		snprintf(buf, len, "the lock word never read free after unlock (%u reads)",
			 b->cal_free_reads);
		return buf;
	}
	return NULL;
}

static int calibrate(struct pc_cp_judging *j, char *why, size_t len)
{
	struct contpte_ptl_bpf *skel = NULL;
	const struct contpte_ptl_bpf__bss *b;
	char base[100], buf[160];
	const char *no;
	int err = load_calibration(&skel, why, len);

	if (err)
		return err;
	err = touch_tables();
	b = skel->bss;
	if (err) {
		snprintf(why, len, "pagemap reads for the calibration: %s", strerror(-err));
	} else if ((no = unusable(b, buf, sizeof(buf)))) {
		snprintf(why, len, "%s", no);
		err = -ENOENT;
	} else {
		j->ptl_off = b->cal_ptl_off;
		j->page_size = b->cal_page_size;
		err = choose_base(j, b, base, sizeof(base));
		if (err)
			snprintf(why, len,
				 "no struct page base finds the kernel's locks from %u tables",
				 b->cal_n);
		else
			snprintf(why, len,
				 "the split lock %s struct page + %llu (%llu bytes each; base %s, "
				 "calibrated on %u locks: held nonzero, free zero in %u of %u "
				 "reads)",
				 j->ptl_mode == PC_PTL_EMBEDDED ? "in" : "pointed to from",
				 (unsigned long long)j->ptl_off, (unsigned long long)j->page_size,
				 base, b->cal_n, b->cal_free_zero, b->cal_free_reads);
	}
	contpte_ptl_bpf__destroy(skel);
	return err;
}

const struct pc_cp_judging *pc_contpte_judging(void)
{
	static struct pc_cp_judging j;
	static bool done;
	char lock[300], why[200];
	int found;

	if (done)
		return &j;
	done = true;
	if (!pc_kernel_has_func("contpte_ptep_get")) {
		snprintf(j.how, sizeof(j.how), "not tried: no contpte_ptep_get in this kernel");
		return &j;
	}
	if (calibrate(&j, lock, sizeof(lock))) {
		snprintf(j.how, sizeof(j.how),
			 "inside mlock/munlock/madvise only: the page-table lock cannot be read "
			 "(%s)",
			 lock);
		return &j;
	}
	found = find_callers(&j, why, sizeof(why));
	if (found < 0) {
		snprintf(j.how, sizeof(j.how), "inside mlock/munlock/madvise only: %s", why);
		j.n_callers = 0;
		return &j;
	}
	j.ptl = true;
	snprintf(j.how, sizeof(j.how),
		 "reads by the %d of %zu functions known to hold the page-table lock found here, "
		 "with its word held; %s",
		 found, N_CALLERS, lock);
	return &j;
}

void pc_contpte_judging_apply(const struct pc_cp_judging *j, struct ptecheck_bpf *skel)
{
	if (!j->ptl)
		return;
	skel->rodata->cp_method = PC_CP_METHOD_PTL;
	skel->rodata->cp_ptl_mode = j->ptl_mode;
	skel->rodata->cp_ptl_base = j->ptl_base;
	skel->rodata->cp_ptl_off = j->ptl_off;
	skel->rodata->cp_page_size = j->page_size;
	skel->rodata->cp_n_callers = j->n_callers;
	for (__u32 i = 0; i < j->n_callers; i++) {
		skel->rodata->cp_caller_lo[i] = j->lo[i];
		skel->rodata->cp_caller_hi[i] = j->hi[i];
		skel->rodata->cp_caller_ctx[i] = j->ctx[i];
	}
}
