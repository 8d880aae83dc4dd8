#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutation self-test's machinery (docs/mutation.md), without kernels:
#   (a) usage errors: mutate/mutate exits 7, mutate-judge 2;
#   (b) --check on fixture catalogues (tests/data/mutate/): good headers and
#       patches pass, a bad header (named with file:line) and a patch that
#       does not apply fail; against the cached linux-source-7.2 too when it
#       is there (never fetched here);
#   (c) the judge on recorded reports (tests/data/mutate/reports/, gated by
#       the real `ptecheck gate`): caught, missed, caught by the gate's
#       batching rule only, a kernel that did not build; a control with a
#       FAIL and one whose kernel log was not read are unclean; text, JSON
#       and exit codes;
#   (d) the whole driver on a fake kernel tree (a Makefile that "builds" by
#       copying mm/mremap.c into the image) and a fake vmtest (a recorded
#       report chosen by the image's content): builds, caching, resume,
#       the source tree pristine afterwards, a tree left patched by a kill
#       repaired, an option Kconfig dropped named (exit 8).
#
# Usage: bash test_mutate.sh BUILD_DIR   (BUILD_DIR/ptecheck, BUILD_DIR/mutate-judge)
# Prints TAP; exits 0 all passed, 1 something failed, 4 skipped (not built).

set -u

if [ -z "${1:-}" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "$1" 2>/dev/null && pwd)
JUDGE=$BUILD/mutate-judge
PTECHECK=$BUILD/ptecheck
DATA=$ROOT/tests/data/mutate
MUTATE=$ROOT/mutate/mutate
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/fake_kernel.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fake_kernel.sh"

if [ ! -x "$JUDGE" ] || [ ! -x "$PTECHECK" ]; then
	echo "1..0 # SKIP $JUDGE or $PTECHECK not built"
	exit 4
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_mutate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export PTECHECK_BUILD_DIR=$BUILD PTECHECK_CACHE=$tmp/cache
export PTECHECK_KBUILD_LOCK=$tmp/kbuild.lock PTECHECK_BOOT_LOCK=

# --- (a) usage -----------------------------------------------------------------
for args in "--bogus" "--arch sparc" "--scale 0" "--runs x" "--format xml" "--jobs" \
	"--only nope --catalogue $DATA/good --check" "--catalogue $tmp/none --check"; do
	# shellcheck disable=SC2086 # the words are the arguments
	out=$("$MUTATE" $args 2>&1)
	expect "usage: mutate/mutate $args exits 7" 7 $? "$out" "Try 'mutate/mutate --help'"
done
out=$("$MUTATE" --help 2>&1)
expect "mutate/mutate --help documents the exit codes" 0 $? "$out" "^Exit: 0 " "7 usage, 8 setup"
out=$("$JUDGE" table "$DATA/good/fixture-caught.patch" 2>&1)
expect "usage: mutate-judge table without --control exits 2" 2 $? "$out" "needs --control"
out=$("$JUDGE" 2>&1)
expect "usage: mutate-judge without a command exits 2" 2 $? "$out" "^Usage:"

# --- the fake kernel tree (lib/fake_kernel.sh) --------------------------------
tree=$tmp/tree
fake_tree "$tree"

# --- (b) --check --------------------------------------------------------------
out=$("$MUTATE" --check --tree "$tree" --catalogue "$DATA/good" 2>&1)
expect "--check: good fixtures pass" 0 $? "$out" "fixture-caught: applies" \
	"3 mutants: headers good, every patch applies"
out=$("$MUTATE" --check --real --tree "$tree" --catalogue "$DATA/good" 2>&1)
expect "--check --real: only the mutant that reintroduces a real bug" 0 $? "$out" \
	"fixture-caught: applies" "1 mutants: headers good, every patch applies"
out=$("$MUTATE" --check --real --only fixture-missed --tree "$tree" --catalogue "$DATA/good" 2>&1)
expect "--real with --only naming none of them: a usage error" 7 $? "$out" \
	"--real: no mutant of .* named by --only reintroduces a real bug"
out=$("$MUTATE" --check --tree "$tree" --catalogue "$DATA/bad-header" 2>&1)
expect "--check: a bad header fails, named with file:line" 1 $? "$out" \
	"fixture-unknown-check.patch:5: unknown check 'mremap/no-such-check'"
out=$("$MUTATE" --check --tree "$tree" --catalogue "$DATA/no-apply" 2>&1)
expect "--check: a patch that does not apply fails" 1 $? "$out" \
	"fixture-stale: does not apply to tree-7.2.0-fake"
