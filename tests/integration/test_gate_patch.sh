#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gate/gate-patch without kernels (docs/gate-patch.md): a series of two
# patches made here with git format-patch (and a cover letter) against a
# fake kernel tree (lib/fake_kernel.sh: its "image" is mm/mremap.c, and
# the fake vmtest reports a check failure for an image carrying
# "(fixture: caught)", which the second patch adds):
#   (a) usage errors exit 2, --help documents the exit codes;
#   (b) the series applies, both arches build and boot twice each, the
#       gate does not ship it, every output is written and the summary
#       names what ran; a range of a git repository (--git) of the first
#       patch alone ships;
#   (c) a patch that does not apply exits 2 naming the patch and the hunk;
#   (d) --revert on a tree carrying the series gates the tree without it
#       (ships), and on a tree without it names the patch not reverted;
#   (e) --bench times both kernels in alternate boots (the fake bench:
#       twice as slow on an image a patch marked) and gives the ratio per
#       boot pair, both ways;
#   (f) every seed of bench/seeds/ is one patch with its header keys and a
#       bench row that exists, and applies to the cached linux-source-7.2
#       (skipped where it is not cached: never fetched here).
#
# Usage: bash test_gate_patch.sh BUILD_DIR   (BUILD_DIR/ptecheck)
# Prints TAP; exits 0 all passed, 1 something failed, 4 skipped.

set -u

if [ -z "${1:-}" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd)
GP=$ROOT/gate/gate-patch
R=$ROOT/tests/data/mutate/reports
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/fake_kernel.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fake_kernel.sh"

if [ ! -x "$BUILD/ptecheck" ]; then
	echo "1..0 # SKIP $BUILD/ptecheck not built"
	exit 4
fi
if ! command -v git >/dev/null; then
	echo "1..0 # SKIP no git"
	exit 4
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_gate_patch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export PTECHECK_BUILD_DIR=$BUILD PTECHECK_CACHE=$tmp/cache
export PTECHECK_KBUILD_LOCK=$tmp/kbuild.lock PTECHECK_BOOT_LOCK=
# The bench reports: the 64 KiB side twice as slow on an image marked slow.
bench_json() { # FILE B_NS
	cat >"$1" <<EOF
{"schema": "ptecheck-bench", "rows": [{"name": "mremap-folios", "status": "measured",
 "title": "mremap of 1 MiB", "reference": "1.9 s -> 1.2 s on Apple M3", "reference_ratio": 1.58,
 "median": $((10000 * 100 / $2))e-2, "a": {"label": "4k", "median": 10000.0, "unit": "ns", "per": "/mremap"},
 "b": {"label": "64k", "median": $2.0, "unit": "ns", "per": "/mremap"}}]}
EOF
}
mkdir -p "$tmp/bench"
bench_json "$tmp/bench/bench-fast.json" 6000
bench_json "$tmp/bench/bench-slow.json" 12000
fake_vmtest "$tmp/vmtest" "$R" "$tmp/bench"
fake_build_guest "$tmp/build-guest"
export PTECHECK_MUTATE_VMTEST=$tmp/vmtest PTECHECK_MUTATE_BUILD_GUEST=$tmp/build-guest

# The tree, and the series: a git repository of it with two commits.
tree=$tmp/tree
fake_tree "$tree"
repo=$tmp/repo
cp -r "$tree" "$repo"
g() { git -C "$repo" -c user.name=Test -c user.email=test@localhost -c commit.gpgsign=false "$@"; }
g init -q && g add -A && g commit -q -m base
sed -i 's/^ \* (the rest of a fake tree)$/ * (the rest of a fake tree, patched once)/' "$repo/mm/mremap.c"
g commit -q -am "mm/mremap: a harmless change" -m "The first patch."
printf '/* (fixture: caught) */\n' >>"$repo/mm/mremap.c"
g commit -q -am "mm/mremap: a change the checks catch" -m "The second patch."
g format-patch -q --cover-letter --stdout HEAD~2..HEAD >"$tmp/series.mbox"

# --- (a) usage --------------------------------------------------------------------
for args in "" "--bogus $tmp/series.mbox" "--arch sparc $tmp/series.mbox" "--runs 0 $tmp/series.mbox" \
	"$tmp/none.mbox" "--git $repo nope" "--git $repo HEAD~9..HEAD" "$tmp/series.mbox $tmp/series.mbox"; do
	# shellcheck disable=SC2086 # the words are the arguments
	out=$("$GP" --no-deps $args 2>&1)
	expect "usage: gate-patch $args exits 2" 2 $? "$out" "^gate-patch: " "Try 'gate/gate-patch --help'"
