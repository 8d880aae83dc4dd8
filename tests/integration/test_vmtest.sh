#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/vmtest, the QEMU guest harness, on an x86_64 guest under TCG: a
# report that comes back over virtio-serial, a guest's exit status that
# becomes vmtest's, a panic (exit 5) and a hang (exit 6; a boot that
# never reached /init is retried once) that are failures with the
# console tail, a crash attributed to the suite its status
# records name, kernel modules loaded with their dependencies, and usage
# (exit 7) and setup errors (exit 8) that stop before QEMU starts.  Short
# boots, two at a time (lib/pool.sh; docs/vmtest.md has the times); the
# guest commands come from the documented test hook --guest-cmd.
#
# Usage: bash test_vmtest.sh BUILD_DIR   (the native build; unused: the
# guest gets a static build of its own, made in seconds by guest/build-guest)
# Prints TAP 13; exits 0 all passed, 1 something failed, 4 nothing could run.

# The cases are called through the table at the bottom.
# shellcheck disable=SC2317

set -u

BUILD_DIR=${1:-}
if [ -z "$BUILD_DIR" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMTEST=$ROOT/guest/vmtest

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_vmtest.XXXXXX") || exit 1
# shellcheck source=tests/integration/lib/pool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/pool.sh"
nr=0
nr_pass=0
nr_fail=0
nr_skip=0

cleanup() {
	# Every vmtest run here is in the foreground and kills its own QEMU; the
	# work dirs it leaves (logs) are removed with ours.
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
	sed 's/^/#   /' "$tmp/err" | tail -n 15
}

# ready DESC WHY [PATH]: false, the case skipped, when WHY says it cannot
# run or PATH (a kernel, a modules tree) is not there.
ready() {
	if [ -n "$2" ]; then
		skip "$1" "$2"
		return 1
	fi
	if [ -n "${3:-}" ] && [ ! -e "$3" ]; then
		skip "$1" "no $3"
		return 1
	fi
}

skip() {
	nr=$((nr + 1))
	nr_skip=$((nr_skip + 1))
	echo "ok $nr - $1 # SKIP $2"
}

# vm ARGS...: runs vmtest (work dirs under $tmp); sets rc and secs,
# output in $tmp/out and $tmp/err.
vm() {
	local t0=$SECONDS
	TMPDIR=$tmp timeout 300 "$VMTEST" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	secs=$((SECONDS - t0))
}

workdir() {
	sed -n 's/^vmtest: work dir //p' "$tmp/err" | head -n1
}

# What the boots need; each missing piece skips the cases that need it.
why_no_qemu=
command -v qemu-system-x86_64 >/dev/null || why_no_qemu="no qemu-system-x86_64 (scripts/install-deps --guest)"
command -v cpio >/dev/null || why_no_qemu="no cpio (scripts/install-deps --guest)"
kdir=
why_no_kernel=$why_no_qemu
if [ -z "$why_no_kernel" ]; then
	if kdir=$("$ROOT/guest/kernel-fetch" fetch --arch amd64 7 2>"$tmp/kf.err" | tail -n1) &&
		[ -f "$kdir/vmlinuz" ] && bb=$("$ROOT/guest/kernel-fetch" busybox --arch amd64 2>>"$tmp/kf.err" | tail -n1); then
		:
	else
		why_no_kernel="no 7.x amd64 kernel or busybox from kernel-fetch: $(tail -n1 "$tmp/kf.err")"
	fi
fi
guest=
why_no_guest=$why_no_kernel
if [ -z "$why_no_guest" ]; then
	if "$ROOT/guest/build-guest" --no-deps --dir "$tmp/guest" x86_64 >"$tmp/bg.out" 2>&1; then
		guest=$(tail -n1 "$tmp/bg.out")
	else
		why_no_guest="guest/build-guest x86_64 failed: $(tail -n1 "$tmp/bg.out")"
	fi
fi
# An arm64 kernel with CONFIG_IKCONFIG and CONFIG_PAGE_TABLE_CHECK, when
# mutate/mutate has built one here (its images embed the fragment's config).
ptc_img=$(find /var/cache/ptecheck/mutate/arm64/images -name Image -print -quit 2>/dev/null)
# Fixed options of the boot cases: the cached kernel, TCG (the KVM probe is
# case 1's business), short timeouts.
K=(--arch x86_64 --kernel "$kdir/vmlinuz" --busybox "${bb:-}" --accel tcg --timeout 120)

# (1) ptecheck itself in the guest; the report is what came over virtio-serial.
t_features() {
	local d="ptecheck features runs in an x86_64 guest, report over virtio-serial, exit 0"
	[ -z "$why_no_guest" ] || {
		skip "$d" "$why_no_guest"
		return
	}
	# --package and --accel auto: kernel-fetch and the (cached) KVM probe too.
	vm --arch x86_64 --package 7 --build-dir "$guest" --timeout 180 --output "$tmp/report" -- features
	local w
	w=$(workdir)
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc after ${secs}s"
	elif ! grep -q 'features of this kernel' "$tmp/report"; then
		fail "$d" "--output file lacks the features report"
	elif [ -z "$w" ] || ! cmp -s "$tmp/report" "$w/report"; then
		fail "$d" "the report is not the virtio-serial stream ($w/report)"
	elif ! grep -q '^vmtest: accel: ' "$tmp/err" || ! grep -q '^vmtest: qemu: qemu-system-x86_64 ' "$tmp/err"; then
		fail "$d" "no accel or QEMU command line on stderr"
	elif ! grep -q '^release=' "$w/facts" || ! grep -q '^hw_dirty_bit_management=n/a' "$w/facts"; then
		fail "$d" "guest facts incomplete: $(tr '\n' ' ' <"$w/facts")"
	else
		pass "$d (${secs}s)"
	fi
}

# (6) the guest's status is vmtest's; stdout and stderr come back apart.
# 3 is ptecheck's "could not run", which vmtest's own codes never are.
t_status() {
	local d="a guest command's exit 3 is vmtest's exit 3, stdout and stderr kept apart"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --guest-cmd 'echo report-line; echo error-line >&2; exit 3'
	if [ "$rc" -ne 3 ]; then
		fail "$d" "exit $rc, not 3"
	elif [ "$(cat "$tmp/out")" != report-line ]; then
		fail "$d" "stdout is '$(head -c 200 "$tmp/out")'"
	elif ! grep -qx error-line "$tmp/err"; then
		fail "$d" "the guest's stderr line is not on stderr"
	else
		pass "$d (${secs}s)"
	fi
}

# (2) a panic is a crash: exit 5 with the console tail.
t_panic() {
	local d="a guest kernel panic gives exit 5 and the console tail with 'Kernel panic'"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --guest-cmd 'echo c >/proc/sysrq-trigger'
	if [ "$rc" -ne 5 ]; then
		fail "$d" "exit $rc, not 5"
	elif ! grep -q '^  | .*Kernel panic' "$tmp/err" || ! grep -q '^vmtest: FAIL: .*crashed' "$tmp/err"; then
		fail "$d" "no console tail with 'Kernel panic' or no FAIL line"
	elif [ -s "$tmp/out" ]; then
		fail "$d" "something was printed as a report"
	else
		pass "$d (${secs}s)"
	fi
}

# fake_report SUITE RELEASE MACHINE: a run report (JSON) whose one check
# SUITE/fake passed; printf's arguments left to the shell that runs it.
# shellcheck disable=SC2016 # the guest's shell expands these
fake_report() {
	printf '%s' "printf '{\"schema\":\"ptecheck-report\",\"schema_version\":6,\"tool_version\":\"t\",\"command\":\"run\",\"suite\":\"all\",\"kernel\":{\"release\":\"%s\",\"machine\":\"%s\"},\"started\":\"2026-12-04T00:00:00Z\",\"duration_s\":1.0,\"scale\":1,\"partial\":false,\"summary\":{\"passed\":1,\"failed\":0,\"skipped\":0,\"exit_code\":0},\"results\":[{\"check\":\"%s/fake\",\"tier\":\"oracle:fake\",\"in_kernel\":false,\"status\":\"pass\",\"summary\":\"ok\",\"checked\":1,\"violations\":0,\"inconclusive\":0,\"evidence\":[],\"variants\":[],\"scenarios\":[]}],\"histograms\":[],\"notes\":[]}\\n' $2 $3 $1"
}

# fake_run RECORD...: a guest command that plays 'ptecheck run --format
# json': it writes each RECORD to the status port (docs/vmtest.md,
# "Status records"), then crashes the kernel; resumed, it reports its
# suite's one check passed.
# shellcheck disable=SC2016 # the guest's shell expands these
fake_run() {
	local r
	echo "if [ -n \"\$VMTEST_RESUME\" ]; then $(fake_report '"$VMTEST_RESUME"' '"$(uname -r)"' '"$(uname -m)"'); exit 0; fi"
	for r in "$@"; do
		echo "echo '$r' >>\"\$PTECHECK_STATUS\""
	done
	echo 'sleep 1; echo c >/proc/sysrq-trigger'
}

# (2a) a crash during a suite of 'ptecheck run' is that suite's failure:
# named, its console kept, the other suites run in fresh guests (before it
# and after it), and one report of it all that the gate reads as a crash:
# DO NOT SHIP naming it.
t_resume() {
	local d="a crash in suite two: exit 5, the others rerun, a report the gate fails naming the crash, the time said"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --output "$tmp/report.json" --guest-cmd "$(fake_run "suites one two three" "suite one begin" "scenario a" "scenario-time a 3.40" "suite one end" "suite two begin" "scenario anon-64k")"
	# The baseline: every suite's check passed on some kernel.
	sh -c "$(fake_report one 7.0 x86_64)" | jq '.results += [.results[0] | (.check = "two/fake"), (.check = "three/fake")] | .summary.passed = 3' >"$tmp/base.json"
	"$BUILD_DIR/ptecheck" gate --baseline "$tmp/base.json" "$tmp/report.json" >"$tmp/gate" 2>&1
	local g=$?
	if [ "$rc" -ne 5 ]; then
		fail "$d" "exit $rc, not 5"
	elif ! grep -q '^vmtest: FAIL: the guest kernel crashed during suite two: ' "$tmp/err"; then
		fail "$d" "no FAIL line naming suite two"
	elif ! grep -q 'console of the boot that died in suite two: .*/console.two.log' "$tmp/err"; then
		fail "$d" "the crashed boot's console was not kept"
	elif ! jq -e '[.results[] | select(.status == "pass") | .check] == ["one/fake", "three/fake"]' "$tmp/report.json" >/dev/null; then
		fail "$d" "suites one and three not both in the report: $(jq -c '[.results[].check]' "$tmp/report.json" 2>&1)"
	elif ! jq -e '.results[] | select(.check == "two/kernel-log" and .tier == "console" and .status == "fail") | .summary | test("died during suite two \\(scenario anon-64k running\\): .*(Kernel panic|sysrq)")' "$tmp/report.json" >/dev/null; then
		fail "$d" "no failed two/kernel-log [console] naming the scenario and the crash: $(jq -c '.results[-1]' "$tmp/report.json" 2>&1)"
	elif [ "$g" -ne 1 ] || ! grep -q 'because invariant-failure .*two/kernel-log \[console\] failed.*died during suite two' "$tmp/gate"; then
		fail "$d" "gate exit $g, not 1 naming the crash: $(head -n 3 "$tmp/gate")"
	elif ! grep -q '^vmtest: time: suites one 3 s, two 0 s; slowest scenarios one/a 3.4 s$' "$tmp/err"; then
		fail "$d" "no time line from the scenario-time records: $(grep 'time:' "$tmp/err")"
	else
		pass "$d (${secs}s)"
	fi
}

# (2a') a crash after suite one ended and before two began is no suite's:
# nothing is resumed (which suite would the kernel have died in?), and the
# report says the run died, between its suites.
t_crash_between() {
	local d="a crash after suite one ended: exit 5, no suite named, nothing resumed, the run's death reported"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --guest-cmd "$(fake_run "suites one two three" "suite one begin" "suite one end")"
	if [ "$rc" -ne 5 ]; then
		fail "$d" "exit $rc, not 5"
	elif ! grep -q '^vmtest: FAIL: the guest kernel crashed: ' "$tmp/err"; then
		fail "$d" "the FAIL line names a suite or is missing"
	elif grep -q 'resuming\|running it again' "$tmp/err"; then
		fail "$d" "resumed: $(grep 'resuming\|running it again' "$tmp/err")"
	elif ! jq -e '[.results[] | .check + " " + .tier + " " + .status] == ["all/kernel-log console fail"]' "$tmp/out" >/dev/null; then
		fail "$d" "stdout is not a report of the run's death alone: $(head -c 300 "$tmp/out")"
	else
		pass "$d (${secs}s)"
	fi
}

# (2c) --numa 2: the guest has two memory nodes (the stress migration
# stressor needs another node to move pages to).
t_numa() {
	local d="--numa 2 gives the guest nodes 0-1"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --numa 2 --guest-cmd 'cat /sys/devices/system/node/has_memory'
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif ! grep -qx '0-1' "$tmp/out"; then
		fail "$d" "nodes with memory: $(cat "$tmp/out")"
	else
		pass "$d (${secs}s)"
	fi
}

# (2b) a kernel that cannot start /init panics before any status.
t_no_init() {
	local d="rdinit=/nonexistent: panic before /init gives exit 5"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --append rdinit=/nonexistent --guest-cmd true
	if [ "$rc" -ne 5 ]; then
		fail "$d" "exit $rc, not 5"
	elif ! grep -q 'Kernel panic' "$tmp/err"; then
		fail "$d" "no 'Kernel panic' on stderr"
	else
		pass "$d (${secs}s)"
	fi
}

# (3) a hang is killed at --timeout: exit 6, quickly, with a message.
t_hang() {
	local d="a hung guest is killed at --timeout 20: exit 6 with a message"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --timeout 20 --guest-cmd 'sleep 1000'
	if [ "$rc" -ne 6 ]; then
		fail "$d" "exit $rc, not 6"
	elif [ "$secs" -gt 40 ]; then
		fail "$d" "took ${secs}s"
	elif ! grep -q '^vmtest: FAIL: the guest did not finish within 20s' "$tmp/err"; then
		fail "$d" "no timeout message"
	elif pgrep -f "$tmp/vmtest" >/dev/null; then
		fail "$d" "a QEMU of this run is still alive"
	else
		pass "$d (${secs}s)"
	fi
}

# (3a') a run that hangs in a suite: exit 6, and its report says the
# kernel did not finish that suite, with the console's last lines.
t_hang_run() {
	local d="a run hung in its only suite: exit 6, a report failing that suite as hung"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --timeout 20 --output "$tmp/hang.json" --guest-cmd "$(fake_run "suites one" "suite one begin" "scenario x" | sed 's|echo c >/proc/sysrq-trigger|sleep 1000|')"
	if [ "$rc" -ne 6 ]; then
		fail "$d" "exit $rc, not 6"
	elif ! jq -e '.results[] | select(.check == "one/kernel-log" and .tier == "console" and .status == "fail") | .summary | test("did not finish suite one \\(scenario x running\\) within 20 s")' "$tmp/hang.json" >/dev/null; then
		fail "$d" "no failed one/kernel-log [console] naming the hang: $(head -c 400 "$tmp/hang.json" 2>&1)"
	elif ! jq -e '.results[0].evidence[-1].what == "the console'"'"'s last lines"' "$tmp/hang.json" >/dev/null; then
		fail "$d" "the console's last lines are not its evidence"
	else
		pass "$d (${secs}s)"
	fi
}

# (3b) a guest that never reaches /init (here: --timeout 2, shorter than
# any TCG boot) is booted once more, said so, then fails as a timeout.
t_boot_stall() {
	local d="no /init within --timeout 2 under TCG: booted twice, then exit 6"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --timeout 2 --guest-cmd true
	if [ "$rc" -ne 6 ]; then
		fail "$d" "exit $rc, not 6"
	elif [ "$(grep -c 'booting it once more' "$tmp/err")" -ne 1 ]; then
		fail "$d" "not exactly one second boot announced"
	elif ! grep -q '^vmtest: FAIL: the guest did not reach /init within 2s' "$tmp/err"; then
		fail "$d" "no timeout message"
	elif [ "$secs" -gt 40 ]; then
		fail "$d" "took ${secs}s"
	elif pgrep -f "$tmp/vmtest" >/dev/null; then
		fail "$d" "a QEMU of this run is still alive"
	else
		pass "$d (${secs}s)"
	fi
}

# Modules: found by name, dependencies from the module's own depends=
# (Debian's trees have no modules.dep), decompressed and insmod'ed in order.
t_modules() {
	local d="--module zram loads zram after its dependency lz4hc_compress"
	ready "$d" "$why_no_kernel" "$kdir/modules/kernel" || return
	vm "${K[@]}" --module zram --guest-cmd 'cat /etc/vmtest.modules; grep -q "^zram " /proc/modules'
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif ! grep -q 'lz4hc_compress.ko' "$tmp/out" ||
		[ "$(grep -n 'lz4hc_compress.ko' "$tmp/out" | cut -d: -f1)" -gt "$(grep -n '/zram.ko' "$tmp/out" | cut -d: -f1)" ]; then
		fail "$d" "load order: $(tr '\n' ' ' <"$tmp/out")"
	else
		pass "$d (${secs}s)"
	fi
}

# The scratch filesystem /init mounts: KIND (virtio-blk, loop, none) and FS
# in the facts, the "scratch" status record and /proc/mounts.  The loop
# fallback is what a kernel without virtio-blk gets: a Debian kernel with
# its virtio_blk module left out plays one.
t_scratch() {
	local kind=$1 fs=$2 w
	shift 2
	local d="scratch $kind $fs: $*"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" "$@" --guest-cmd 'grep " /mnt/scratch " /proc/mounts; true'
	w=$(workdir)
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif ! grep -q "^scratch=$kind $fs " "$w/facts"; then
		fail "$d" "facts: $(grep '^scratch=' "$w/facts")"
	elif ! grep -q "^scratch $kind $fs " "$w/status"; then
		fail "$d" "status records: $(tr '\n' ' ' <"$w/status")"
	elif ! grep -q "^vmtest: guest: scratch filesystem (kind fs device): $kind $fs" "$tmp/err"; then
		fail "$d" "vmtest does not say what the guest used"
	elif [ "$kind" = none ] && [ -s "$tmp/out" ]; then
		fail "$d" "something mounted at /mnt/scratch: $(cat "$tmp/out")"
	elif [ "$kind" != none ] && ! grep -q " /mnt/scratch $fs " "$tmp/out"; then
		fail "$d" "/proc/mounts: $(cat "$tmp/out")"
	else
		pass "$d (${secs}s)"
	fi
}

# --scratch-disk 0 is "none": accepted, no disk, no image, no fact.
t_scratch_zero() {
	local d="--scratch-disk 0: no scratch disk and no --fs-dir"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	vm "${K[@]}" --scratch-disk 0 --guest-cmd 'cat /etc/vmtest.conf; ls /scratch.img.gz 2>&1; true'
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif ! grep -qx 'VMTEST_SCRATCH=0' "$tmp/out" || ! grep -qx 'VMTEST_FS_ARG=0' "$tmp/out"; then
		fail "$d" "settings: $(tr '\n' ' ' <"$tmp/out")"
	elif ! grep -q 'No such file' "$tmp/out" || grep -q 'virtio-blk' "$(workdir)/qemu.cmd"; then
		fail "$d" "an image or a disk was given anyway"
	else
		pass "$d (${secs}s)"
	fi
}

# The config embedded in an image (guest/lib/ikconfig.sh), without a boot:
# crafted images hold "IKCFG_ST" gzip(config) "IKCFG_ED" as is (an arm64
# Image) and inside a gzip, xz or zstd payload behind a setup header (a
# bzImage); an image without the markers has none.
t_ikconfig() {
	local d="the config embedded in an image is found, plain and in a compressed payload"
	local f=$tmp/ikc why='' z
	mkdir -p "$f"
	printf '#\n# Linux/x86 7.2.13 Kernel Configuration\n#\nCONFIG_PAGE_TABLE_CHECK=y\n' >"$f/config"
	{
		head -c 4096 /dev/urandom
		printf IKCFG_ST
		gzip -9c "$f/config"
		printf IKCFG_ED
		head -c 4096 /dev/urandom
	} >"$f/vmlinux"
	# shellcheck source=guest/lib/ikconfig.sh
	(source "$ROOT/guest/lib/ikconfig.sh" && ikconfig_extract "$f/vmlinux" "$f/out") &&
		cmp -s "$f/out" "$f/config" || why="plain image: $(head -c 200 "$f/out" 2>&1)"
	for z in gzip xz zstd; do
		command -v "$z" >/dev/null || continue
		{
			head -c 17000 /dev/zero
			$z -c "$f/vmlinux"
			head -c 512 /dev/urandom
		} >"$f/bzImage.$z"
		(source "$ROOT/guest/lib/ikconfig.sh" && ikconfig_extract "$f/bzImage.$z" "$f/out.$z") &&
			cmp -s "$f/out.$z" "$f/config" || why+=" $z payload: not found;"
	done
	head -c 65536 /dev/urandom >"$f/none"
	(source "$ROOT/guest/lib/ikconfig.sh" && ikconfig_extract "$f/none" "$f/out.none") &&
		why+=" found a config in random bytes;"
	if [ -n "$why" ]; then
		fail "$d" "$why"
	else
		pass "$d"
	fi
}

# page_table_check=on without a config next to the image: from the embedded
# config of an arm64 Image mutate/mutate built here, when there is one, and for a
# Debian vmlinuz (no IKCONFIG) given anyway, the guest finding it not built.
t_ptc() {
	local which=$1 img=$2 d w
	shift 2
	d="page_table_check without a config next to the image: $which"
	ready "$d" "$why_no_qemu" "$img" || return
	mkdir -p "$tmp/lone-$which"
	cp "$img" "$tmp/lone-$which/image"
	vm "$@" --kernel "$tmp/lone-$which/image" --accel tcg --timeout 120 --guest-cmd 'cat /proc/cmdline'
	w=$(workdir)
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif ! grep -q 'page_table_check=on' "$tmp/out"; then
		fail "$d" "cmdline: $(cat "$tmp/out")"
	elif [ "$which" = embedded ] && { ! grep -q '^vmtest: page_table_check: CONFIG_PAGE_TABLE_CHECK=y in the config embedded in ' "$tmp/err" ||
		! grep -q '^page_table_check=on$' "$w/facts"; }; then
		fail "$d" "not from the embedded config: $(grep page_table_check "$tmp/err" "$w/facts" | tr '\n' ' ')"
	elif [ "$which" = none ] && { ! grep -q '^vmtest: page_table_check: no config next to the image and none embedded' "$tmp/err" ||
		! grep -q '^page_table_check=not-built$' "$w/facts" || ! grep -q '^page_table_check_from=/proc/kallsyms$' "$w/facts"; }; then
		fail "$d" "the guest did not tell: $(grep page_table_check "$tmp/err" "$w/facts" | tr '\n' ' ')"
	else
		pass "$d (${secs}s)"
	fi
}

# --no-page-table-check: no page_table_check=on, whatever the config says
# (the case where the checker's BUG would end the run before ptecheck's
# checks judge: mutate/mutate's retry).
t_ptc_off() {
	local img=$1 d="--no-page-table-check boots without page_table_check=on" w
	shift
	ready "$d" "$why_no_qemu" "$img" || return
	vm "$@" --kernel "$img" --accel tcg --timeout 120 --no-page-table-check --guest-cmd 'cat /proc/cmdline'
	w=$(workdir)
	if [ "$rc" -ne 0 ]; then
		fail "$d" "exit $rc"
	elif grep -q 'page_table_check=on' "$tmp/out"; then
		fail "$d" "cmdline: $(cat "$tmp/out")"
	elif ! grep -q '^vmtest: page_table_check: off (--no-page-table-check)$' "$tmp/err"; then
		fail "$d" "vmtest did not say so: $(grep page_table_check "$tmp/err" | tr '\n' ' ')"
	elif grep -q '^page_table_check=on$' "$w/facts"; then
		fail "$d" "the guest's facts say on"
	else
		pass "$d (${secs}s)"
	fi
}

# (4) a missing image: exit 8 before anything starts.
t_missing_kernel() {
	local d="a missing --kernel file gives exit 8 and a message, no QEMU"
	if [ -n "$why_no_qemu" ]; then
		skip "$d" "$why_no_qemu"
		return
	fi
	vm --kernel "$tmp/no-such-bzImage" --guest-cmd true
	if [ "$rc" -ne 8 ]; then
		fail "$d" "exit $rc, not 8"
	elif ! grep -q "^vmtest: kernel image '.*no-such-bzImage' not found" "$tmp/err"; then
		fail "$d" "message: $(head -n1 "$tmp/err")"
	elif grep -q '^vmtest: qemu:' "$tmp/err" || [ -n "$(workdir)" ]; then
		fail "$d" "got as far as a work dir or QEMU"
	else
		pass "$d"
	fi
}

# (5) an unknown package spec: vmtest's usage exit (7), or its setup exit
# (8) when kernel-fetch cannot read the package lists; never a guest's.
t_unknown_package() {
	local d="--package 9.99 gives a clear error and exit 7 (8 offline)"
	if [ -n "$why_no_qemu" ]; then
		skip "$d" "$why_no_qemu"
		return
	fi
	vm --arch x86_64 --package 9.99 --guest-cmd true
	if [ "$rc" -ne 7 ] && [ "$rc" -ne 8 ]; then
		fail "$d" "exit $rc"
	elif ! grep -q "^vmtest: .*'9.99'" "$tmp/err"; then
		fail "$d" "no vmtest message naming 9.99"
	elif grep -q '^vmtest: qemu:' "$tmp/err"; then
		fail "$d" "QEMU was started"
	else
		pass "$d (exit $rc)"
	fi
}

# Usage errors: exit 7, no boot.
t_usage() {
	local d="usage errors exit 7: $*"
	vm "$@"
	if [ "$rc" -ne 7 ]; then
		fail "$d" "exit $rc, not 7"
	elif ! grep -q '^vmtest: ' "$tmp/err"; then
		fail "$d" "no vmtest: message"
	else
		pass "$d"
	fi
}

# vmtest failing where it did not expect to (here: no work dir) is its
# own failure, exit 8, never a guest's status 1.
t_own_failure() {
	local d="an unexpected failure of vmtest itself exits 8, naming the command"
	[ -z "$why_no_kernel" ] || {
		skip "$d" "$why_no_kernel"
		return
	}
	TMPDIR=$tmp/no-such-dir "$VMTEST" "${K[@]}" --guest-cmd true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 8 ]; then
		fail "$d" "exit $rc, not 8"
	elif ! grep -q '^vmtest: stopped by an unexpected failure (exit [0-9]* at line [0-9]*: work=.*mktemp' "$tmp/err"; then
		fail "$d" "no message naming the failed command"
	else
		pass "$d"
	fi
}

