#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scratch filesystems (lib/scratchfs.c) through the filemap_fault workload:
# an ext4 on a loop device and a huge=within_size tmpfs, after a normal exit
# and after SIGTERM/SIGHUP mid-run, must leave no mount, no attached loop
# device, no image or directory in $TMPDIR, and the 64 KiB shmem mTHP knob
# as it was.  The workload runs with TMPDIR set to a directory of the test's
# own, so anything under it is a leftover of the run.  And `ptecheck run
# --fs-dir` on an xfs the test mounts: its file scenarios named by xfs.
#
# Usage: bash test_scratchfs.sh BUILD_DIR
# Prints TAP 13; exits 0 all passed, 1 something failed, 4 nothing could run
# (not root, no loop device support, no mkfs.ext4).

# The cases are called through the table at the bottom.
# shellcheck disable=SC2317

set -u

BUILD_DIR=${1:-}
if [ -z "$BUILD_DIR" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
FF=$BUILD_DIR/workloads/filemap_fault
SHMEM64=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/shmem_enabled
# Long enough to be still running when the signal comes.
FOREVER=86400

echo "TAP version 13"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP mounting scratch filesystems needs root"
	exit 4
fi
if [ ! -x "$FF" ]; then
	echo "1..0 # SKIP $FF not built"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_scratchfs.XXXXXX") || exit 1
work=$tmp/work
mkdir "$work" || exit 1
bg_pid=
nr=0
nr_pass=0
nr_fail=0
nr_skip=0
no_loop=

read_file() {
	cat "$1" 2>/dev/null
}

shmem_before=$(read_file "$SHMEM64")

# Mount points under $work, one per line, deepest first.
mounts_under() {
	awk -v d="$work/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r
}

# Loop devices whose backing file is under $work (also once deleted).
loops_under() {
	local f
	for f in /sys/block/loop*/loop/backing_file; do
		[ -e "$f" ] || continue
		case $(read_file "$f") in
		"$work"/*) echo "/dev/$(basename "$(dirname "$(dirname "$f")")")" ;;
		esac
	done
}

# Empty when the run left nothing behind, else what it left.  Detaching a
# loop device after a lazy unmount may complete a moment after the exit.
leftovers() {
	local out
	for _ in $(seq 20); do
		out=
		[ -z "$(mounts_under)" ] || out+="mounted: $(mounts_under | tr '\n' ' '); "
		[ -z "$(loops_under)" ] || out+="loop devices: $(loops_under | tr '\n' ' '); "
		if [ -n "$(find "$work" -mindepth 1 -maxdepth 1)" ]; then
			out+="left in \$TMPDIR: $(find "$work" -mindepth 1 | tr '\n' ' '); "
		fi
		if [ "$(read_file "$SHMEM64")" != "$shmem_before" ]; then
			out+="$SHMEM64 is '$(read_file "$SHMEM64")', was '$shmem_before'; "
		fi
		[ -n "$out" ] || return 0
		sleep 0.1
	done
	printf '%s' "$out"
}

# Removes whatever a failed case left, so later cases start clean.
put_back() {
	local m l word
	for m in $(mounts_under); do
		umount -l "$m" 2>/dev/null
	done
	for l in $(loops_under); do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "${work:?}"/* 2>/dev/null
	word=$(sed -n 's/.*\[\(.*\)\].*/\1/p' <<<"$shmem_before")
	[ -z "$word" ] || echo "$word" >"$SHMEM64" 2>/dev/null
}

cleanup() {
	if [ -n "$bg_pid" ]; then
		kill -KILL "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
	fi
	[ -z "$(leftovers)" ] || put_back
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

first_err() {
	head -n 1 "$tmp/err"
}

# An ext4 case is skipped once the machine showed it has no loop support.
needs_loop() {
	[ "$1" != ext4 ] || [ -z "$no_loop" ] && return 0
	skip "$2" "$no_loop"
	return 1
}

# t_run BACKING [ARGS...]: one short run, then nothing may be left.
t_run() {
	local backing=$1 left
	shift
	local desc="filemap_fault --backing $backing${*:+ $*} exits 0, leaves nothing behind"

	needs_loop "$backing" "$desc" || return
	TMPDIR=$work timeout 300 "$FF" --backing "$backing" --iterations 1 --size 16M \
		--verify "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	left=$(leftovers)
	if [ -n "$left" ]; then
		fail "$desc" "exit $rc; $left"
		put_back
	elif [ "$rc" -eq 4 ]; then
		[ "$backing" != ext4 ] || no_loop=$(first_err)
		skip "$desc" "$(first_err)"
	elif [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif ! grep -q 'faults/s' "$tmp/out"; then
		fail "$desc" "no faults/s line: $(head -c 300 "$tmp/out")"
	else
		pass "$desc"
	fi
}

# t_fs_dir FS: `ptecheck run --suite filemap --fs-dir` on FS (made here on a
# loop device): the block-filesystem scenarios are named by what statfs
# finds (eof-xfs, not eof-ext4), the note says "FS on /dev/loopN", and the
# run mounts no ext4 of its own; --skip-known-bugs: the known bug's
# scenario (docs/findings.md) skipped, saying so.  About 50 s.
t_fs_dir() {
	local fs=$1 img=$tmp/fsdir.img dir=$tmp/fsdir dev
	local desc="ptecheck run --fs-dir on $fs: file scenarios named and described by $fs"

	needs_loop ext4 "$desc" || return
	if ! command -v "mkfs.$fs" >/dev/null || [ ! -x "$BUILD_DIR/ptecheck" ]; then
		skip "$desc" "no mkfs.$fs or no $BUILD_DIR/ptecheck"
		return
	fi
	mkdir -p "$dir"
	if ! truncate -s 320M "$img" || ! "mkfs.$fs" -q "$img" >/dev/null 2>&1 ||
		! dev=$(losetup -f --show "$img") || ! mount -t "$fs" "$dev" "$dir"; then
		[ -n "${dev:-}" ] && losetup -d "$dev"
		skip "$desc" "cannot mount $fs on a loop device here"
		return
	fi
	flock /run/ptecheck.lock true
	"$BUILD_DIR/ptecheck" run --suite filemap --fs-dir "$dir" --format json --skip-known-bugs \
		--output "$tmp/fsdir.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	umount "$dir"
	losetup -d "$dev"
	rm -f "$img"
	if [ "$rc" -ne 0 ]; then
		fail "$desc" "exit $rc: $(first_err)"
	elif ! grep -q "\"scenario\": \"eof-$fs\"" "$tmp/fsdir.json" ||
		! grep -q "\"scenario\": \"whole-$fs\"" "$tmp/fsdir.json"; then
		fail "$desc" "no eof-$fs/whole-$fs variant in the report"
	elif grep -q '"scenario": "[a-z-]*-ext4"' "$tmp/fsdir.json"; then
		fail "$desc" "a scenario still named ext4"
	elif ! grep -q "(--fs-dir): $fs on /dev/loop" "$tmp/fsdir.json"; then
		fail "$desc" "the note does not name $fs on its loop device"
	elif ! python3 -c 'import json, sys
sc = [s for r in json.load(open(sys.argv[1]))["results"] for s in r.get("scenarios") or []
      if s["name"] == "trunc-pinned-collapse-blockfs"]
sys.exit(0 if sc and all(s["status"] == "skip" and "skipped by --skip-known-bugs" in s["reason"]
                         for s in sc) else 1)' "$tmp/fsdir.json"; then
		fail "$desc" "trunc-pinned-collapse-blockfs not skipped by --skip-known-bugs"
	else
		pass "$desc"
	fi
}

# t_signal SIG BACKING [ARGS...]: killed mid-run, it dies by the signal and
# undoes the mount (seen mounted first), the loop device and the mTHP knob.
t_signal() {
	local sig=$1 backing=$2 mounted='' mid left want
	shift 2
	local desc="filemap_fault --backing $backing${*:+ $*} killed by SIG$sig mid-run leaves nothing behind"

	needs_loop "$backing" "$desc" || return
	TMPDIR=$work "$FF" --backing "$backing" --seconds "$FOREVER" --size 16M "$@" \
		>"$tmp/out" 2>"$tmp/err" &
	bg_pid=$!
	# Until the scratch filesystem is up, then a second inside the loop.
	for _ in $(seq 100); do
		mounted=$(mounts_under)
		[ -n "$mounted" ] && break
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	mid=$(read_file "$SHMEM64")
	kill -"$sig" "$bg_pid" 2>/dev/null
	# Braces: keep bash's "Terminated"/"Hangup" job notice off stderr.
	{
		# A run that ignores the signal must not hang the test.
		for _ in $(seq 100); do
			kill -0 "$bg_pid" || break
			sleep 0.1
		done
		kill -KILL "$bg_pid" && echo "# SIG$sig did not end the run: SIGKILL" >&3
		wait "$bg_pid"
	} 2>/dev/null 3>&1
	rc=$?
	bg_pid=
	want=$((128 + $(kill -l "$sig")))
	left=$(leftovers)
	if [ -n "$left" ]; then
		fail "$desc" "exit $rc; $left"
		put_back
	elif [ "$rc" -eq 4 ]; then
		[ "$backing" != ext4 ] || no_loop=$(first_err)
		skip "$desc" "$(first_err)"
	elif [ -z "$mounted" ]; then
		fail "$desc" "never saw the scratch filesystem mounted (exit $rc: $(first_err))"
	elif [ "$rc" -ne "$want" ]; then
		fail "$desc" "exit status $rc, wanted $want: $(first_err)"
	elif [[ " $* " == *" --folio large "* && "$mid" != *"[always]"* &&
		"$shmem_before" != *"[always]"* ]]; then
		# Otherwise the restore had nothing to undo and proved nothing.
		fail "$desc" "shmem_enabled was '$mid' mid-run, wanted [always]"
	else
		pass "$desc"
	fi
}

# A bad image directory fails cleanly: exit 3 or 4, nothing left.
t_tmpdir_missing() {
	local desc="filemap_fault with TMPDIR missing fails with a reason, leaves nothing" left

	TMPDIR=$work/missing timeout 60 "$FF" --backing ext4 --iterations 1 --size 16M \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	left=$(leftovers)
	if [ -n "$left" ]; then
		fail "$desc" "exit $rc; $left"
		put_back
	elif [ "$rc" -ne 3 ] || ! grep -q 'filemap_fault: .*: ' "$tmp/err"; then
		fail "$desc" "exit $rc, wanted 3 with a reason: $(first_err)"
	else
		pass "$desc"
	fi
}

cases=(
	"t_run|ext4"
	"t_run|ext4|--processes|2|--mode|write"
	"t_run|tmpfs-huge"
	"t_run|tmpfs|--folio|small"
	"t_tmpdir_missing"
)
if [ -e "$SHMEM64" ]; then
	cases+=("t_run|tmpfs-huge|--folio|large")
fi
cases+=(
	"t_fs_dir|xfs"
	"t_signal|TERM|ext4"
	"t_signal|TERM|ext4|--processes|2"
	"t_signal|HUP|ext4|--threads|2|--mode|write"
)
if [ -e "$SHMEM64" ]; then
	cases+=("t_signal|TERM|tmpfs-huge|--folio|large")
	cases+=("t_signal|HUP|tmpfs|--folio|large")
else
	cases+=("t_signal|TERM|tmpfs-huge")
fi

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
