// SPDX-License-Identifier: GPL-2.0
/*
 * The mutant catalogue's header (mutate/catalogue.c): a good header parses
 * into its fields; every way a header can be wrong is an error naming the
 * file and line, and the problem.
 */
#include <string.h>
#include "catalogue.h"
#include "tap.h"

#define PATH "mutate/mutants/mremap-write-bit.patch"
#define DIFF "---\n--- a/mm/mremap.c\n+++ b/mm/mremap.c\n@@ -1 +1 @@\n-a\n+b\n"

static const char *const good_keys[] = {
	"Mutant: mremap-write-bit\n",
	"Bug: the batch ignores the write bit: set_ptes widens read-only PTEs\n",
	"Class: write-bit\n",
	"Breaks: mremap/perms mremap/moved\n",
	"Expect: mremap/perms gate:batching-regression mremap/kernel-log\n",
	"Arch: all\n",
	"Reintroduces: 0123456789ab \"mm: mremap: respect the write bit\"\n",
	"Source: fixed in v6.17-rc3; https://example.org/a; https://example.org/b\n",
	"Trigger: a large folio whose PTEs differ in write permission at the move\n",
};
#define N_KEYS (int)(sizeof(good_keys) / sizeof(good_keys[0]))

/* The good header with key i replaced by repl (NULL: dropped), then diff. */
static int parse_with(int i, const char *repl, const char *diff, struct pc_mutant *m, char *err,
		      size_t errlen)
{
	char buf[4096] = "";

	for (int k = 0; k < N_KEYS; k++) {
		if (i == -2 && (k == 6 || k == 7)) /* the mutant of no real bug */
			strcat(buf, k == 6 ? "Reintroduces: none\n" : "Source: none\n");
		else
			strcat(buf, k != i ? good_keys[k] : repl ? repl : "");
	}
	strcat(buf, diff);
	return pc_mutant_parse(PATH, buf, strlen(buf), m, err, errlen);
}

static void expect_error(int i, const char *repl, const char *diff, const char *want,
			 const char *what)
{
	struct pc_mutant m;
	char err[1024] = "";
	int ret = parse_with(i, repl, diff, &m, err, sizeof(err));

	if (!tap_result(ret == -1 && strstr(err, want) != NULL, "refused: %s", what))
		tap_diag("got %d: '%s', want '%s'", ret, err, want);
}

static void check_good(void)
{
	struct pc_mutant m;
	char err[1024] = "";

	TAP_CHECK_EQ(parse_with(-1, NULL, DIFF, &m, err, sizeof(err)), 0, "a good header parses");
	TAP_CHECK(!strcmp(m.name, "mremap-write-bit") && !strcmp(m.bug_class, "write-bit") &&
			  !strcmp(m.arch, "all"),
		  "name, class and arch are read");
	TAP_CHECK(m.n_breaks == 2 && !strcmp(m.breaks[1], "mremap/moved"), "Breaks: two checks");
	TAP_CHECK(m.n_expect == 3 && !strcmp(m.expect[1], "gate:batching-regression") &&
			  !strcmp(m.expect[2], "mremap/kernel-log"),
		  "Expect: a check, a gate rule, a kernel-log check");
	TAP_CHECK(strstr(m.reintroduces, "respect the write bit") != NULL, "Reintroduces is kept");
	TAP_CHECK(pc_mutant_is_real(&m) && !strcmp(m.fixed_in, "v6.17-rc3") &&
			  strstr(m.source, "https://example.org/b") != NULL,
		  "a real bug: fixed in, its sources kept");
	TAP_CHECK_EQ(parse_with(7,
				"Source: fixed in v7.0; <1234.5678@example.org>; "
				"https://example.org/b\n",
				DIFF, &m, err, sizeof(err)),
		     0, "a source may be a mail's <Message-ID>");
	TAP_CHECK_EQ(parse_with(-2, NULL, DIFF, &m, err, sizeof(err)), 0,
		     "Reintroduces: none with Source: none");
	TAP_CHECK(!pc_mutant_is_real(&m), "Reintroduces: none is no real bug");
}