mkdir -p "$tmp/empty"
out=$("$MUTATE" --check --tree "$tree" --catalogue "$tmp/empty" 2>&1)
expect "--check: an empty catalogue passes" 0 $? "$out" "no mutants"
src=/var/cache/ptecheck/source/linux-source-7.2
if [ -f "$src.unpacked" ] && [ -f "$src/Makefile" ]; then
	out=$(PTECHECK_CACHE=/var/cache/ptecheck "$MUTATE" --check --catalogue "$DATA/good" 2>&1)
	expect "--check: the fixtures apply to the cached linux-source-7.2" 0 $? "$out" \
		"applies to linux-source-7.2-"
	out=$(PTECHECK_CACHE=/var/cache/ptecheck "$MUTATE" --check --catalogue "$DATA/no-apply" 2>&1)
	expect "--check: the stale fixture does not apply to linux-source-7.2" 1 $? "$out" \
		"does not apply to linux-source-7.2-"
else
	ok "# SKIP no cached linux-source-7.2 in /var/cache/ptecheck/source"
fi

# --- (c) the judge on recorded reports ----------------------------------------
R=$DATA/reports G=$DATA/good
mkrun() { # DIR REPORT [CONTROL_DIR]: a run directory, gated against the control
	mkdir -p "$1"
	cp "$R/$2.json" "$1/report.json"
	[ -n "${3:-}" ] && "$PTECHECK" gate -b "$3/report.json" --format json \
		--output "$1/gate.json" "$1/report.json" 2>/dev/null
	return 0
}
j=$tmp/judge
mkrun "$j/control" control-clean
mkrun "$j/caught" mutant-caught "$j/control"
mkrun "$j/missed" mutant-missed "$j/control"
mkrun "$j/perf" mutant-perf "$j/control"
mkrun "$j/control-fail" control-fail
mkrun "$j/control-nolog" control-nolog
mkrun "$j/control-refused" control-refused
mkrun "$j/control-over" control-over-budget
mkrun "$j/refused" mutant-refused "$j/control"
mkdir -p "$j/nobuild"
echo "build failed: make exited 2: mm/mremap.c:194: error: expected ';'" >"$j/nobuild/failed"
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$G/fixture-caught.patch" "$j/caught" \
	"$G/fixture-perf.patch" "$j/perf" 2>&1)
expect "judge: control clean, caught by a check and by the gate: exit 0" 0 $? "$out" \
	"^control \(arm64, .*\): clean:" \
	"^fixture-caught +caught +do-not-ship +mremap/perms" \
	"^    reintroduces: 000000000000 \"fixture: no real commit.*\", fixed in v7.0$" \
	"failed: mremap/perms \[kernel:fexit\]: read-only PTE became writable" \
	"^fixture-perf +caught +do-not-ship +gate:batching-regression" \
	"gate: batching-regression: batching regressed: mremap PTEs per batch" \
	"caught by: the gate's batching-regression failed" \
	"^2 mutants: 2 caught, 0 missed; control clean; self-test OK"
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$G/fixture-caught.patch" "$j/caught" \
	"$G/fixture-missed.patch" "$j/missed" "$G/fixture-perf.patch" "$j/nobuild" 2>&1)
expect "judge: a mutant that failed only other checks and one that did not build are missed: exit 1" \
	1 $? "$out" "^fixture-missed +missed +do-not-ship +filemap/batch-bounds" \
	"missed: only checks not expected failed" \
	"^fixture-perf +missed +- " "missed: no report: build failed: make exited 2" \
	"^3 mutants: 1 caught, 2 missed; control clean; self-test NOT OK"
# A boot that died: judged by what ptecheck judged before the kernel died
# (the crash witness ptecheck merge read from its console), never by the
# crash itself.  Numbers as the BPF side prints them (test_merge.c).
con=$tmp/console-died.log
printf '%s\n' "BUG: unable to handle page fault for address: ffd4000002000030" \
	"RIP: 0010:folio_add_file_rmap_ptes+0x6a/0x220" "Dumping ftrace buffer:" \
	"ptecheck-118 0...6. 1us : bpf_trace_printk: ptecheck-witness: check=6 verdict=13 tier=2 pid=118 addr=0x7f1f48ae0000 expected=256 seen=512" \
	"Kernel panic - not syncing: Fatal exception" >"$con"
grep -v ptecheck-witness "$con" >"$con.bare"
for d in died died-bare; do
	mkdir -p "$j/$d"
	echo "boot failed: vmtest exit 5 (vmtest: FAIL: the guest kernel crashed); console: $con" >"$j/$d/failed"
done
"$PTECHECK" merge --died filemap --console "$con" --release 7.2.13 --machine aarch64 \
	--format json --output "$j/died/report-1-died.json" 2>/dev/null
