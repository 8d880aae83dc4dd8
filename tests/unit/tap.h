/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP writer in the manner of the kernel's kselftest.h, for unit
 * tests that are one main() each:
 *
 *	tap_plan(n);			"TAP version 13" and "1..n" (0: plan at end)
 *	TAP_CHECK(expr, "what");	ok/not ok, failing expression and line
 *	TAP_CHECK_EQ(a, b, "what");	same, with both values on failure
 *	tap_skip("why");		ok N # SKIP why
 *	tap_diag("fmt", ...);		# fmt
 *	return tap_finish();		totals line, exit code
 *
 * Exit codes follow kselftest: 0 all passed, 1 any failed (or the plan was
 * not kept), 4 (KSFT_SKIP) every test skipped.
 *
 * TAP_XFAIL(expr, "why", "what") records a check that is known to fail
 * today (kselftest's XFAIL): it does not fail the run, but it stays visible
 * in the output and in the totals, and says XPASS once the cause is fixed.
 */
#ifndef PTECHECK_TAP_H
#define PTECHECK_TAP_H

#include <stdarg.h>
#include <stdio.h>

#define TAP_EXIT_PASS 0
#define TAP_EXIT_FAIL 1
#define TAP_EXIT_SKIP 4 /* KSFT_SKIP */

static struct {
	unsigned int planned, num;
	unsigned int pass, fail, xfail, xpass, skip;
} tap_cnt;

static inline void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	/* Keep TAP and any sanitizer report on stderr in order. */
	fflush(stdout);
}

static inline void tap_plan(unsigned int n)
{
	tap_cnt.planned = n;
	printf("TAP version 13\n");
	if (n)
		printf("1..%u\n", n);
}

static inline __attribute__((format(printf, 1, 2))) void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

/* One result line; returns ok so callers can add diagnostics on failure. */
static inline __attribute__((format(printf, 2, 3))) int tap_result(int ok, const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	tap_cnt.num++;
	if (ok)
		tap_cnt.pass++;
	else
		tap_cnt.fail++;
	snprintf(prefix, sizeof(prefix), "%sok %u ", ok ? "" : "not ", tap_cnt.num);
	va_start(ap, fmt);
	tap_vline(prefix, fmt, ap);
	va_end(ap);
	return ok;
}

static inline __attribute__((format(printf, 1, 2))) void tap_skip(const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	tap_cnt.num++;
	tap_cnt.skip++;
	snprintf(prefix, sizeof(prefix), "ok %u # SKIP ", tap_cnt.num);
	va_start(ap, fmt);
	tap_vline(prefix, fmt, ap);
	va_end(ap);
}

static inline int tap_xfail_result(int ok, const char *expr, const char *why, const char *what)
{
	tap_cnt.num++;
	if (ok) {
		tap_cnt.xpass++;
		printf("ok %u # XPASS %s\n", tap_cnt.num, what);
		printf("# '%s' now holds: turn this XFAIL into a plain check\n", expr);
	} else {
		tap_cnt.xfail++;
		printf("ok %u # XFAIL %s (%s)\n", tap_cnt.num, what, why);
	}
	fflush(stdout);
	return ok;
}

static inline int tap_finish(void)
{
	unsigned int ran = tap_cnt.num;
	int plan_broken = tap_cnt.planned && tap_cnt.planned != ran;

	if (!tap_cnt.planned)
		printf("1..%u\n", ran);
	if (plan_broken)
		printf("# Planned %u tests but ran %u\n", tap_cnt.planned, ran);
	/* What is counted; a broken plan is said above and fails the exit code. */
	printf("# Totals: pass:%u fail:%u xfail:%u xpass:%u skip:%u\n", tap_cnt.pass, tap_cnt.fail,
	       tap_cnt.xfail, tap_cnt.xpass, tap_cnt.skip);
	fflush(stdout);
	if (tap_cnt.fail || plan_broken || ran == 0)
		return TAP_EXIT_FAIL;
	if (tap_cnt.skip == ran)
		return TAP_EXIT_SKIP;
	return TAP_EXIT_PASS;
}

#define TAP_CHECK(expr, ...)                                                                       \
	do {                                                                                       \
		if (!tap_result(!!(expr), __VA_ARGS__))                                            \
			tap_diag("%s:%d: expected: %s", __FILE__, __LINE__, #expr);                \
	} while (0)

/* Integers of any width and sign; both sides are evaluated once. */
#define TAP_CHECK_EQ(a, b, ...)                                                                    \
	do {                                                                                       \
		unsigned long long tap_a_ = (unsigned long long)(a);                               \
		unsigned long long tap_b_ = (unsigned long long)(b);                               \
		if (!tap_result(tap_a_ == tap_b_, __VA_ARGS__))                                    \
			tap_diag("%s:%d: expected: %s == %s (0x%llx != 0x%llx)", __FILE__,         \
				 __LINE__, #a, #b, tap_a_, tap_b_);                                \
	} while (0)

#define TAP_XFAIL(expr, why, what)                                                                 \
	do {                                                                                       \
		if (!tap_xfail_result(!!(expr), #expr, why, what))                                 \
			tap_diag("%s:%d: known to fail: %s", __FILE__, __LINE__, #expr);           \
	} while (0)

#endif
