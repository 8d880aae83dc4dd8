#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One TAP test per row of docs/bad-input.md that this host can test: each
# command given bad input exits with the documented code and says the
# documented thing; an interrupted run keeps its results marked partial and
# restores the mTHP settings; a second run waits on /run/ptecheck.lock.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).  About 60 s.
set -uo pipefail
build=${1:?usage: test_bad_input.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pc=$build/ptecheck
tmp=$(mktemp -d)
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"

echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root (the rows are about a root run's behaviour)"
	exit 4
fi

# row DESC WANT_RC SUBSTRING CMD...: runs CMD (stdout and stderr to files),
# wants its exit status and SUBSTRING in stderr+stdout (empty: anything).
row() {
	local desc=$1 want=$2 sub=$3 rc
	shift 3
	timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [[ $rc -ne $want ]]; then
		not_ok "$desc: exit $rc, wanted $want"
		head -c 400 "$tmp/err" | sed 's/^/# /'
	elif [[ -n $sub ]] && ! grep -qF -- "$sub" "$tmp/err" "$tmp/out"; then
		not_ok "$desc: exit $rc but no '$sub'"
		head -c 400 "$tmp/err" | sed 's/^/# /'
	else
		ok "$desc (exit $rc)"
	fi
}
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
mthp=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
mthp_state() { cat $mthp/enabled $mthp/shmem_enabled 2>/dev/null; }
# Another 'ptecheck run' (another test) would hold the lock and the mTHP
# settings: start each timed row only when none runs.
wait_lock() { flock /run/ptecheck.lock true; }

# --- unknown option -----------------------------------------------------------
for c in features run watch hist export gate bench; do
	row "$c --bogus" 2 "unrecognized option '--bogus'" "$pc" "$c" --bogus
done
row "guest/vmtest --bogus" 7 "unknown option '--bogus'" "$src/guest/vmtest" --bogus
row "guest/kernel-fetch --bogus" 2 "unknown option --bogus" "$src/guest/kernel-fetch" --bogus
row "guest/build-guest --bogus" 2 "unknown option '--bogus'" "$src/guest/build-guest" --bogus

# --- out-of-range sizes ---------------------------------------------------------
row "run --scale 0" 2 "--scale takes a whole number from 1 to 64, not '0'" "$pc" run --scale 0
row "run --scale 65" 2 "--scale takes a whole number from 1 to 64, not '65'" "$pc" run --scale 65
row "run --stress 0" 2 "--stress takes whole seconds per suite from 1 to 86400, not '0'" \
	"$pc" run --stress 0
row "run --stress -5" 2 "--stress takes whole seconds per suite" "$pc" run --stress -5
row "watch --duration -1" 2 "--duration takes seconds (0 < S <= 86400), not '-1'" \
	"$pc" watch --duration -1
row "hist --duration -1" 2 "--duration takes seconds (0 < S <= 86400), not '-1'" \
	"$pc" hist --duration -1
row "run --format xml" 2 "unknown format 'xml' (text, json, tap, junit)" "$pc" run --format xml
row "hist --format junit" 2 "hist checks nothing: no testcases for --format junit" \
	"$pc" hist --format junit --duration 1
row "bench --repeat 0" 2 "--repeat takes 1 to 51, not '0'" "$pc" bench --repeat 0
row "export --listen 127.0.0.1:http" 2 "--listen 127.0.0.1:http: 'http' is not a port (0 to 65535)" \
	"$pc" export --listen 127.0.0.1:http
row "export --listen 127.0.0.1:65536" 2 "'65536' is not a port (0 to 65535)" \
	"$pc" export --listen 127.0.0.1:65536
row "export --listen localhost:9863" 2 "'localhost' is not a numeric IPv4 address or [IPv6] address" \
	"$pc" export --listen localhost:9863
row "guest/vmtest --timeout -1" 7 "" "$src/guest/vmtest" --timeout -1

# --- pids and commands ------------------------------------------------------------
row "watch --pid of no process" 2 "no process 999999999" "$pc" watch --pid 999999999
row "hist --pid of no process" 2 "no process 999999999" "$pc" hist --pid 999999999
sleep 1 &
row "watch --pid of a process that exits mid-run (the kernel log alone judged: exit 4)" 4 "process $! exited" "$pc" watch --pid $!
sleep 1 &
row "hist --pid of a process that exits mid-run" 0 "process $! exited" "$pc" hist --pid $!
row "watch --cgroup of a directory that is no cgroup" 2 "--cgroup /tmp: not a cgroup v2 directory" \
	"$pc" watch --cgroup /tmp --duration 1
row "hist -i 0" 2 "--interval takes seconds (0.1 <= S <= 86400), not '0'" "$pc" hist -i 0
row "hist --by foo" 2 "--by takes comm or pid, not 'foo'" "$pc" hist --by foo --duration 1
row "watch --by PID (names are lowercase)" 2 "--by takes comm or pid, not 'PID'" \
	"$pc" watch --by PID --duration 1
row "watch --no-inherit without --pid or a command" 2 "--no-inherit applies to --pid or a command" \
	"$pc" watch --no-inherit --duration 1
row "watch --pid and --comm: one or the other" 2 "give one of --pid, --comm and --cgroup" \
	"$pc" watch --pid 1 --comm init
row "watch -- a directory" 2 "cannot run /tmp: Permission denied" "$pc" watch -- /tmp
row "watch -- a command not on PATH" 2 "cannot run no-such-cmd-pc: No such file or directory" \
	"$pc" watch -- no-such-cmd-pc
row "watch -- /nonexistent" 2 "cannot run /nonexistent: No such file or directory" \
	"$pc" watch -- /nonexistent
row "hist -- /nonexistent" 2 "cannot run /nonexistent: No such file or directory" \
	"$pc" hist -- /nonexistent
row "watch -- a command exiting 127 by itself is not 'not started' (exit 4: the kernel log alone judged)" 4 \
	"command exited with status 127" "$pc" watch -- sh -c 'exit 127'

# --- --fs-dir on memory ---------------------------------------------------------------
# tmpfs, ramfs and an overlay over tmpfs have no block device: the file
# scenarios would run as shmem (EOF's folio exempted), so the run refuses.
row "run --fs-dir /dev/shm (tmpfs)" 2 "--fs-dir /dev/shm: tmpfs has no block device" \
	"$pc" run --suite filemap --fs-dir /dev/shm
mkdir -p "$tmp/ramfs" "$tmp/ovl"
if mount -t ramfs none "$tmp/ramfs" 2>/dev/null; then
	row "run --fs-dir on ramfs" 2 "ramfs has no block device" \
		"$pc" run --suite filemap --fs-dir "$tmp/ramfs"
	mkdir -p "$tmp/ramfs/up" "$tmp/ramfs/work" "$tmp/ramfs/low"
	if mount -t tmpfs none "$tmp/ramfs/up" && mkdir -p "$tmp/ramfs/up/u" "$tmp/ramfs/up/w" &&
		mount -t overlay none -o "lowerdir=$tmp/ramfs/low,upperdir=$tmp/ramfs/up/u,workdir=$tmp/ramfs/up/w" \
			"$tmp/ovl" 2>/dev/null; then
		row "run --fs-dir on an overlay over tmpfs" 2 "overlay (layer: tmpfs) has no block device" \
			"$pc" run --suite filemap --fs-dir "$tmp/ovl"
		umount "$tmp/ovl"
	else
		echo "# overlay over tmpfs not mountable here: its row not run"
	fi
	umount "$tmp/ramfs/up" 2>/dev/null
	umount "$tmp/ramfs"
fi

# --- no root ----------------------------------------------------------------------
row "features as nobody" 2 "features needs root" "${nobody[@]}" "$pc" features
row "run as nobody" 2 "run needs root" "${nobody[@]}" "$pc" run --suite mremap
row "watch as nobody" 2 "watch needs root" "${nobody[@]}" "$pc" watch --duration 1
row "hist as nobody" 2 "hist needs root" "${nobody[@]}" "$pc" hist --duration 1
row "bench as nobody" 2 "bench: needs root" "${nobody[@]}" "$pc" bench --quick
row "watch --user of no such user" 2 "--user: no user 'no-such-user-pc'" \
	"$pc" watch --user no-such-user-pc -- true
row "watch --user without a command" 2 "--user applies to a command" \
	"$pc" watch --user nobody --duration 1
row "watch --user nobody runs the command as nobody (the kernel log alone judged: exit 4)" 4 "uid=65534" \
	"$pc" watch --user nobody -- id
# Under sudo the report is opened with the sudo user's rights.
row "run --output under sudo into a directory the user cannot write" 2 \
	"cannot open /root/ptecheck-badinput.txt: Permission denied" \
	env SUDO_UID=65534 SUDO_GID=65534 "$pc" run --suite mremap --output /root/ptecheck-badinput.txt
if [[ -e /root/ptecheck-badinput.txt ]]; then
	not_ok "the refused report was created by root anyway"
	rm -f /root/ptecheck-badinput.txt
fi

# --- full disk for the report ------------------------------------------------------
wait_lock
row "run --output /dev/full" 3 "cannot write the report: No space left on device" \
	"$pc" run --suite mremap --output /dev/full
row "run > /dev/full" 3 "cannot write the report: No space left on device" \
	sh -c '"$0" run --suite mremap >/dev/full' "$pc"
row "run --list > /dev/full" 3 "cannot write the list: No space left on device" \
	sh -c '"$0" run --list >/dev/full' "$pc"
row "features > /dev/full" 3 "cannot write to standard output: No space left on device" \
	sh -c '"$0" features >/dev/full' "$pc"
row "watch > /dev/full" 3 "cannot write the report: No space left on device" \
	sh -c '"$0" watch --duration 1 >/dev/full' "$pc"
"$pc" run --suite mremap --format json --output "$tmp/base.json" >/dev/null 2>&1
row "gate --output /dev/full" 2 "/dev/full: cannot write: No space left on device" \
	"$pc" gate --baseline "$tmp/base.json" --output /dev/full "$tmp/base.json"
# An output that cannot be written is refused before anything is decided
# or printed: no SHIP on stdout followed by exit 2.
mkdir -p "$tmp/outdir"
row "gate --html DIR: refused before the decision" 2 "outdir: Is a directory" \
	"$pc" gate --baseline "$tmp/base.json" --html "$tmp/outdir" "$tmp/base.json"
if grep -q "SHIP" "$tmp/out"; then not_ok "gate --html DIR: no decision printed"; else ok "gate --html DIR: no decision printed"; fi
row "gate --output in a missing folder: refused before the decision" 2 "cannot create: No such file or directory" \
	"$pc" gate --baseline "$tmp/base.json" --output "$tmp/no/such/g.txt" "$tmp/base.json"
if [[ -s $tmp/out ]]; then not_ok "gate --output missing folder: stdout empty"; else ok "gate --output missing folder: stdout empty"; fi
row "gate of a missing file" 2 "cannot open: No such file or directory" \
	"$pc" gate --baseline "$tmp/base.json" /nonexistent.json

# --- signals at several moments of a run --------------------------------------------
# handlers_in PID: true once PID runs ptecheck and catches SIGHUP, SIGINT
# and SIGTERM (its SigCgt mask), polled as fast as bash reads /proc: the
# run has started and is in its start-up (BPF load, calibration: 50 ms or
# more here).  The exe first: before its exec the child is a copy of this
# shell, which catches them too (for its EXIT trap), and a signal then
# lands after the exec, before ptecheck's handlers (exit 129/143).
# Bounded by time (10 s), not by tries.  The mask is read whole before it
# is judged: a `while read ... done <status || return` had returned as
# soon as the status file's last line was not SigCgt (a while loop's
# status is its body's last command's), i.e. at the first read before the
# handlers, and the signal then came before them (SIGINT, which a
# background job inherits ignored: exit 0; SIGTERM: 143), now and then in
# CI.  1: not in 10 s; 2: the run ended first.
handlers_in() {
	local key val mask end=$((SECONDS + 10))

	while ((SECONDS < end)); do
		[[ -e /proc/$1/exe ]] || return 2 # gone, or a zombie
		[[ /proc/$1/exe -ef $pc ]] || continue
		mask=
		while read -r key val; do
			[[ $key == SigCgt: ]] && mask=$val
		done <"/proc/$1/status" 2>/dev/null
		[[ -n $mask ]] && (((16#$mask & 0x4003) == 0x4003)) && return 0
	done
	return 1
}
# sig_row SIG WHEN WANT_RC RUN_ARGS...: `run RUN_ARGS` gets SIG after WHEN
# seconds, or (WHEN "start-up") as soon as its handlers are in; it exits
# WANT_RC, its report is marked partial, mTHP is as before.
sig_row() {
	local sig=$1 delay=$2 want=$3 rc before after when="after ${2}s"
	shift 3
	[[ $delay == start-up ]] && when="at start-up"
	wait_lock
	before=$(mthp_state)
	"$pc" run "$@" >"$tmp/sig.txt" 2>"$tmp/sig.err" &
	local p=$!
	if [[ $delay == start-up ]]; then
		handlers_in $p
		case $? in
		1)
			not_ok "SIG$sig $when: the run's handlers never came in (10 s)"
			kill -KILL $p 2>/dev/null
			wait $p
			return
			;;
		2)
			# Not a skip: a run whose handlers never came in ends so too.
			wait $p
			not_ok "SIG$sig $when: the run ended before its handlers were seen (exit $?)"
			return
			;;
		esac
	else
		sleep "$delay"
	fi
	kill -"$sig" $p
	wait $p
	rc=$?
	after=$(mthp_state)
	if [[ $rc -ne $want ]]; then
		not_ok "SIG$sig $when: exit $rc, wanted $want"
		grep -A6 '^FAIL' "$tmp/sig.txt" | sed 's/^/# /'
		tail -3 "$tmp/sig.err" | sed 's/^/# /'
	elif ! grep -q 'interrupted: partial results' "$tmp/sig.txt"; then
		not_ok "SIG$sig $when: report not marked partial"
	elif [[ $before != "$after" ]]; then
		not_ok "SIG$sig $when: mTHP settings not restored"
	else
		ok "SIG$sig $when: exit $rc, partial, mTHP restored"
	fi
}
# During start-up (BPF load and calibration): nothing judged yet.  (A
# fixed 0.1 s stopped being start-up once the start-up got faster.)
for sig in INT TERM HUP; do sig_row $sig start-up 4 --suite mremap; done
# Mid-scenarios (the mremap scenarios take 0.2 s here, so a --stress run):
# what passed so far is kept.
for sig in INT TERM HUP; do sig_row $sig 2.5 0 --suite mremap --stress 8; done
# watch: partial too.
"$pc" watch --duration 30 >"$tmp/w.txt" 2>&1 &
p=$!
sleep 1.5
kill -INT $p
wait $p
rc=$?
if [[ $rc -eq 4 || $rc -eq 0 ]] && grep -q 'interrupted: partial results' "$tmp/w.txt"; then
	ok "watch SIGINT: exit $rc, report marked partial"
else
	not_ok "watch SIGINT: exit $rc, partial: $(grep -c 'interrupted: partial' "$tmp/w.txt")"
fi

# --- a second run at the same time ------------------------------------------------
wait_lock
flock -o /run/ptecheck.lock sleep 4 &
holder=$!
bg+=("$holder")
sleep 0.3
row "second run waits on /run/ptecheck.lock and says so" 0 \
	"another 'ptecheck run' is in progress; waiting for it" "$pc" run --suite mremap
wait "$holder"
flock -o /run/ptecheck.lock sleep 30 &
holder=$!
bg+=("$holder")
sleep 0.3
"$pc" run --suite mremap >"$tmp/wait.txt" 2>"$tmp/wait.err" &
p=$!
sleep 1
kill -TERM $p
t0=$SECONDS
wait $p
rc=$?
if [[ $rc -eq 4 && $((SECONDS - t0)) -le 2 ]] && grep -q 'nothing was run' "$tmp/wait.txt" &&
	grep -q 'interrupted: partial results' "$tmp/wait.txt"; then
	ok "SIGTERM while waiting on the lock: ends the wait, exit 4, empty report marked partial"
else
	not_ok "SIGTERM while waiting on the lock: exit $rc after $((SECONDS - t0)) s"
fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

tap_end