done
out=$("$GP" --help 2>&1)
expect "--help documents the exit codes" 0 $? "$out" "^Exit: 0 the patched kernel ships" \
	"2 usage or bad input" "8 setup"
printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: words only\n\nno diff here\n' \
	>"$tmp/nodiff.mbox"
mkdir -p "$tmp/t"
out=$(TMPDIR=$tmp/t "$GP" --no-deps --tree "$tree" "$tmp/nodiff.mbox" 2>&1)
expect "an mbox without a patch exits 2" 2 $? "$out" "no patch in it"
if [ -z "$(ls -A "$tmp/t")" ]; then
	ok "bad input: the output directory it made is removed"
else
	not_ok "bad input: the output directory it made is removed" "$(ls -A "$tmp/t")"
fi

# --- (b) the series, both arches, two boots each --------------------------------
o=$tmp/out-series
out=$("$GP" --no-deps --tree "$tree" --arch arm64 --arch x86_64 --runs 2 --out "$o" "$tmp/series.mbox" 2>&1)
expect "the series: applied, built, booted, gated: does not ship, exit 1" 1 $? "$out" \
	"has no diff .*: skipped \(a cover letter\)" "2 patch\(es\) in the series" \
	"building base \(arm64\)" "building series \(x86_64\)" "booting series \(x86_64, run 2 of 2\)" \
	"^Decision: DO NOT SHIP" "applied 1/2: \[PATCH 1/2\] mm/mremap: a harmless change" \
	"applied 2/2: \[PATCH 2/2\] mm/mremap: a change the checks catch" \
	"each kernel booted 2 time\(s\) in QEMU: ptecheck run --suite all --scale 4" \
	"invariant-failure" "mremap/perms"
missing=
for f in gate.json gate.html gate.junit.xml gate.tap gate.txt summary.txt series.diff applied.txt \
	reports/arm64-base-run1.json reports/arm64-base-run2.json reports/arm64-patched-run2.json \
	reports/x86_64-base-run1.json reports/x86_64-patched-run1.json reports/x86_64-patched-run2.json; do
	[ -s "$o/$f" ] || missing+=" $f"
done
if [ -z "$missing" ]; then
	ok "the series: every output written (gate.json, .html, .junit.xml, .tap, .txt, summary, 8 reports)"
else
	not_ok "the series: every output written" "missing:$missing"
fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["decision"] != "do-not-ship")' \
	"$o/gate.json" 2>/dev/null; then
	ok "the series: gate.json says do-not-ship"
else
	not_ok "the series: gate.json says do-not-ship" "$(head -c 400 "$o/gate.json")"
fi
if diff -r "$tree" "$tmp/cache/mutate/arm64/src" >/dev/null && grep -q '(fixture: caught)' "$o/series.diff"; then
	ok "the series: one diff of both patches; the cached src is the tree again"
else
	not_ok "the series: one diff of both patches; the cached src is the tree again" "$(cat "$o/series.diff")"
fi
out=$("$GP" --no-deps --tree "$tree" --arch arm64 --runs 1 --out "$tmp/out-range" --git "$repo" \
	HEAD~2..HEAD~1 2>&1)
expect "--git, a range of the first patch alone: ships, exit 0" 0 $? "$out" \
	"applied 1/1: \[PATCH\] mm/mremap: a harmless change" "^Decision: SHIP" \
	"base \(arm64\): kernel cached"

# --- (c) a patch that does not apply ----------------------------------------------
sed 's/^  \* (the rest of a fake tree, patched once)$/  * (another tree altogether)/' "$tmp/series.mbox" >"$tmp/stale.mbox"
out=$("$GP" --no-deps --tree "$tree" --arch arm64 --out "$tmp/out-stale" "$tmp/stale.mbox" 2>&1)
expect "a patch that does not apply: exit 2, the patch and the hunk named" 2 $? "$out" \
	"patch 2 of 2 \(\"\[PATCH 2/2\] mm/mremap: a change the checks catch\"\) does not apply to tree-7.2.0-fake[^ ]*: the hunk at mm/mremap.c:[0-9]+ does not apply"
if ! grep -q booting <<<"$out"; then
	ok "a patch that does not apply: nothing built or booted"
else
	not_ok "a patch that does not apply: nothing built or booted" "$out"
fi

# --- (d) --revert -------------------------------------------------------------------
merged=$tmp/merged
cp -r "$repo" "$merged" && rm -rf "$merged/.git"
out=$("$GP" --no-deps --tree "$merged" --arch arm64 --runs 1 --revert --out "$tmp/out-revert" \
	"$tmp/series.mbox" 2>&1)
