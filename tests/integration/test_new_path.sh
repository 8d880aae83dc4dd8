#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs/architecture.md's recipe for a new path, held to its word: a copy
# of the tree gets a throwaway path "demo" (its header with one check and
# its predicate, trace/demo.c, verify/demo.c with one scenario, its unit
# test) and one line in include/ptecheck/paths.list, and nothing else.
#   (a) the copy's changes are exactly those files and that line;
#   (b) it builds (BPF included: every layer expands the same list);
#   (c) `ptecheck run --help` and `--list` name the path and its scenario;
#   (d) `ptecheck run --suite demo` judges demo/kept [oracle:data] and
#       passes, with its name and tier in the JSON report;
#   (e) the path's unit test runs, and so do the generic tests over every
#       path (check names, the session's paths), demo among them.
# No guest: a build of the copy, about two minutes.
#
# Usage: bash test_new_path.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed.

# check's expressions are eval'd: single quotes on purpose.
# shellcheck disable=SC2016
set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_new_path "$@"
# shellcheck source=tests/integration/lib/tap.sh
source "$ROOT/tests/integration/lib/tap.sh"
TAP_LOG=$tmp/build.log
T=$tmp/tree
echo "TAP version 13"

# The tree as it is (tracked and not), without builds or git metadata; a
# fresh repository in it to tell what the path changed.
mkdir -p "$T"
tar -C "$ROOT" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$T" -xf -
if ! git -C "$T" init -q || ! git -C "$T" add -A ||
	! git -C "$T" -c user.name=t -c user.email=t@t commit -qm base; then
	not_ok "copy the tree"
	tap_end
fi

cat >"$T/include/ptecheck/demo.h" <<'EOF'
/* SPDX-License-Identifier: GPL-2.0 */
/* A throwaway path (tests/integration/test_new_path.sh). */
#ifndef PTECHECK_DEMO_H
#define PTECHECK_DEMO_H

#include "common.h"

#define PC_CHECKS_demo(X)   X(DEMO_KEPT, "demo/kept")
#define PC_EVIDENCE_demo(E) E(DEMO_KEPT, DATA_LOST, "a byte written was not read back")

PC_INLINE int pc_demo_kept(__u8 written, __u8 seen)
{
	return pc_written_survives(written, seen);
}

#endif
EOF
cat >"$T/trace/demo.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include "path.h"

static const char *const tracepoints[] = {NULL};

static void demo_paths(const struct pc_features *f)
{
	f->line("demo", true, "a throwaway path");
}

static void demo_tiers(const struct pc_features *f)
{
	f->tiers("demo/kept", "oracle:data");
}

const struct pc_trace_path pc_demo_trace = {
	.name = "demo",
	.tracepoints = tracepoints,
	.feature_paths = demo_paths,
	.feature_tiers = demo_tiers,
};
EOF
cat >"$T/verify/demo.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include "attempt.h"
#include "measure.h"

static int measure(struct pc_scenario_ctx *ctx, const void *data, struct pc_attempt *a)
{
	int slot = pc_slot_add(a, ctx, PC_CHK_DEMO_KEPT, TIER_DATA);
	char *p = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)data;
	if (p == MAP_FAILED)
		return pc_skip_rest(a, "mmap", errno);
	for (size_t i = 0; i < 16; i++)
		p[i * PAGE] = (char)pc_page_byte(i, SALT_A);
	for (size_t i = 0; i < 16; i++) {
		__u8 want = pc_page_byte(i, SALT_A), seen = (__u8)p[i * PAGE];
		int v = pc_demo_kept(want, seen);

		a->msg[slot].checked++;
		if (pc_is_violation(v))
			pc_oracle_add_evidence(&a->msg[slot], v, (__u64)(uintptr_t)(p + i * PAGE), 0,
					       want, seen, "page %zu", i);
	}
	pc_slot_judge(a, slot);
	munmap(p, 16 * PAGE);
	return 0;
}

static int run(struct pc_scenario_ctx *ctx, const void *data)
{
	return pc_attempts_run(ctx, measure, data);
}

static const struct pc_scenario scenarios[] = {
	{"demo-bytes", "16 pages written and read back", 0, run, NULL},
};

const struct pc_suite pc_demo_suite = {
	.name = "demo",
	.description = "a throwaway path",
	.scenarios = scenarios,
	.n_scenarios = 1,
};
EOF
cat >"$T/tests/unit/test_demo.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <ptecheck/demo.h>
#include "pte_craft.h"

int main(void)
{
	tap_plan(0);
	CHECK_VERDICT(pc_demo_kept(7, 7), PC_OK, "kept: silent");
	CHECK_VERDICT(pc_demo_kept(7, 0), PC_V_DATA_LOST, "lost: DATA_LOST");
	return tap_finish();
}
EOF
echo demo >>"$T/include/ptecheck/paths.list"

# (a) Nothing but the path's own files and its line.
# shellcheck disable=SC2034 # check evals them
changed=$(git -C "$T" status --porcelain | sort | tr '\n' ' ')
# shellcheck disable=SC2034
want=$(printf '%s\n' ' M include/ptecheck/paths.list' '?? include/ptecheck/demo.h' \
	'?? tests/unit/test_demo.c' '?? trace/demo.c' '?? verify/demo.c' | sort | tr '\n' ' ')
check "the new path is its own four files and one line of paths.list" '[ "$changed" = "$want" ]'
check "that line is the whole change to paths.list" \
	'[ "$(git -C "$T" diff --numstat include/ptecheck/paths.list)" = "$(printf "1\t0\tinclude/ptecheck/paths.list")" ]'

# (b) It builds.
if cmake -S "$T" -B "$T/build" -DCMAKE_BUILD_TYPE=Release >"$TAP_LOG" 2>&1 &&
	cmake --build "$T/build" -j2 --target ptecheck test_demo test_check_text test_trace_paths \
		>>"$TAP_LOG" 2>&1; then
	ok "the tree with the demo path builds (BPF object, ptecheck, the unit tests)"
else
	not_ok "the tree with the demo path builds" "" "$TAP_LOG"
	tap_end
fi
D=$T/build/ptecheck

# (c) The registry reaches the help and the scenario list.
check "run --help lists the demo suite" \
	'"$D" run --help 2>&1 | grep -q "demo or all"'
check "run --list --suite demo lists its scenario" \
	'"$D" run --list --suite demo 2>&1 | grep -q demo-bytes'
# (e) Its unit test, and the generic ones over every path, demo included.
for t in test_demo test_check_text test_trace_paths; do
	check "$t passes with the demo path" \
		'"$T/build/tests/$t" >"$tmp/$t.tap" 2>&1 && ! grep -q "^not ok" "$tmp/$t.tap"'
done
check "test_check_text names demo/kept" 'grep -q "demo/kept" "$tmp/test_check_text.tap"'

# (d) It runs and judges.
"$D" run --suite demo --format json --output "$tmp/demo.json" >"$tmp/run.out" 2>&1
# shellcheck disable=SC2034 # check evals it
rc=$?
check "run --suite demo exits 0" '[ "$rc" -eq 0 ]'
check "demo/kept [oracle:data] passed, 16 judged" \
	'jq -e '\''.results[] | select(.check == "demo/kept" and .tier == "oracle:data") | .status == "pass" and .checked == 16'\'' "$tmp/demo.json" >/dev/null'

tap_end
