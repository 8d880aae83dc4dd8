#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The crash-safe journal (/run/ptecheck/journal.PID) and `ptecheck restore`
# (docs/robustness.md): a `ptecheck run --suite filemap` and a filemap_fault
# workload killed by SIGKILL while their changes are in place (mTHP knob,
# huge tmpfs, ext4 on a loop device) leave those changes behind; `restore
# --dry-run` prints and changes nothing; `restore` undoes all of it; a
# second restore finds nothing.  A journal whose owner is alive is left
# alone without --force; a symlinked /run/ptecheck is refused.
#
# Usage: bash test_restore.sh BUILD_DIR
# Prints TAP 13; exits 0 all passed, 1 something failed, 4 nothing could run.

# The cases are called through the table at the bottom.
# shellcheck disable=SC2317

set -u

BUILD_DIR=${1:-}
if [ -z "$BUILD_DIR" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
PC=$BUILD_DIR/ptecheck
FF=$BUILD_DIR/workloads/filemap_fault
THP=/sys/kernel/mm/transparent_hugepage
ANON64=$THP/hugepages-64kB/enabled
JDIR=/run/ptecheck

echo "TAP version 13"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP the journal, mTHP and scratch mounts need root"
	exit 4
fi
if [ ! -x "$PC" ] || [ ! -x "$FF" ]; then
	echo "1..0 # SKIP $PC or $FF not built"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_restore.XXXXXX") || exit 1
work=$tmp/work
mkdir "$work" || exit 1
bg_pid=
nr=0
nr_fail=0

choice() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$1" 2>/dev/null
}

# The machine's mTHP knobs, put back if a case failed before restore did
# (only then: another run may change them meanwhile, and restore them itself).
knobs_dirty=0
anon64_before=$(choice "$ANON64")
knobs=()
for f in $THP/hugepages-64kB/enabled $THP/hugepages-64kB/shmem_enabled \
	$THP/hugepages-2048kB/enabled; do
	[ -e "$f" ] && knobs+=("$f=$(choice "$f")")
done

pass() {
	nr=$((nr + 1))
	echo "ok $nr - $1"
}

fail() {
	nr=$((nr + 1))
	nr_fail=$((nr_fail + 1))
	echo "not ok $nr - $1"
	printf '%s\n' "$2" | sed 's/^/# /' | head -n 20
}

skip() {
	nr=$((nr + 1))
	echo "ok $nr - $1 # SKIP $2"
}

# Mount points under a directory prefix (one per line).
mounts_under() {
	awk -v d="$1" 'index($2, d) == 1 { print $2 }' /proc/mounts
}

# Loop devices whose backing file (deleted or not) starts with a prefix.
loops_under() {
	local f
	for f in /sys/block/loop*/loop/backing_file; do
		[ -e "$f" ] || continue
		case $(cat "$f" 2>/dev/null) in
		"$1"*) echo "/dev/$(basename "$(dirname "$(dirname "$f")")")" ;;
		esac
	done
}

# Unescaped argument N (7 or 8) of the journal records of KIND in FILE.
journal_args() {
	awk -v k="$2" -v n="$3" '$6 == k { print $n }' "$1" 2>/dev/null |
		while IFS= read -r a; do printf '%b\n' "${a//\\/\\0}"; done
}

# Waits (up to 10 s) for a process and its process group to be gone.
reap() {
	local pid=$1
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# The scenario children of a killed run end when their pipe closes.
	for _ in $(seq 100); do
		pgrep -g "$pid" >/dev/null || return 0
		sleep 0.1
	done
	pkill -KILL -g "$pid" 2>/dev/null
	sleep 0.5
}