"$PTECHECK" merge --died filemap --console "$con.bare" --release 7.2.13 --machine aarch64 \
	--format json --output "$j/died-bare/report-1-died.json" 2>/dev/null
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$G/fixture-missed.patch" "$j/died" 2>&1)
expect "judge: a kernel that died is caught by the check judged before it died, the death noted" \
	0 $? "$out" "^fixture-missed +caught +- +filemap/batch-bounds" \
	"failed: filemap/batch-bounds \[kernel:fexit\]: batch leaves its folio \(judged on entry" \
	"note: boot failed: vmtest exit 5"
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$G/fixture-missed.patch" "$j/died-bare" 2>&1)
expect "judge: the crash alone ([console]) catches nothing" 1 $? "$out" \
	"^fixture-missed +missed" "missed: no report: boot failed: vmtest exit 5"
out=$("$JUDGE" table --arch arm64 --control "$j/control-fail" "$G/fixture-caught.patch" "$j/caught" 2>&1)
expect "judge: a control with a FAIL is not clean: exit 1" 1 $? "$out" \
	"NOT CLEAN: 1 check tiers failed, first mremap/moved \[oracle:pagemap\]: present PTE lost"
out=$("$JUDGE" table --arch arm64 --control "$j/control-nolog" 2>&1)
expect "judge: a control whose kernel log was not read is not clean: exit 1" 1 $? "$out" \
	"NOT CLEAN: kernel log not judged: mremap/kernel-log: cannot read the kernel log"
out=$("$JUDGE" table --arch arm64 --control "$j/control-refused" 2>&1)
expect "judge: a control whose kernel refused a program of ptecheck's is not clean: exit 1" 1 $? \
	"$out" "NOT CLEAN: ptecheck's programs on this kernel: the verifier refused the derived batch runs"
out=$("$JUDGE" table --arch arm64 --control "$j/control-over" 2>&1)
expect "judge: a control with a program over the verifier's budget is not clean: exit 1" 1 $? \
	"$out" "NOT CLEAN: ptecheck's programs on this kernel: .*report.json: 250000 instructions verified, over the budget of 200000"
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$G/fixture-caught.patch" "$j/refused" 2>&1)
expect "judge: a mutant whose kernel refused a program of ptecheck's is not caught: exit 1" 1 \
	$? "$out" "^fixture-caught +missed" "missed: ptecheck's programs on this kernel: the verifier refused"
out=$("$JUDGE" table --arch arm64 --control "$j/none" 2>&1)
expect "judge: a control without a report is not clean: exit 1" 1 $? "$out" \
	"NOT CLEAN: no report: .*report.json: cannot open"
out=$("$JUDGE" table --arch arm64 --control "$j/control" "$DATA/bad-header/fixture-unknown-check.patch" \
	"$j/caught" 2>&1)
expect "judge: a bad header is bad input: exit 2" 2 $? "$out" "fixture-unknown-check.patch:5:"
out=$("$JUDGE" table --format json --arch arm64 --control "$j/control" "$G/fixture-caught.patch" \
	"$j/caught" "$G/fixture-missed.patch" "$j/missed" "$G/fixture-perf.patch" "$j/perf" 2>&1)
rc=$?
if py=$(python3 - "$out" <<'EOF' 2>&1
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "ptecheck-mutate" and d["schema_version"] == 1, d["schema"]
assert d["control"]["clean"] is True and d["control"]["run"]["failed"] == 0
m = {x["mutant"]: x for x in d["mutants"]}
assert m["fixture-caught"]["result"] == "caught", m["fixture-caught"]
assert m["fixture-caught"]["run"]["failures"][0]["check"] == "mremap/perms"
assert m["fixture-caught"]["run"]["failures"][0]["tier"] == "kernel:fexit"
assert m["fixture-caught"]["expect"] == ["mremap/perms"]
assert m["fixture-missed"]["result"] == "missed"
assert m["fixture-perf"]["gate"]["failed_rules"] == ["batching-regression"]
assert m["fixture-perf"]["gate"]["decision"] == "do-not-ship"
assert m["fixture-perf"]["result"] == "caught"
assert (d["caught"], d["missed"], d["exit_code"]) == (2, 1, 1)
EOF
); then
	expect "judge --format json: the table's fields, exit 1" 1 $rc "$out"
else
	not_ok "judge --format json: the table's fields" "$py"
fi

# --- (d) the driver on the fake tree ------------------------------------------
fake_vmtest "$tmp/vmtest" "$R"
export PTECHECK_MUTATE_VMTEST=$tmp/vmtest
fake_build_guest "$tmp/build-guest"
export PTECHECK_MUTATE_BUILD_GUEST=$tmp/build-guest
drive() { "$MUTATE" --no-deps --tree "$tree" --arch arm64 --catalogue "$G" "$@"; }
A=$tmp/cache/mutate/arm64
out=$(drive 2>&1)
expect "driver: control and three mutants built and booted, one missed: exit 1" 1 $? "$out" \
	"mutate: building control \(arm64\) \.\.\." "mutate: building fixture-caught \(arm64\) \.\.\." \
	"mutate: booting fixture-perf \(arm64, run 1 of 1\)" "mutate: gating fixture-missed" \
	"^fixture-caught +caught" "^fixture-missed +missed" "^fixture-perf +caught" \
	"^3 mutants: 2 caught, 1 missed; control clean; self-test NOT OK"
