#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The standalone workloads: usage errors, a short run of every variant, the
# JSON line, and above all that every sysfs setting they change is back to
# its old value after a normal exit and after SIGTERM/SIGHUP.  The settings
# logic (lib/settings.c) is also tested against a fake sysfs tree through
# PTECHECK_SYSFS_ROOT, which needs no root and no mTHP support.
#
# Usage: bash test_workloads.sh BUILD_DIR
# Prints TAP 13; exits 0 all passed, 1 something failed, 4 nothing could run.

# The cases are called through the table at the bottom.
# shellcheck disable=SC2317

set -u

BUILD_DIR=${1:-}
if [ -z "$BUILD_DIR" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
FOLIOS=$BUILD_DIR/workloads/mremap_folios
PMD=$BUILD_DIR/workloads/mremap_pmd
FILEMAP=$BUILD_DIR/workloads/filemap_fault
THP64=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
REAL_FILES=("$THP64/enabled" "$THP64/shmem_enabled")
# Long enough to be still running when the signal comes.
FOREVER=1000000000

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_workloads.XXXXXX") || exit 1
bg_pid=
nr=0
nr_pass=0
nr_fail=0
nr_skip=0

read_file() {
	cat "$1" 2>/dev/null
}

# The values every run must leave behind.
declare -A before
for f in "${REAL_FILES[@]}"; do
	before[$f]=$(read_file "$f")
done

# Writes the old choice back, so one failed restore does not fail every
# later case too, and nothing outlives the test.
put_back() {
	local f=$1 word
	word=$(sed -n 's/.*\[\(.*\)\].*/\1/p' <<<"${before[$f]}")
	echo "$word" >"$f" 2>/dev/null
}

# Empty when the real 64 KiB knobs are as they were, else what differs
# (and then they are put back).
real_changes() {
	local f now out=
	for f in "${REAL_FILES[@]}"; do
		now=$(read_file "$f")
		if [ "$now" != "${before[$f]}" ]; then
			out+="$f is '$now', was '${before[$f]}'; "
			put_back "$f"
		fi
	done
	printf '%s' "$out"
}

cleanup() {
	if [ -n "$bg_pid" ]; then
		kill -KILL "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
	fi
	[ -z "$(real_changes)" ] || echo "# a sysfs knob was left changed; put back by hand"
	rm -rf "$tmp"
}
trap cleanup EXIT

pass() {
	nr=$((nr + 1))
	nr_pass=$((nr_pass + 1))
	echo "ok $nr - $1"
}

fail() {
	nr=$((nr + 1))
	nr_fail=$((nr_fail + 1))
	echo "not ok $nr - $1"
	echo "# $2"
}

skip() {
	nr=$((nr + 1))
	nr_skip=$((nr_skip + 1))
	echo "ok $nr - $1 # SKIP $2"
}

# run CMD...: sets rc, output in $tmp/out and $tmp/err.
run() {
	timeout 300 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

first_err() {
	head -n 1 "$tmp/err"
}

have() {
	[ -x "$1" ] && return 0
	skip "$2" "$1 not built"
	return 1
}

# expect_exit EXPECTED DESC CMD...
expect_exit() {
	local want=$1 desc=$2
	shift 2
	have "$1" "$desc" || return
	run "$@"
	if [ "$rc" -eq "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "exit $rc, wanted $want: $(first_err)"
	fi
}

t_help() {
	local bin=$1
	have "$bin" "$(basename "$bin") --help exits 0" || return
	run "$bin" --help
	if [ "$rc" -eq 0 ] && grep -q '^Usage:' "$tmp/out"; then
		pass "$(basename "$bin") --help exits 0"
	else
		fail "$(basename "$bin") --help exits 0" "exit $rc: $(first_err)"
	fi
}

t_variant() {
	local variant=$1 folio=$2 changes
	local desc="mremap_folios --variant $variant --folio $folio exits 0, sysfs restored"

	have "$FOLIOS" "$desc" || return
	run "$FOLIOS" --variant "$variant" --folio "$folio" --iterations 50
	changes=$(real_changes)
	if [ -n "$changes" ]; then
		fail "$desc" "not restored: $changes"
	elif [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	else
		pass "$desc"
	fi
}

t_pmd_run() {
	local desc="mremap_pmd --size 64M --iterations 2 exits 0"

	have "$PMD" "$desc" || return
	run "$PMD" --size 64M --iterations 2
	if [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	else
		pass "$desc"
	fi
}

# t_json DESC KEYS CMD...: one line, a JSON object holding every key.
t_json() {
	local desc=$1 keys=$2 err
	shift 2
	have "$1" "$desc" || return
	if ! command -v python3 >/dev/null; then
		skip "$desc" "python3 not found"
		return
	fi
	run "$@"
	if [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
		return
	fi
	if [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
		return
	fi
	if ! err=$(python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, "%d lines" % len(lines)
obj = json.loads(lines[0])
missing = [k for k in sys.argv[1].split() if k not in obj]
assert not missing, "missing keys %s" % missing
' "$keys" <"$tmp/out" 2>&1); then
		fail "$desc" "$(tail -n 1 <<<"$err"): $(head -c 300 "$tmp/out")"
		return
	fi
	pass "$desc"
}

# A run killed mid-way dies by the signal and restores the real knobs.
t_signal_real() {
	local sig=$1 mid changes want
	local desc="mremap_folios --folio 64k killed by SIG$sig dies by it, sysfs restored"

	have "$FOLIOS" "$desc" || return
	if [ ! -e "${REAL_FILES[0]}" ]; then
		skip "$desc" "no 64 KiB mTHP in this kernel"
		return
	fi
	"$FOLIOS" --folio 64k --iterations "$FOREVER" >"$tmp/out" 2>"$tmp/err" &
	bg_pid=$!
	sleep 0.3
	mid=$(read_file "${REAL_FILES[0]}")
	kill -"$sig" "$bg_pid" 2>/dev/null
	# Braces: keep bash's "Hangup"/"Terminated" job notice off stderr.
	{ wait "$bg_pid"; } 2>/dev/null
	rc=$?
	bg_pid=
	want=$((128 + $(kill -l "$sig")))
	changes=$(real_changes)
	if [ -n "$changes" ]; then
		fail "$desc" "not restored: $changes"
	elif [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne "$want" ]; then
		fail "$desc" "exit status $rc, wanted $want (killed by SIG$sig): $(first_err)"
	elif [[ "${before[${REAL_FILES[0]}]}" != *"[madvise]"* && "$mid" != *"[madvise]"* ]]; then
		# Otherwise the restore had nothing to undo and proved nothing.
		fail "$desc" "enabled was '$mid' mid-run, wanted [madvise]"
	else
		pass "$desc"
	fi
}

# A fake sysfs tree: 64 KiB knobs set to never, as on a stock kernel.
make_fake() {
	local dir=$1/kernel/mm/transparent_hugepage/hugepages-64kB
	mkdir -p "$dir"
	echo "always inherit madvise [never]" >"$dir/enabled"
	echo "always inherit within_size advise [never]" >"$dir/shmem_enabled"
}

fake_file() {
	read_file "$1/kernel/mm/transparent_hugepage/hugepages-64kB/$2"
}

t_fake_restore() {
	local variant=$1 root=$tmp/fake-$1 en sh changes
	local desc="fake sysfs: --variant $variant --folio 64k restores the recorded word"

	have "$FOLIOS" "$desc" || return
	make_fake "$root"
	PTECHECK_SYSFS_ROOT=$root run "$FOLIOS" --variant "$variant" --folio 64k --iterations 1
	en=$(fake_file "$root" enabled)
	sh=$(fake_file "$root" shmem_enabled)
	changes=$(real_changes)
	if [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif [ -n "$changes" ]; then
		fail "$desc" "the real sysfs was touched: $changes"
	elif [ "$en" != never ]; then
		fail "$desc" "enabled is '$en', wanted 'never'"
	elif [ "$variant" = shmem ] && [ "$sh" != never ]; then
		fail "$desc" "shmem_enabled is '$sh', wanted 'never'"
	elif [ "$variant" != shmem ] && [ "$sh" != "always inherit within_size advise [never]" ]; then
		fail "$desc" "shmem_enabled was touched: '$sh'"
	else
		pass "$desc"
	fi
}

t_fake_signal() {
	local root=$tmp/fake-signal mid en
	local desc="fake sysfs: SIGTERM mid-run writes back 'never', dies by SIGTERM"

	have "$FOLIOS" "$desc" || return
	make_fake "$root"
	PTECHECK_SYSFS_ROOT=$root "$FOLIOS" --folio 64k --iterations "$FOREVER" \
		>"$tmp/out" 2>"$tmp/err" &
	bg_pid=$!
	sleep 0.3
	mid=$(fake_file "$root" enabled)
	kill -TERM "$bg_pid" 2>/dev/null
	# Braces: keep bash's "Hangup"/"Terminated" job notice off stderr.
	{ wait "$bg_pid"; } 2>/dev/null
	rc=$?
	bg_pid=
	en=$(fake_file "$root" enabled)
	if [ "$mid" != madvise ]; then
		fail "$desc" "enabled was '$mid' mid-run, wanted 'madvise' (exit $rc: $(first_err))"
	elif [ "$rc" -ne 143 ]; then
		fail "$desc" "exit status $rc, wanted 143: $(first_err)"
	elif [ "$en" != never ]; then
		fail "$desc" "enabled is '$en' after SIGTERM, wanted 'never'"
	else
		pass "$desc"
	fi
}

t_fake_missing() {
	local root=$tmp/fake-missing
	local desc="fake sysfs without hugepages-64kB: --folio 64k exits 4"

	have "$FOLIOS" "$desc" || return
	mkdir -p "$root/kernel/mm/transparent_hugepage"
	PTECHECK_SYSFS_ROOT=$root run "$FOLIOS" --folio 64k --iterations 1
	if [ "$rc" -ne 4 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif [ -e "$root/kernel/mm/transparent_hugepage/hugepages-64kB" ]; then
		fail "$desc" "the missing directory was created"
	else
		pass "$desc"
	fi
}

t_fake_4k() {
	local root=$tmp/fake-4k en
	local desc="fake sysfs: --folio 4k changes no setting"

	have "$FOLIOS" "$desc" || return
	make_fake "$root"
	PTECHECK_SYSFS_ROOT=$root run "$FOLIOS" --folio 4k --iterations 1
	en=$(fake_file "$root" enabled)
	if [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif [ "$en" != "always inherit madvise [never]" ]; then
		fail "$desc" "enabled is '$en'"
	else
		pass "$desc"
	fi
}

# A short tmpfs read run: one JSON line with a positive rate for each
# worker, the data verified, and no mount or directory left in its TMPDIR.
t_filemap_json() {
	local desc="filemap_fault --backing tmpfs --verify --json: JSON with faults_per_sec, nothing left"
	local dir=$tmp/filemap-tmp changes err

	have "$FILEMAP" "$desc" || return
	if ! command -v python3 >/dev/null; then
		skip "$desc" "python3 not found"
		return
	fi
	mkdir -p "$dir"
	TMPDIR=$dir run "$FILEMAP" --backing tmpfs --mode read --threads 2 --size 8M \
		--iterations 3 --verify --json
	changes=$(real_changes)
	if [ -n "$changes" ]; then
		fail "$desc" "not restored: $changes"
	elif grep -qF " $dir/" /proc/mounts; then
		fail "$desc" "left mounted: $(grep -F " $dir/" /proc/mounts | head -n 1)"
	elif [ -n "$(find "$dir" -mindepth 1 -maxdepth 1)" ]; then
		fail "$desc" "left in TMPDIR: $(find "$dir" -mindepth 1 | tr '\n' ' ')"
	elif [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif ! err=$(python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, "%d lines" % len(lines)
obj = json.loads(lines[0])
assert obj["workload"] == "filemap_fault", obj["workload"]
assert obj["verify"] is True, "verify not true"
assert obj["faults_per_sec"] > 0, "faults_per_sec %r" % obj["faults_per_sec"]
assert obj["pages"] == 2 * 3 * 2048, "pages %r" % obj["pages"]
assert len(obj["per_worker"]) == 2, "%d workers" % len(obj["per_worker"])
assert all(w["faults_per_sec"] > 0 for w in obj["per_worker"]), "a worker at 0/s"
' <"$tmp/out" 2>&1); then
		fail "$desc" "$(tail -n 1 <<<"$err"): $(head -c 300 "$tmp/out")"
	else
		pass "$desc"
	fi
}

# contpte_mlock: the mlock loop and one access pattern, short; both JSON,
# nothing lost, every knob it changes (64 KiB and 2 MiB "enabled") put back;
# without hugepages-64kB (fake sysfs) it exits 4.
t_contpte_mlock() {
	local bin=$BUILD_DIR/workloads/contpte_mlock
	local desc="contpte_mlock loop and --pattern: JSON, no byte lost, sysfs restored"
	local pmd=/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled
	local pmd_before changes err root=$tmp/fake-contpte

	have "$bin" "$desc" || return
	if ! command -v python3 >/dev/null; then
		skip "$desc" "python3 not found"
		return
	fi
	mkdir -p "$root/kernel/mm/transparent_hugepage"
	PTECHECK_SYSFS_ROOT=$root run "$bin" --iterations 1
	if [ "$rc" -ne 4 ]; then
		fail "$desc" "without hugepages-64kB: exit $rc, wanted 4: $(first_err)"
		return
	fi
	pmd_before=$(read_file "$pmd")
	run "$bin" --size 8M --iterations 5 --align 64k --json
	cp "$tmp/out" "$tmp/out.loop"
	[ "$rc" -ne 0 ] || run "$bin" --size 4M --pattern dirty-7-young-1 --json
	changes=$(real_changes)
	if [ "$(read_file "$pmd")" != "$pmd_before" ]; then
		changes+="$pmd is '$(read_file "$pmd")', was '$pmd_before'"
		sed -n 's/.*\[\(.*\)\].*/\1/p' <<<"$pmd_before" >"$pmd" 2>/dev/null
	fi
	if [ -n "$changes" ]; then
		fail "$desc" "not restored: $changes"
	elif [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif ! err=$(cat "$tmp/out.loop" "$tmp/out" | python3 -c '
import json, sys
loop, pat = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert loop["mode"] == "mlock" and loop["iterations"] == 5, loop
assert loop["bytes_lost"] == 0, "bytes_lost %r" % loop["bytes_lost"]
assert loop["median_ns"] > 0, "median_ns %r" % loop["median_ns"]
assert pat["pattern"] == "dirty-7-young-1", pat["pattern"]
assert pat["pages_lost"] == 0 and pat["pages_garbled"] == 0, pat
assert pat["pages_written"] > 0, pat
' 2>&1); then
		fail "$desc" "$(tail -n 1 <<<"$err"): $(head -c 300 "$tmp/out")"
	else
		pass "$desc"
	fi
}

# batch: the known shape; its JSON names the folios it found and the PTEs
# of each step; every mTHP size it sets (all of them) put back; without
# hugepages-64kB (fake sysfs) it exits 4.
t_batch() {
	local bin=$BUILD_DIR/workloads/batch
	local desc="batch: JSON of the shape, every mTHP size restored"
	local f sizes_before changes err root=$tmp/fake-batch

	have "$bin" "$desc" || return
	if ! command -v python3 >/dev/null; then
		skip "$desc" "python3 not found"
		return
	fi
	mkdir -p "$root/kernel/mm/transparent_hugepage"
	PTECHECK_SYSFS_ROOT=$root run "$bin"
	if [ "$rc" -ne 4 ]; then
		fail "$desc" "without hugepages-64kB: exit $rc, wanted 4: $(first_err)"
		return
	fi
	sizes_before=$(for f in /sys/kernel/mm/transparent_hugepage/hugepages-*/enabled; do
		echo "$f $(read_file "$f")"; done)
	run "$bin" --size 2M --iterations 2 --json
	changes=$(real_changes)
	for f in /sys/kernel/mm/transparent_hugepage/hugepages-*/enabled; do
		if ! grep -qxF "$f $(read_file "$f")" <<<"$sizes_before"; then
			changes+="$f is '$(read_file "$f")'; "
			grep -F "$f " <<<"$sizes_before" | sed -n 's/.*\[\(.*\)\].*/\1/p' >"$f" 2>/dev/null
		fi
	done
	if [ -n "$changes" ]; then
		fail "$desc" "not restored: $changes"
	elif [ "$rc" -eq 4 ]; then
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif ! err=$(python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
pages = 2 * 2 * 1024 * 1024 // 4096
st = o["steps"]
assert o["workload"] == "batch" and o["iterations"] == 2, o
assert o["folios_order4"] == o["folios_order4_first_half"] + o["folios_order4_second_half"], o
assert o["folios_by_order"][4] == o["folios_order4"], o
assert sum(n << k for k, n in enumerate(o["folios_by_order"])) == pages, o["folios_by_order"]
want = {"fault": pages, "fork": pages, "mprotect": 2 * pages, "mlock": pages,
        "munlock": pages, "madvise_dontneed": pages // 2, "munmap": pages // 2}
assert {k: v["ptes"] for k, v in st.items()} == want, st
assert st["mprotect"]["calls"] == 4 and st["munmap"]["calls"] == 2, st
' <"$tmp/out" 2>&1); then
		fail "$desc" "$(tail -n 1 <<<"$err"): $(head -c 300 "$tmp/out")"
	else
		pass "$desc"
	fi
}

# One case per entry, fields separated by '|' (paths may hold blanks).
cases=(
	"t_help|$FOLIOS"
	"t_help|$PMD"
	"expect_exit|2|mremap_folios --bogus exits 2|$FOLIOS|--bogus"
	"expect_exit|2|mremap_pmd --bogus exits 2|$PMD|--bogus"
	"expect_exit|2|mremap_folios --size 123 exits 2|$FOLIOS|--size|123"
	"expect_exit|2|mremap_folios --folio 32k exits 2|$FOLIOS|--folio|32k"
	"expect_exit|2|mremap_pmd --size 3M exits 2|$PMD|--size|3M"
)
for variant in aligned misaligned partial fork-mixed shmem file; do
	for folio in 4k 64k; do
		cases+=("t_variant|$variant|$folio")
	done
done
cases+=(
	"t_pmd_run"
	"t_json|mremap_folios --json prints one JSON object|workload variant folio size iterations ns_per_iter total_ns|$FOLIOS|--json|--iterations|50"
	"t_json|mremap_pmd --json prints one JSON object|workload mode size iterations aligned_median_ns misaligned_median_ns ratio_misaligned_aligned|$PMD|--json|--size|64M|--iterations|2"
	"t_signal_real|TERM"
	"t_signal_real|HUP"
	"t_fake_restore|aligned"
	"t_fake_restore|shmem"
	"t_fake_signal"
	"t_fake_missing"
	"t_fake_4k"
	"t_help|$FILEMAP"
	"expect_exit|2|filemap_fault --bogus exits 2|$FILEMAP|--bogus"
	"expect_exit|2|filemap_fault --size 3 exits 2|$FILEMAP|--size|3"
	"expect_exit|2|filemap_fault --backing /nonexistent/dir exits 2|$FILEMAP|--backing|/nonexistent/dir"
	"expect_exit|2|filemap_fault --seconds with --iterations exits 2|$FILEMAP|--seconds|1|--iterations|1"
	"t_filemap_json"
	"t_help|$BUILD_DIR/workloads/contpte_mlock"
	"expect_exit|2|contpte_mlock --pattern bogus exits 2|$BUILD_DIR/workloads/contpte_mlock|--pattern|bogus"
	"t_contpte_mlock"
	"t_help|$BUILD_DIR/workloads/batch"
	"expect_exit|2|batch --size 64K exits 2|$BUILD_DIR/workloads/batch|--size|64K"
	"t_batch"
)

echo "TAP version 13"
echo "1..${#cases[@]}"
for c in "${cases[@]}"; do
	IFS='|' read -r -a words <<<"$c"
	"${words[@]}"
done

echo "# pass $nr_pass fail $nr_fail skip $nr_skip"
if [ "$nr_fail" -gt 0 ]; then
	exit 1
fi
if [ "$nr_pass" -eq 0 ]; then
	exit 4
fi
exit 0