cleanup() {
	local k
	if [ -n "$bg_pid" ]; then
		kill -KILL "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
	fi
	# Whatever a failed case left of ours.
	for m in $(mounts_under "$work/" | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	for l in $(loops_under "$work/"); do
		losetup -d "$l" 2>/dev/null
	done
	if [ "$knobs_dirty" -eq 1 ]; then
		for k in "${knobs[@]}"; do
			[ -n "${k#*=}" ] && echo "${k#*=}" >"${k%%=*}" 2>/dev/null
		done
	elif [ -n "$anon64_before" ] && [ "$anon64_before" != never ]; then
		# The known value set for the run case.
		echo "$anon64_before" >"$ANON64" 2>/dev/null
	fi
	rm -f "$JDIR/journal.$$"
	rm -rf "$tmp"
}
trap cleanup EXIT

# Polls (up to 60 s) until PATTERN (an awk regex on mount points) is mounted.
wait_mounted() {
	local pid=$1 pattern=$2
	for _ in $(seq 3000); do
		awk -v p="$pattern" '$2 ~ p { found = 1 } END { exit !found }' /proc/mounts &&
			return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# Checks a restore's result: exit status, a line it must print.
t_restore_runs() {
	local desc=$1 want_rc=$2 want_line=$3 rc
	shift 3
	"$PC" restore "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$desc" "exit $rc, want $want_rc: $(cat "$tmp/out")"
		return 1
	elif ! grep -q -- "$want_line" "$tmp/out"; then
		fail "$desc" "no '$want_line' in: $(cat "$tmp/out")"
		return 1
	fi
	pass "$desc"
}

# ptecheck run --suite filemap, SIGKILLed with its mTHP knobs, huge tmpfs
# and ext4 loop mount in place.
t_run_killed() {
	local pid journal left images dirs before attempt
	if [ ! -e "$ANON64" ]; then
		skip "ptecheck run killed by SIGKILL: restore undoes it" "no 64 KiB mTHP here"
		return
	fi
	# A known value, which the run changes to madvise.
	knobs_dirty=1
	echo never >"$ANON64"
	# The mounts stand for about half a second of a 3 s run: a run that
	# ended before the kill is tried again.
	for attempt in 1 2 3; do
		setsid "$PC" run --suite filemap --format tap >"$tmp/run.out" 2>&1 &
		bg_pid=$!
		pid=$bg_pid
		journal=$JDIR/journal.$pid
		# Both scratch filesystems (ext4 comes second), or the huge tmpfs alone
		# on a machine without loop devices once the run is past them.
		wait_mounted "$pid" '^/tmp/ptecheck\.[^/]+/ext4$'
		reap "$pid"
		bg_pid=
		[ -s "$journal" ] && [ -n "$(mounts_under /tmp/ptecheck.)" ] && break
		echo "# attempt $attempt: the run was not caught with its mounts in place"
	done
	if [ ! -s "$journal" ]; then
		skip "ptecheck run killed by SIGKILL: restore undoes it" \
			"never caught mid-run: $(tail -n 3 "$tmp/run.out" | tr '\n' ' ')"
		return
	fi
	cp "$journal" "$tmp/journal.copy"
	images=$(journal_args "$tmp/journal.copy" file 7)
	dirs=$(journal_args "$tmp/journal.copy" tmpdir 7 | sort -u)
	before=$(choice "$ANON64")

	if [ "$before" != never ] && [ -n "$(mounts_under /tmp/ptecheck.)" ] && [ -s "$journal" ]; then
		pass "SIGKILL leaves the run's changes behind ($ANON64: $before; mounts; journal)"
	else
		fail "SIGKILL leaves the run's changes behind" \
			"$ANON64: $before; mounts: $(mounts_under /tmp/ptecheck.); journal: $(cat "$journal" 2>&1)"
	fi

	t_restore_runs "restore --dry-run lists the changes" 0 "would write \"never\" to $ANON64" \
		--dry-run
	if [ "$(choice "$ANON64")" = "$before" ] && [ -s "$journal" ] &&
		[ -n "$(mounts_under /tmp/ptecheck.)" ]; then
		pass "restore --dry-run changes nothing"
	else
		fail "restore --dry-run changes nothing" "$ANON64: $(choice "$ANON64"); journal: $(ls -l "$journal" 2>&1)"
	fi

	t_restore_runs "restore undoes the killed run (exit 0)" 0 "removed $journal: all undone"
	left=
	[ "$(choice "$ANON64")" = never ] || left+="$ANON64 is $(choice "$ANON64"); "
	for d in $dirs; do
		[ -z "$(mounts_under "$d/")" ] || left+="mounted: $(mounts_under "$d/"); "
		[ -z "$(loops_under "$d/")" ] || left+="loop devices: $(loops_under "$d/"); "
		[ ! -e "$d" ] || left+="$d still exists: $(find "$d" | tr '\n' ' '); "
	done
	for i in $images; do
		[ ! -e "$i" ] || left+="image $i still exists; "
	done
	[ ! -e "$journal" ] || left+="journal $journal still exists; "
	[ -n "$dirs" ] || left+="no tmpdir record in the journal; "
	if [ -z "$left" ]; then
		knobs_dirty=0
		pass "after restore: mTHP back, no mount, no loop device, no image or directory"
	else
		fail "after restore: mTHP back, no mount, no loop device, no image or directory" \
			"$left"
	fi
	t_restore_runs "a second restore has nothing to do" 0 "nothing to do"
}

# filemap_fault --backing ext4 SIGKILLed mid-run.
t_workload_killed() {
	local pid journal left
	TMPDIR=$work setsid "$FF" --backing ext4 --seconds 30 --size 16M >"$tmp/ff.out" 2>&1 &
	bg_pid=$!
	pid=$bg_pid
	journal=$JDIR/journal.$pid
	if ! wait_mounted "$pid" "^$work/"; then
		reap "$pid"
		bg_pid=
		skip "filemap_fault killed by SIGKILL: restore undoes it" \
			"no ext4 scratch mount: $(head -n 1 "$tmp/ff.out")"
		return
	fi
	sleep 1
	reap "$pid"
	bg_pid=
	if [ -n "$(mounts_under "$work/")" ] && [ -s "$journal" ]; then
		pass "SIGKILL leaves the workload's ext4 mount and journal behind"
	else
		fail "SIGKILL leaves the workload's ext4 mount and journal behind" \
			"mounts: $(mounts_under "$work/"); journal: $(ls -l "$journal" 2>&1)"
	fi
	t_restore_runs "restore undoes the killed workload (exit 0)" 0 "unmounted $work/"
	left=
	sleep 0.5
	[ -z "$(mounts_under "$work/")" ] || left+="mounted: $(mounts_under "$work/"); "
	[ -z "$(loops_under "$work/")" ] || left+="loop devices: $(loops_under "$work/"); "
	[ -z "$(find "$work" -mindepth 1)" ] || left+="left: $(find "$work" -mindepth 1 | tr '\n' ' '); "
	[ ! -e "$journal" ] || left+="journal $journal still exists; "
	if [ -z "$left" ]; then
		pass "after restore: no mount, loop device, image or directory of the workload"
	else
		fail "after restore: no mount, loop device, image or directory of the workload" "$left"
	fi
	t_restore_runs "a second restore has nothing to do" 0 "nothing to do"
}

# A live workload's journal is left alone; a live owner's journal goes with --force.
t_alive() {
	local pid journal start
	TMPDIR=$work "$FF" --backing tmpfs --seconds 30 --size 16M >"$tmp/ff.out" 2>&1 &
	bg_pid=$!
	pid=$bg_pid
	journal=$JDIR/journal.$pid
	if ! wait_mounted "$pid" "^$work/"; then
		skip "a running owner's journal is left alone" "no tmpfs: $(head -n 1 "$tmp/ff.out")"
	else
		t_restore_runs "restore leaves a running owner's journal alone" 0 \
			"pid $pid is still running"
		if [ -n "$(mounts_under "$work/")" ] && [ -s "$journal" ] && kill -0 "$pid"; then
			pass "its mount and journal are untouched"
		else
			fail "its mount and journal are untouched" \
				"mounts: $(mounts_under "$work/"); journal: $(ls -l "$journal" 2>&1)"
		fi
		# A normal end (SIGTERM) undoes it and removes its journal.
		kill -TERM "$pid"
		wait "$pid" 2>/dev/null
		if [ ! -e "$journal" ] && [ -z "$(mounts_under "$work/")" ]; then
			pass "a normal end (SIGTERM) removes the journal"
		else
			fail "a normal end (SIGTERM) removes the journal" "$(cat "$journal" 2>&1)"
		fi
	fi
	bg_pid=

	# A hand-made record owned by this (live) shell: only --force acts on it.
	start=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
	: >"$work/forced"
	[ -d "$JDIR" ] || mkdir -m 0700 "$JDIR"
	(
		umask 077
		echo "v1 1 $$ $start $(cat /proc/sys/kernel/random/boot_id) file $work/forced" \
			>"$JDIR/journal.$$"
	)
	"$PC" restore >"$tmp/out" 2>&1
	if [ -e "$work/forced" ] && grep -q "pid $$ is still running" "$tmp/out"; then
		pass "restore without --force leaves a live owner's record"
	else
		fail "restore without --force leaves a live owner's record" "$(cat "$tmp/out")"
	fi
	t_restore_runs "restore --force undoes it" 0 "deleted $work/forced" --force
	if [ ! -e "$work/forced" ] && [ ! -e "$JDIR/journal.$$" ]; then
		pass "--force deleted the file and the journal"
	else
		fail "--force deleted the file and the journal" "$(ls -l "$work" "$JDIR" 2>&1)"
	fi
}

# In a private mount namespace (a tmpfs on /run there only), or else with the
# real directory renamed aside when it holds no journal.
t_symlink() {
	local script
	# shellcheck disable=SC2016 # expanded by the inner bash
	script='
		set -u
		mount -t tmpfs -o mode=0755 tmpfs /run || exit 99
		mkdir -m 0700 "$1/target"
		ln -s "$1/target" /run/ptecheck
		"$2" restore >"$1/sym.out" 2>&1
		echo "restore $?" >"$1/sym.rc"
		TMPDIR="$1" "$3" --backing tmpfs --iterations 1 --size 4M >"$1/symff.out" 2>&1
		echo "workload $?" >>"$1/sym.rc"
		rm /run/ptecheck
		mkdir -m 0755 /run/ptecheck
		"$2" restore >"$1/mode.out" 2>&1
		echo "mode $?" >>"$1/sym.rc"
	'
	mkdir "$tmp/ns"
	if unshare -m --propagation private bash -c "$script" sh "$tmp/ns" "$PC" "$FF" \
		2>/dev/null; then
		:
	elif [ "$?" -eq 99 ] || ! command -v unshare >/dev/null; then
		if compgen -G "$JDIR/journal.*" >/dev/null; then
			skip "a symlinked $JDIR is refused" "no private mount namespace, and $JDIR holds journals"
			return
		fi
		# No namespace: the real directory aside, for as short as it takes.
		mv "$JDIR" "$JDIR.test-aside.$$" 2>/dev/null
		mkdir -m 0700 "$tmp/ns/target"
		ln -s "$tmp/ns/target" "$JDIR"
		"$PC" restore >"$tmp/ns/sym.out" 2>&1
		echo "restore $?" >"$tmp/ns/sym.rc"
		TMPDIR=$tmp/ns "$FF" --backing tmpfs --iterations 1 --size 4M >"$tmp/ns/symff.out" 2>&1
		echo "workload $?" >>"$tmp/ns/sym.rc"
		rm "$JDIR"
		mkdir -m 0755 "$JDIR"
		"$PC" restore >"$tmp/ns/mode.out" 2>&1
		echo "mode $?" >>"$tmp/ns/sym.rc"
		rmdir "$JDIR"
		[ ! -e "$JDIR.test-aside.$$" ] || mv "$JDIR.test-aside.$$" "$JDIR"
	fi
	if grep -q '^restore 3$' "$tmp/ns/sym.rc" && grep -q 'is a symlink' "$tmp/ns/sym.out"; then
		pass "restore refuses a symlinked $JDIR (exit 3, says why)"
	else
		fail "restore refuses a symlinked $JDIR (exit 3, says why)" \
			"$(cat "$tmp/ns/sym.rc" "$tmp/ns/sym.out" 2>&1)"
	fi
	if ! grep -q '^workload 0$' "$tmp/ns/sym.rc" && grep -q 'journal' "$tmp/ns/symff.out" &&
		[ -z "$(ls -A "$tmp/ns/target")" ]; then
		pass "a workload makes no change it cannot journal safely"
	else
		fail "a workload makes no change it cannot journal safely" \
			"$(cat "$tmp/ns/sym.rc" "$tmp/ns/symff.out"; ls -A "$tmp/ns/target")"
	fi
	if grep -q '^mode 3$' "$tmp/ns/sym.rc" && grep -q 'not a root-owned 0700' "$tmp/ns/mode.out"; then
		pass "restore refuses a $JDIR that is not 0700"
	else
		fail "restore refuses a $JDIR that is not 0700" \
			"$(cat "$tmp/ns/sym.rc" "$tmp/ns/mode.out" 2>&1)"
	fi
}

t_usage() {
	"$PC" restore --bogus >/dev/null 2>&1
	rc=$?
	if [ "$rc" -eq 2 ]; then
		pass "restore with an unknown option exits 2"
	else
		fail "restore with an unknown option exits 2" "exit $rc"
	fi
}

t_usage
t_run_killed
t_workload_killed
t_alive
t_symlink

echo "1..$nr"
[ "$nr_fail" -eq 0 ]