static void check_bad(void)
{
	expect_error(2, "Klass: write-bit\n", DIFF, PATH ":3: unknown key 'Klass'",
		     "an unknown key");
	expect_error(3, NULL, DIFF, PATH ":4: out of order: key 'Expect' (expected 'Breaks' here)",
		     "a missing key in the middle");
	expect_error(8, NULL, DIFF, PATH ":9: missing key 'Trigger' before '---'",
		     "a missing last key");
	expect_error(1, "Bug: one\n  continued\n", DIFF, PATH ":3: continuation lines",
		     "a continuation line");
	expect_error(2, "Class: write-bit\nClass: fold\n", DIFF,
		     PATH ":4: repeated or misplaced key 'Class'", "a repeated key");
	expect_error(3, "Breaks: mremap/perm\n", DIFF, PATH ":4: unknown check 'mremap/perm'",
		     "an unknown check name");
	expect_error(4, "Expect: gate:batching\n", DIFF, PATH ":5: unknown gate rule 'batching'",
		     "an unknown gate rule");
	expect_error(3, "Breaks: nopath/kernel-log\n", DIFF, "unknown check 'nopath/kernel-log'",
		     "a kernel-log check of no path");
	expect_error(3,
		     "Breaks: mremap/moved mremap/moved mremap/moved mremap/moved mremap/moved "
		     "mremap/moved mremap/moved mremap/moved mremap/moved\n",
		     DIFF, PATH ":4: more than 8 names", "more names than a header holds");
	expect_error(2, "Class: typo\n", DIFF, PATH ":3: unknown class 'typo' (one of: write-bit",
		     "an unknown class");
	expect_error(5, "Arch: riscv\n", DIFF, PATH ":6: unknown arch 'riscv'", "an unknown arch");
	expect_error(0, "Mutant: other-name\n", DIFF, "is not the file's stem 'mremap-write-bit'",
		     "a name that is not the file's");
	expect_error(0, "Mutant: Bad_Name\n", DIFF, "is not [a-z0-9-]+", "a name with bad letters");
	expect_error(6, "Reintroduces: abc subject\n", DIFF, PATH ":7: 'abc subject' is neither",
		     "a malformed Reintroduces");
	expect_error(6, "Reintroduces: 0123abcd \"mm: a subject\"\n", DIFF,
		     PATH ":7: '0123abcd \"mm: a subject\"' is neither",
		     "an id shorter than the kernel's 12 digits");
	expect_error(6, "Reintroduces: 0123456789ab \"\"\n", DIFF, PATH ":7:", "an empty subject");
	expect_error(7, "Source: none\n", DIFF, PATH ":8: 'none' does not begin 'fixed in TAG;'",
		     "a real bug without its source");
	expect_error(7, "Source: fixed in 6.17; https://example.org/a; https://example.org/b\n",
		     DIFF, PATH ":8: 'fixed in 6.17;", "a fixed-in that is no tag");
	expect_error(7, "Source: fixed in v6.17; https://example.org/a\n", DIFF,
		     PATH ":8: 1 source(s): a real bug's id is confirmed from two sources",
		     "one source only");
	expect_error(7, "Source: fixed in v6.17; https://example.org/a; lore somewhere\n", DIFF,
		     PATH ":8: source 2 'lore somewhere' is neither an https:// address nor a "
			  "<Message-ID>",
		     "a source that is no address");
	expect_error(1, "Bug:\n", DIFF, PATH ":2: key 'Bug' has no value", "an empty value");
	expect_error(-1, NULL, "", PATH ": no '---' line ends the header", "no end of the header");
	expect_error(-1, NULL, "---\n", PATH ": no unified diff after the header", "no diff");
}

int main(void)
{
	tap_plan(0);
	check_good();
	check_bad();
	return tap_finish();
}
