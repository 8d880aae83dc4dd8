# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel image's own config (CONFIG_IKCONFIG): the gzip stream the build
# puts between the markers IKCFG_ST and IKCFG_ED (kernel/configs.c).  An
# arm64 Image holds it as is; a bzImage or a compressed vmlinuz holds a
# compressed vmlinux, found as scripts/extract-vmlinux does: try each
# compressor at each offset where its magic appears until a payload with
# the markers comes out.  Sourced by guest/vmtest; needs gzip, and xz,
# zstd, bzip2, lz4 for payloads compressed with them (a missing one is
# skipped).

# ikconfig_plain FILE OUT: the embedded config of an uncompressed image.
ikconfig_plain() {
	local off
	off=$(LC_ALL=C grep -obUa -m1 'IKCFG_ST' "$1" 2>/dev/null | head -n1 | cut -d: -f1)
	[[ -n $off ]] || return 1
	# gzip stops at the stream's end ("trailing garbage ignored": status 2).
	tail -c +$((off + 9)) -- "$1" | gzip -dc >"$2" 2>/dev/null
	grep -q '^# Linux/.* Kernel Configuration\|^CONFIG_' "$2"
}

# ikconfig_extract IMAGE OUT: 0 with the config in OUT, 1 when none is
# found (no CONFIG_IKCONFIG, or a compressor missing here).
ikconfig_extract() {
	local img=$1 out=$2 part magic cmd off
	ikconfig_plain "$img" "$out" && return 0
	part=$(mktemp) || return 1
	# magic (a grep -P byte pattern) and the command that decompresses from it.
	for magic in '\x1f\x8b\x08:gzip -dc' '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dcq' \
		'\x5d\x00\x00:xz -dc --format=lzma' 'BZh:bzip2 -dc' '\x02\x21\x4c\x18:lz4 -dc'; do
		cmd=${magic#*:}
		command -v "${cmd%% *}" >/dev/null || continue
		# The first offsets only: the payload starts near the image's head.
		for off in $(LC_ALL=C grep -obUaP "${magic%%:*}" -- "$img" 2>/dev/null | cut -d: -f1 | head -n 8); do
			# shellcheck disable=SC2086 # cmd is a command and its options
			tail -c +$((off + 1)) -- "$img" | $cmd >"$part" 2>/dev/null
			if ikconfig_plain "$part" "$out"; then
				rm -f "$part"
				return 0
			fi
		done
	done
	rm -f "$part"
	return 1
}