t_help() {
	local d="--help exits 0 and documents the exit codes"
	vm --help
	if [ "$rc" -eq 0 ] && grep -q '6 timeout, 7 vmtest usage, 8 setup failed' "$tmp/out" &&
		grep -q -- '--guest-cmd' "$tmp/out"; then
		pass "$d"
	else
		fail "$d" "exit $rc"
	fi
}

# The longest boots first: two run at a time, in the table's order
# (t_features loads the tracing object once per command under TCG).
cases=(
	"t_features"
	"t_resume"
	"t_help"
	"t_usage|--bogus"
	"t_usage|--arch|sparc"
	"t_usage|--format|json|--|features"
	"t_usage|--timeout|0"
	"t_usage|--scratch-fs|btrfs"
	"t_usage|--scratch-fs|xfs|--scratch-disk|64"
	"t_usage|--scratch-disk|-1"
	"t_missing_kernel"
	"t_unknown_package"
	"t_own_failure"
	"t_status"
	"t_panic"
	"t_crash_between"
	"t_numa"
	"t_no_init"
	"t_hang"
	"t_hang_run"
	"t_boot_stall"
	"t_modules"
	"t_scratch_zero"
	"t_ikconfig"
	"t_ptc|embedded|${ptc_img:-/nonexistent}|--arch|arm64|--busybox|/var/cache/ptecheck/busybox/arm64/busybox"
	"t_ptc|none|${kdir:-/nonexistent}/vmlinuz|--arch|x86_64|--busybox|${bb:-}"
	"t_ptc_off|${ptc_img:-/nonexistent}|--arch|arm64|--busybox|/var/cache/ptecheck/busybox/arm64/busybox"
	"t_scratch|virtio-blk|ext4|--scratch-disk|64"
	"t_scratch|loop|ext4|--scratch-disk|64|--without-module|virtio_blk"
	"t_scratch|virtio-blk|xfs|--scratch-fs|xfs|--scratch-disk|320"
	"t_scratch|loop|xfs|--scratch-fs|xfs|--scratch-disk|320|--without-module|virtio-blk"
	"t_scratch|none|ext4|--scratch-disk|64|--without-module|virtio_blk|--without-module|loop"
)

# case N WORDS: the case WORDS ('|' between the words), its TAP in
# $tmp/N.tap, with a $tmp of its own (vm's out and err, the work dirs).
case_run() {
	tmp=$tmp/$1
	mkdir -p "$tmp"
	IFS='|' read -r -a words <<<"$2"
	"${words[@]}" >"$tmp.tap" 2>&1
}

echo "TAP version 13"
echo "1..${#cases[@]}"
# Two boots at a time (lib/pool.sh); the TAP in the table's order.
i=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	pool_go case_run "$i" "$c"
done
pool_drain
for i in $(seq 1 "${#cases[@]}"); do
	tap_replay "$tmp/$i.tap"
done

echo "# pass $nr_pass fail $nr_fail skip $nr_skip"
if [ "$nr_fail" -gt 0 ]; then
	exit 1
fi
if [ "$nr_pass" -eq 0 ]; then
	exit 4
fi
exit 0
