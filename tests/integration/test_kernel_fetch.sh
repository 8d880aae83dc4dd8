#!/usr/bin/env bash
# Integration tests of guest/kernel-fetch: a 7.x amd64 kernel comes out
# bootable-looking (bzImage, modules), a cached kernel is served without
# apt-get, bad SPECs exit 2, uncached or half-built kernels exit 3 from
# `path`, two concurrent fetches share one download, and busybox for arm64
# is a static aarch64 ELF.  Uses the shared cache (${PTECHECK_CACHE:-
# /var/cache/ptecheck}, or BUILD_DIR/kernel-cache when that is not
# writable) so a warm run takes seconds.
# TAP output; exit 0 pass, 1 fail, 4 skip (no network and nothing cached).
set -uo pipefail
build=${1:?usage: test_kernel_fetch.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kf=$src/guest/kernel-fetch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# Shows a command's stderr as TAP diagnostics.
diag() { sed 's/^/# /' "$1" | head -n "${2:-20}"; }

echo "TAP version 13"
cache=${PTECHECK_CACHE:-/var/cache/ptecheck}
if ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
	cache=$build/kernel-cache
	mkdir -p "$cache"
fi
export PTECHECK_CACHE=$cache
echo "# cache: $cache"

# --- fetch 7 (amd64) -----------------------------------------------------
start=$(date +%s)
dir=$("$kf" fetch --arch amd64 7 2>"$tmp/fetch.err")
rc=$?
if [[ $rc -eq 3 ]] && grep -q 'offline\|failed' "$tmp/fetch.err"; then
	diag "$tmp/fetch.err"
	echo "1..0 # SKIP no network and no cached 7.x kernel"
	exit 4
fi
check "fetch --arch amd64 7 exits 0 (rc=$rc, $(($(date +%s) - start)) s)" "[[ $rc -eq 0 ]]"
((rc == 0)) || diag "$tmp/fetch.err"
check "fetch prints one absolute directory" "[[ \$(printf '%s\n' \"\$dir\" | wc -l) -eq 1 && \$dir == /* && -d \$dir ]]"
rel=$(cat "$dir/release" 2>/dev/null)
echo "# 7 -> ${rel:-?}"
check "release is a 7.x cloud-amd64 uname -r and names the directory" \
	"[[ \$rel == 7.*-cloud-amd64 && \$(basename \"\$dir\") == \"\$rel\" ]]"
check "vmlinuz is a bzImage (HdrS at 0x202)" \
	"[[ \$(dd if=\"\$dir/vmlinuz\" bs=1 skip=514 count=4 status=none) == HdrS ]]"
check "config present and 64-bit x86" "grep -q '^CONFIG_X86_64=y' \"\$dir/config\""
nko=$(find "$dir/modules" -name '*.ko*' 2>/dev/null | wc -l)
check "modules/ holds kernel modules ($nko)" "[[ $nko -gt 100 ]]"
check "virtio_blk module present" "[[ -n \$(find \"\$dir/modules\" -name 'virtio_blk.ko*' -print -quit) ]]"
check "packages.txt names the suite and a linux-modules package" \
	"grep -q '^suite ' \"\$dir/packages.txt\" && grep -q '^package linux-modules-' \"\$dir/packages.txt\""

# --- cached: no apt at all ---------------------------------------------------
mkdir -p "$tmp/stub"
for t in apt-get apt-cache apt; do
	# shellcheck disable=SC2016 # $0 and $* belong to the stub
	printf '#!/bin/sh\necho "$0 $*" >>%q\nexit 100\n' "$tmp/apt-calls" >"$tmp/stub/$t"
	chmod +x "$tmp/stub/$t"
done
again=$(PATH=$tmp/stub:$PATH "$kf" fetch --arch amd64 7 2>"$tmp/again.err")
rc=$?
check "second fetch with a failing apt-get exits 0 (rc=$rc)" "[[ $rc -eq 0 ]]"
check "second fetch prints the same directory" "[[ '$again' == '$dir' ]]"
check "second fetch never ran apt" "[[ ! -s $tmp/apt-calls ]]"
[[ -s $tmp/apt-calls ]] && diag "$tmp/apt-calls"
byrel=$(PATH=$tmp/stub:$PATH "$kf" fetch "$rel" 2>"$tmp/again.err")
check "fetch by uname -r of a cached kernel needs no apt" "[[ '$byrel' == '$dir' && ! -s $tmp/apt-calls ]]"
pdir=$(PATH=$tmp/stub:$PATH "$kf" path --arch amd64 7 2>/dev/null)
check "path 7 prints the cached directory" "[[ '$pdir' == '$dir' ]]"

# --- errors ------------------------------------------------------------------
"$kf" fetch --arch amd64 99 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "unknown version 99 exits 2 (rc=$rc)" "[[ $rc -eq 2 ]]"
check "... with a message listing what is available" \
	"grep -q '^kernel-fetch: no .* matches' $tmp/err && grep -qE '^ +sid: +[0-9]' $tmp/err"
check "... and nothing on stdout" "[[ ! -s $tmp/out ]]"
diag "$tmp/err" 8
PATH=$tmp/stub:$PATH "$kf" fetch foo >/dev/null 2>"$tmp/err"
rc=$?
check "malformed SPEC exits 2 without apt (rc=$rc)" "[[ $rc -eq 2 && ! -s $tmp/apt-calls ]]"
"$kf" frobnicate >/dev/null 2>&1
rc=$?
check "unknown command exits 2 (rc=$rc)" "[[ $rc -eq 2 ]]"
"$kf" fetch --arch sparc 7 >/dev/null 2>&1
rc=$?
check "unknown arch exits 2 (rc=$rc)" "[[ $rc -eq 2 ]]"
"$kf" fetch --help >"$tmp/help" 2>&1
rc=$?
check "fetch --help exits 0 and documents the exit codes" "[[ $rc -eq 0 ]] && grep -q 'exit status' $tmp/help"

# `path` in a private cache: nothing cached, then a half-built directory.
pc=$tmp/cache
PATH=$tmp/stub:$PATH "$kf" --cache "$pc" path 6.1.0-999-cloud-amd64 >"$tmp/out" 2>/dev/null
rc=$?
check "path of a kernel not in the cache exits 3 (rc=$rc)" "[[ $rc -eq 3 && ! -s $tmp/out ]]"
mkdir -p "$pc/kernels/amd64/6.1.0-999-cloud-amd64/modules" "$pc/kernels/amd64/.tmp-6.1.0-998-cloud-amd64.x/out"
echo 6.1.0-999-cloud-amd64 >"$pc/kernels/amd64/6.1.0-999-cloud-amd64/release"
PATH=$tmp/stub:$PATH "$kf" --cache "$pc" path 6.1.0-999-cloud-amd64 >/dev/null 2>&1
rc=$?
check "a directory without vmlinuz is not taken as cached (rc=$rc)" "[[ $rc -eq 3 ]]"
PATH=$tmp/stub:$PATH "$kf" --cache "$pc" path 6.1.0-998-cloud-amd64 >/dev/null 2>&1
rc=$?
check "an interrupted run's temporary directory is not taken as cached (rc=$rc)" "[[ $rc -eq 3 ]]"
check "path never ran apt" "[[ ! -s $tmp/apt-calls ]]"

# --- two concurrent fetches into a fresh cache share one download -------------
# The package lists are copied from the shared cache so only the kernel
# itself is downloaded (they are refreshed if older than an hour).
cc=$tmp/ccache
mkdir -p "$cc/apt"
for s in trixie-backports sid; do
	[[ -d $cache/apt/$s ]] && cp -a "$cache/apt/$s" "$cc/apt/"
done
start=$(date +%s)
"$kf" --cache "$cc" fetch --arch amd64 "$rel" >"$tmp/c1" 2>"$tmp/c1.err" &
p1=$!
"$kf" --cache "$cc" fetch --arch amd64 "$rel" >"$tmp/c2" 2>"$tmp/c2.err" &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
check "two concurrent fetches both succeed (rc=$r1,$r2, $(($(date +%s) - start)) s)" "[[ $r1 -eq 0 && $r2 -eq 0 ]]"
check "... print the same directory" "[[ \$(cat $tmp/c1) == $cc/kernels/amd64/$rel && \$(cat $tmp/c2) == \$(cat $tmp/c1) ]]"
nd=$(cat "$tmp/c1.err" "$tmp/c2.err" | grep -c '^kernel-fetch: downloading')
check "... and download it once ($nd)" "[[ $nd -eq 1 ]]"
check "... leaving no temporary directory" "[[ -z \$(find $cc/kernels/amd64 -maxdepth 1 -name '.tmp-*') ]]"
check "... and a complete kernel" \
	"cmp -s $cc/kernels/amd64/$rel/vmlinuz $dir/vmlinuz && [[ \$(find $cc/kernels/amd64/$rel/modules -name '*.ko*' | wc -l) -eq $nko ]]"
rm -rf "$cc"

# --- busybox for arm64 -----------------------------------------------------------
bb=$("$kf" busybox --arch arm64 2>"$tmp/bb.err")
rc=$?
check "busybox --arch arm64 exits 0 (rc=$rc)" "[[ $rc -eq 0 && \$bb == /* && -x \$bb ]]"
((rc == 0)) || diag "$tmp/bb.err"
if command -v file >/dev/null; then
	desc=$(file -b "$bb" 2>/dev/null)
	echo "# $desc"
	check "busybox is a static aarch64 ELF" "[[ \$desc == *ELF*aarch64* && \$desc == *statically\ linked* ]]"
else
	# No file(1): ELF magic and e_machine 0xb7 (aarch64), no PT_INTERP.
	check "busybox is an aarch64 ELF" \
		"[[ \$(od -An -tx1 -N4 \"\$bb\" | tr -d ' ') == 7f454c46 && \$(od -An -tx1 -j18 -N1 \"\$bb\" | tr -d ' ') == b7 ]]"
fi

tap_end
