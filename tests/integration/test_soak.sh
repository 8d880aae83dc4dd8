#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The false-alarm soak's CI subset (docs/robustness.md, "The soak"): eight
# of the kernel's own mm selftests (mremap, mremap with MREMAP_DONTUNMAP,
# uffd-wp markers moved, mkdirty, MADV_POPULATE, soft-dirty, mlock2, VMA
# merges), built static from Debian's linux-source-7.2, run under
# `ptecheck watch` in an x86_64 guest of Debian's 7.x kernel: no check
# fails, the mremap and fault-around checks judged thousands of entries,
# and uffd-wp-mremap ran (the state of issue #30's false alarm).  About
# 1.5 minutes under TCG; the full matrix is a documented command.
#
# Usage: bash test_soak.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed, 4 nothing could run
# (no QEMU, no kernel or source in the cache and no network).

# check's expressions are eval'd: single quotes on purpose.
# shellcheck disable=SC2016
set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_soak "$@"
# shellcheck source=tests/integration/lib/tap.sh
source "$ROOT/tests/integration/lib/tap.sh"
echo "TAP version 13"

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP no qemu-system-x86_64 (scripts/install-deps --guest)"
	exit 4
fi
if ! "$ROOT/guest/kernel-fetch" fetch --arch amd64 7 >/dev/null 2>"$tmp/fetch"; then
	echo "1..0 # SKIP kernel 7 not cached and not downloadable: $(tail -n1 "$tmp/fetch")"
	exit 4
fi
out=$tmp/soak
rc=0
PTECHECK_BIN=$PTECHECK "$ROOT/soak/soak" --arch x86_64 --package 7 --subset ci --out "$out" \
	--timeout 900 >"$tmp/stdout" 2>"$tmp/log" || rc=$?
TAP_LOG=$tmp/log
if [ "$rc" -eq 8 ] && grep -q 'linux-source\|offline' "$tmp/log"; then
	echo "1..0 # SKIP no kernel source: $(tail -n1 "$tmp/log")"
	exit 4
fi
check "the CI subset under watch: exit 0, no check failed (exit $rc)" '[ "$rc" -eq 0 ]'
judged() { jq --arg c "$1" --arg t "$2" '[.results[] | select(.check == $c and .tier == $t) | .checked][0] // 0' "$out/watch.json" 2>/dev/null || echo 0; }
check "mremap/moved judged in the kernel (syscall-walk: $(judged mremap/moved kernel:syscall-walk) entries)" \
	'[ "$(judged mremap/moved kernel:syscall-walk)" -gt 1000 ]'
check "fault-around judged (filemap/ptes-set [kernel:fexit]: $(judged filemap/ptes-set kernel:fexit) entries)" \
	'[ "$(judged filemap/ptes-set kernel:fexit)" -gt 1000 ]'
check "uffd-wp-mremap ran (uffd-wp markers moved with and without remap events)" \
	'grep -q "^soak: uffd-wp-mremap: exit" "$out/tests.log"'
check "every test of the subset ran ($(grep -c ': exit ' "$out/tests.log" 2>/dev/null || echo 0) of 8)" \
	'[ "$(grep -c ": exit " "$out/tests.log")" -eq 8 ]'
tap_end