expect "--revert on a tree with the series: the tree without it ships, exit 0" 0 $? "$out" \
	"reverted 2/2: \[PATCH 2/2\]" "reverted 1/2: \[PATCH 1/2\]" "^Decision: SHIP" \
	"the series reverted, last patch first"
if ! grep -q '^+/\* (fixture: caught)' "$tmp/out-revert/series.diff" &&
	grep -q '^-/\* (fixture: caught)' "$tmp/out-revert/series.diff"; then
	ok "--revert: series.diff takes the series out"
else
	not_ok "--revert: series.diff takes the series out" "$(cat "$tmp/out-revert/series.diff")"
fi
out=$("$GP" --no-deps --tree "$tree" --arch arm64 --revert --out "$tmp/out-revert2" "$tmp/series.mbox" 2>&1)
expect "--revert on a tree without the series: exit 2, the patch named" 2 $? "$out" \
	"patch 2 of 2 .* does not apply to tree-7.2.0-fake[^ ]* in reverse"

# --- (e) --bench ---------------------------------------------------------------------
# --bench: a patch that makes the 64 KiB side twice as slow, booted in pairs.
# On a branch of its own from the base commit (the tree).
g checkout -q -b slow "$(g rev-list --max-parents=0 HEAD)"
printf '/* (fixture: slow) */\n' >>"$repo/mm/mremap.c"
g commit -q -am "mm/mremap: a slower move" -m "A patch of its own."
out=$("$GP" --no-deps --tree "$tree" --arch arm64 --runs 1 --bench mremap-folios --bench-pairs 2 \
	--out "$tmp/out-bench" --git "$repo" HEAD~1..HEAD 2>&1)
expect "--bench: both kernels timed in alternate boots, the ratio per pair" 0 $? "$out" \
	"bench mremap-folios on the base kernel \(arm64, pair 1 of 2\)" \
	"bench mremap-folios on the patched kernel \(arm64, pair 2 of 2\)" \
	"arm64 mremap-folios \(64k side, 2 boot pairs\): base 6000 ns/mremap, patched 1.2e\+04 ns/mremap" \
	"speedup of the patched kernel over the base 0.500 \[0.500..0.500\]; of the base over the patched 2.000" \
	"the row's own A/B ratio: base 1.660, patched 0.830; published: 1.9 s -> 1.2 s on Apple M3"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["arches"]["arm64"]["mremap-folios"]; sys.exit(r["pairs"] != 2 or r["speedup_base_over_patched"]["median"] != 2.0)' \
	"$tmp/out-bench/bench.json" 2>/dev/null; then
	ok "--bench: bench.json holds the pairs and both ratios"
else
	not_ok "--bench: bench.json holds the pairs and both ratios" "$(head -c 600 "$tmp/out-bench/bench.json")"
fi


# --- (f) the seeds (bench/seeds/: the four patches' behaviours undone) -----------
rows=$("$BUILD/ptecheck" bench --help 2>&1)
for seed in "$ROOT"/bench/seeds/*.patch; do
	name=$(basename "$seed" .patch)
	miss=
	for key in Seed Commit Figure Bench Arch Difference; do
		grep -q "^$key: " "$seed" || miss+=" $key"
	done
	row=$(sed -n 's/^Bench: \([a-z0-9-]*\).*/\1/p' "$seed")
	if [ -n "$miss" ]; then
		not_ok "seed $name: its header" "missing:$miss"
	elif ! grep -q -- "$row" <<<"$rows"; then
		not_ok "seed $name: its header" "Bench: '$row' is not a row of ptecheck bench"
	elif ! mkdir -p "$tmp/ms-$name" || [ "$(git mailsplit -o"$tmp/ms-$name" "$seed")" != 1 ] ||
		! grep -q '^diff --git ' "$tmp/ms-$name/0001"; then
		not_ok "seed $name: its header" "not one message with a diff (git mailsplit)"
	else
		ok "seed $name: one patch, every header key, bench row $row"
	fi
done
src=/var/cache/ptecheck/source/linux-source-7.2
if [ -f "$src.unpacked" ] && [ -f "$src/Makefile" ]; then
	for seed in "$ROOT"/bench/seeds/*.patch; do
		if out=$(git -C "$src" apply --check "$seed" 2>&1); then
			ok "seed $(basename "$seed" .patch): applies to the cached linux-source-7.2"
		else
			not_ok "seed $(basename "$seed" .patch): applies to the cached linux-source-7.2" "$out"
		fi
	done
else
	skip "the seeds apply to linux-source-7.2" "no cached linux-source-7.2 in /var/cache/ptecheck/source"
fi

tap_end