if diff -r "$tree" "$A/src" >/dev/null; then
	ok "driver: src is the tree again after the builds"
else
	not_ok "driver: src is the tree again after the builds" "$(diff -r "$tree" "$A/src" | head)"
fi
n=$(wc -l <"$A/out/builds")
out=$(drive --only fixture-caught,fixture-perf --format json 2>&1)
rc=$?
expect "driver: a rerun takes every kernel and report from the cache: exit 0" 0 $rc "$out" \
	"control \(arm64\): kernel cached" "fixture-perf \(arm64\): kernel cached" '"caught": 2'
if [ "$(wc -l <"$A/out/builds")" = "$n" ] && ! grep -q "booting" <<<"$out"; then
	ok "driver: the rerun built and booted nothing"
else
	not_ok "driver: the rerun built and booted nothing" "$out"
fi
# Another ptecheck in the guest: the cached reports are not its own.
out=$(FAKE_GUEST_STAMP=two drive --only fixture-caught 2>&1)
expect "driver: a new guest build boots every kernel again, the images stay cached" 0 $? "$out" \
	"control \(arm64\): kernel cached" "booting control \(arm64, run 1 of 1\)" \
	"booting fixture-caught \(arm64, run 1 of 1\)"
# A kill between apply and revert: src patched, the record left.
(cd "$A/src" && patch -s -p1 <"$G/fixture-missed.patch")
{ echo fixture-missed; cat "$G/fixture-missed.patch"; } >"$A/applying"
rm -rf "$A/images"
out=$(drive --only control 2>&1)
expect "driver: a src left patched by a kill is restored; --only control" 0 $? "$out" \
	"src left patched by an interrupted build \(fixture-missed\)" "^0 mutants: 0 caught"
if diff -r "$tree" "$A/src" >/dev/null && [ ! -e "$A/applying" ] &&
	! grep -q "fixture" "$(find "$A/images" -name Image | head -n1)"; then
	ok "driver: the restored src built a control without the mutant"
else
	not_ok "driver: the restored src built a control without the mutant" "$(diff -r "$tree" "$A/src")"
fi
rm -rf "$A/images"
# The lock is held until the driver says it waits (no sleep to race a
# loaded machine: CI at e67cd9f reached the lock after a 2 s hold ended),
# or for 60 s at most.
held=$tmp/lock.held release=$tmp/lock.release
rm -f "$held" "$release"
flock "$PTECHECK_KBUILD_LOCK" sh -c 'touch "$1"; i=0
	while [ ! -e "$2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' sh "$held" "$release" &
holder=$!
while [ ! -e "$held" ] && kill -0 $holder 2>/dev/null; do sleep 0.1; done
drive --only control >"$tmp/lock.out" 2>&1 &
driver=$!
for _ in $(seq 600); do
	grep -q "waiting for $PTECHECK_KBUILD_LOCK" "$tmp/lock.out" && break
	kill -0 $driver 2>/dev/null || break
	sleep 0.1
done
touch "$release"
wait $driver
rc=$?
wait $holder
expect "driver: a build lock held elsewhere is waited for, and said" 0 $rc "$(cat "$tmp/lock.out")" \
	"waiting for $PTECHECK_KBUILD_LOCK \(another kernel build holds it\)" "control clean; self-test OK"
out=$(PTECHECK_CACHE=$tmp/cache2 FAKE_DROP=CONFIG_XFS_FS drive --only control 2>&1)
expect "driver: an option Kconfig dropped is named: exit 8" 8 $? "$out" \
	"Kconfig dropped 1 options of mutate/guest.config .*CONFIG_XFS_FS=y"
out=$(drive --catalogue "$DATA/panic" 2>&1)
expect "driver: a mutant page_table_check panicked is booted again without it, the table says so" \
	0 $? "$out" "fixture-ptc \(arm64\): page_table_check panicked the guest in suite mremap \(BUG at mm/page_table_check.c:118\); booting again without it" \
	"^fixture-ptc +caught" "    note: run 1: page_table_check panicked the guest in suite mremap \(BUG at mm/page_table_check.c:118\); booted again with --no-page-table-check" \
	"^1 mutants: 1 caught, 0 missed; control clean; self-test OK"
out=$(drive --catalogue "$DATA/panic" --format json 2>&1)
expect "driver --format json: the run's note says how its report was had" 0 $? "$out" \
	'"note": "run 1: page_table_check panicked the guest in suite mremap \(BUG at mm/page_table_check.c:118\); booted again'

tap_end
