#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate's coverage-loss rule on scenario variants, on recorded reports
# (tests/data/variants/, schema 2) of `guest/vmtest --arch x86_64 --package
# 7 -- run --suite filemap --scale 4`: one boot with the ext4 scratch disk,
# one with --scratch-disk 0 (ptecheck then finds no mkfs.ext4 in the guest
# and its ext4 scenarios do not run, while every check still passes):
#   (a) ext4 -> none: coverage lost, naming the eof-ext4 scenario of
#       filemap/batch-bounds and why it did not run; does not ship under
#       the default policy (coverage_loss "fail"), ships with a warning
#       under coverage_loss "report";
#   (b) none -> ext4 and ext4 -> ext4: no variant lost;
#   (c) the ext4 report rewritten as schema 1 (no variants) against the
#       other: read, nothing compared by variant.
# No boot, no root: a second or two.
#
# Usage: bash test_gate_variants.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed.

set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_gate_variants "$@"
DATA=$ROOT/tests/data/variants
EXT4=$DATA/x86_64-7-filemap-ext4.json
NONE=$DATA/x86_64-7-filemap-no-scratch.json
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
TAP_LOG=$tmp/out
echo "TAP version 13"

# gate WANT_RC ARGS...: ptecheck gate ARGS, text on $tmp/out; sets rc.
gate() {
	local want=$1
	shift
	"$PTECHECK" gate "$@" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ]
}

# (a) the ext4 variants that did not run are coverage lost.
loss="filemap/batch-bounds [oracle:pagemap]: scenario eof-ext4 ran in the baseline, did not run in the candidate: "
if ! gate 1 --baseline "$EXT4" "$NONE"; then
	not_ok "ext4 -> none: does not ship under the default policy" "exit $rc"
elif ! grep -qF "$loss" "$tmp/out" || ! grep -qF "no ext4 scratch filesystem" "$tmp/out"; then
	not_ok "ext4 -> none: the lost eof-ext4 variant named with why"
else
	ok "ext4 -> none: coverage lost on eof-ext4, named with why, though the check passed"
fi
n=$(grep -c 'scenario [a-z-]*-ext4 ran in the baseline' "$tmp/out")
if [ "$n" -lt 4 ]; then
	not_ok "ext4 -> none: every ext4 scenario of every check counted ($n findings)"
else
	ok "ext4 -> none: $n ext4 scenario variants lost over the checks"
fi
if grep -q 'scenario [a-z0-9-]*memfd[a-z0-9-]* ran in the baseline' "$tmp/out"; then
	not_ok "ext4 -> none: a memfd scenario that ran on both sides called lost"
else
	ok "ext4 -> none: the scenarios that ran on both sides are not findings"
fi
echo '{"coverage_loss": "report"}' >"$tmp/report.json"
if gate 0 --policy "$tmp/report.json" --baseline "$EXT4" "$NONE" && grep -q 'coverage-loss' "$tmp/out"; then
	ok "ext4 -> none: coverage_loss \"report\" ships, the loss a warning (exit 0)"
else
	not_ok "ext4 -> none: coverage_loss \"report\" ships, the loss a warning" "exit $rc"
fi
echo '{"coverage_loss": "fail"}' >"$tmp/policy.json"

# (b) nothing lost the other way or against itself.
no_loss() {
	if gate 0 --policy "$tmp/policy.json" --baseline "$1" "$2" && ! grep -q 'ran in the baseline' "$tmp/out"; then
		ok "$(basename "$1") -> $(basename "$2"): no variant lost"
	else
		not_ok "$(basename "$1") -> $(basename "$2"): no variant lost" "exit $rc"
	fi
}
no_loss "$NONE" "$EXT4"
no_loss "$EXT4" "$EXT4"

# (c) schema 1 beside schema 2: the ext4 report as schema 1 wrote it
# (no variants) is read, and variants are compared only where both have them.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["schema_version"] = 1
for res in r["results"]:
    del res["variants"]
json.dump(r, open(sys.argv[2], "w"))' "$EXT4" "$tmp/v1.json"
if ! gate 0 --policy "$tmp/policy.json" --baseline "$tmp/v1.json" "$NONE"; then
	not_ok "schema 1 baseline, schema 2 candidate: read, ships" "exit $rc"
elif grep -q 'ran in the baseline' "$tmp/out"; then
	not_ok "schema 1 baseline: no variant compared"
else
	ok "schema 1 baseline, schema 2 candidate: read, no variant compared"
fi

tap_end
