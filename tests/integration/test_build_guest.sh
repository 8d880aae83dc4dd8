#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/build-guest: its usage errors, and static builds for both guest
# architectures (x86_64 natively, arm64 cross) into build-guest-ARCH (the
# trees the guest tests use: up to date, seconds), checked with `file`;
# the arm64 ptecheck runs its --help under qemu-aarch64 user emulation
# when that is installed (scripts/install-deps --guest); and a tree of the
# other arch or of another checkout, copied to a temporary directory, is
# emptied and configured afresh (each stopped once it starts building).
#
# Usage: bash test_build_guest.sh BUILD_DIR   (the native build; unused)
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
BG=$ROOT/guest/build-guest

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_build_guest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
nr=0
nr_pass=0
nr_fail=0
nr_skip=0

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
	timeout 600 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

last_err() {
	grep -v '^\[' "$tmp/err" | tail -n 3 | tr '\n' ' '
}

t_help() {
	run bash "$BG" --help
	if [ "$rc" -eq 0 ] && grep -q '^usage: build-guest' "$tmp/out"; then
		pass "build-guest --help"
	else
		fail "build-guest --help" "exit $rc: $(head -n 1 "$tmp/out")"
	fi
}

# t_usage DESC ARGS...: exit 2 and an error prefixed build-guest:.
t_usage() {
	local desc=$1
	shift
	run bash "$BG" --no-deps "$@"
	if [ "$rc" -eq 2 ] && grep -q '^build-guest: ' "$tmp/err"; then
		pass "build-guest $desc exits 2"
	else
		fail "build-guest $desc exits 2" "exit $rc: $(head -n 1 "$tmp/err")"
	fi
}

# Why ARCH cannot be built here, or nothing.
cannot_build() {
	command -v file >/dev/null || {
		echo "'file' not installed"
		return
	}
	[ "$1" = arm64 ] || return 0
	[ "$(uname -m)" = aarch64 ] && return 0
	# As root build-guest installs the cross packages itself.
	if [ "$(id -u)" -ne 0 ] && ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		echo "no aarch64-linux-gnu-gcc and not root (scripts/install-deps --cross)"
	fi
}

declare -A built

# t_build ARCH: build-guest ARCH builds into build-guest-ARCH and prints
# that directory last.  The tree the guest tests use (a fresh clone builds
# it once, here or there): t_switch and t_other_source make trees afresh.
t_build() {
	local arch=$1 dir=$ROOT/build-guest-$1 why
	why=$(cannot_build "$arch")
	if [ -n "$why" ]; then
		skip "build-guest $arch" "$why"
		return
	fi
	run bash "$BG" "$arch"
	if [ "$rc" -ne 0 ]; then
		fail "build-guest $arch" "exit $rc: $(last_err)"
	elif [ "$(tail -n 1 "$tmp/out")" != "$dir" ]; then
		fail "build-guest $arch" "last line '$(tail -n 1 "$tmp/out")', want '$dir'"
	else
		built[$arch]=$dir
		pass "build-guest $arch"
	fi
}

# t_file ARCH MACHINE BIN: `file` says BIN is a static MACHINE ELF.
t_file() {
	local arch=$1 machine=$2 bin=$3 desc
	if [ -z "${built[$arch]:-}" ]; then
		skip "$arch $bin is a static $machine ELF" "not built"
		return
	fi
	desc=$(file -b "${built[$arch]}/$bin" 2>&1)
	case $desc in
	ELF*"$machine"*"statically linked"*)
		pass "$arch $bin is a static $machine ELF"
		;;
	*) fail "$arch $bin is a static $machine ELF" "file: $desc" ;;
	esac
}

# t_run_help ARCH EMULATOR: BIN --help exits 0 with a Usage line.
t_run_help() {
	local arch=$1 emu=${2:-} cmd=()
	local desc="$arch ptecheck --help runs${emu:+ under $emu}"
	if [ -z "${built[$arch]:-}" ]; then
		skip "$desc" "not built"
		return
	fi
	if [ -n "$emu" ] && ! command -v "$emu" >/dev/null; then
		skip "$desc" "$emu not installed (qemu-user, scripts/install-deps --guest)"
		return
	fi
	if [ -z "$emu" ] && [ "$(uname -m)" != x86_64 ]; then
		skip "$desc" "host is $(uname -m)"
		return
	fi
	[ -n "$emu" ] && cmd=("$emu")
	run "${cmd[@]}" "${built[$arch]}/ptecheck" --help
	if [ "$rc" -eq 0 ] && grep -q '^Usage: ptecheck' "$tmp/out"; then
		pass "$desc"
	else
		fail "$desc" "exit $rc: $(head -n 1 "$tmp/out") $(head -n 1 "$tmp/err")"
	fi
}

# until_building DIR ARCH: build-guest --dir DIR ARCH until it says it is
# building, then stopped (its process group): what the afresh cases judge
# is done by then (the tree emptied, configured), and the build itself is
# t_build's; two more full builds cost CI over a minute and a half.  Sets
# configured (yes or no) and rc (the stopped build's status).
until_building() {
	local pid _
	configured=no
	setsid bash "$BG" --dir "$1" "$2" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 3000); do
		if grep -q "^build-guest: building $1\$" "$tmp/err"; then
			configured=yes
			break
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -- -"$pid" 2>/dev/null
	wait "$pid"
	rc=$?
}

# t_switch: x86_64's build tree asked for arm64 is emptied first (a
# Makefile tree would keep the objects another arch's flags made: an arm64
# ptecheck carried x86 BPF objects), then configured for arm64.
t_switch() {
	local desc="build-guest arm64 into x86_64's tree starts afresh" dir=$tmp/switch why
	why=$(cannot_build arm64)
	if [ -z "${built[x86_64]:-}" ] || [ -n "$why" ]; then
		skip "$desc" "${why:-x86_64 not built}"
		return
	fi
	cp -a "${built[x86_64]}" "$dir" && touch "$dir/stale-object"
	until_building "$dir" arm64
	if [ "$configured" != yes ]; then
		fail "$desc" "exit $rc before building: $(last_err)"
	elif [ -e "$dir/stale-object" ] || ! grep -q 'another toolchain: starting afresh' "$tmp/err" "$tmp/out"; then
		fail "$desc" "the tree was not emptied first"
	elif ! grep -q '^CMAKE_TOOLCHAIN_FILE:[A-Z]*=.*/aarch64-linux-gnu.cmake$' "$dir/CMakeCache.txt"; then
		fail "$desc" "not configured for arm64: $(grep '^CMAKE_TOOLCHAIN_FILE' "$dir/CMakeCache.txt")"
	else
		pass "$desc"
	fi
}

# t_other_source: a tree configured from another checkout (a worktree that
# shared a cached directory) is emptied first too: cmake refuses a cache of
# another source ("does not match the source ... used to generate cache").
t_other_source() {
	local desc="build-guest into a tree of another checkout starts afresh" dir=$tmp/other why
	why=$(cannot_build x86_64)
	if [ -z "${built[x86_64]:-}" ] || [ -n "$why" ]; then
		skip "$desc" "${why:-x86_64 not built}"
		return
	fi
	cp -a "${built[x86_64]}" "$dir" && touch "$dir/stale-object"
	sed -i 's#^\(CMAKE_HOME_DIRECTORY:[A-Z]*=\).*#\1/nonexistent/other-checkout#' "$dir/CMakeCache.txt"
	until_building "$dir" x86_64
	if [ "$configured" != yes ]; then
		fail "$desc" "exit $rc before building: $(last_err)"
	elif [ -e "$dir/stale-object" ] ||
		! grep -q 'another source tree (/nonexistent/other-checkout): starting afresh' "$tmp/err" "$tmp/out"; then
		fail "$desc" "the tree was not emptied first"
	elif ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$dir/CMakeCache.txt"; then
		fail "$desc" "not configured from this checkout: $(grep '^CMAKE_HOME_DIRECTORY' "$dir/CMakeCache.txt")"
	else
		pass "$desc"
	fi
}

cases=(
	"t_help"
	"t_usage|without ARCH"
	"t_usage|with an unknown ARCH|sparc"
	"t_usage|with two ARCHes|x86_64|arm64"
	"t_usage|with an unknown option|--bogus|x86_64"
	"t_build|x86_64"
	"t_file|x86_64|x86-64|ptecheck"
	"t_file|x86_64|x86-64|workloads/mremap_folios"
	"t_file|x86_64|x86-64|workloads/mremap_pmd"
	"t_run_help|x86_64|"
	"t_build|arm64"
	"t_file|arm64|ARM aarch64|ptecheck"
	"t_file|arm64|ARM aarch64|workloads/mremap_folios"
	"t_file|arm64|ARM aarch64|workloads/mremap_pmd"
	"t_run_help|arm64|qemu-aarch64"
	"t_switch"
	"t_other_source"
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
