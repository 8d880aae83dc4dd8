# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/kernel-fetch's kernel cache, $CACHE/kernels/<arch>/<uname-r>/:
# what is in it (a directory counts once complete), what a symbolic SPEC
# resolved to last time, and filling it: download, extract, check the
# image, rename into place.  Sourced by guest/kernel-fetch: reads its
# globals (CACHE, ARCH, FLAVOR, R_*, TMP_DIRS), uses its note and die, the
# SPECs (guest/lib/kernel-spec.sh) and downloads (guest/lib/apt-suites.sh).
# shellcheck disable=SC2154

kdir() { echo "$CACHE/kernels/$ARCH/$1"; }

# A kernel directory is valid once renamed into place; release and vmlinuz
# are checked too so a hand-made or damaged directory is not trusted.
kernel_cached() {
	local d
	d=$(kdir "$1")
	[[ -s $d/vmlinuz && -s $d/release && -d $d/modules ]]
}

spec_alias_file() { echo "$CACHE/kernels/$ARCH/.spec/$FLAVOR/$1"; }

# cached_for SPEC: prints the release SPEC denotes when that kernel is
# extracted already, using only the cache (never the network).
cached_for() {
	local spec=$1 kind rel f
	kind=$(spec_kind "$spec")
	case $kind in
	release) rel=$spec ;;
	package)
		rel=${spec#linux-image-}
		rel=${rel%-unsigned}
		if [[ ! $rel =~ ^[0-9] ]]; then
			f=$(spec_alias_file "$spec")
			rel=$(cat "$f" 2>/dev/null) || return 1
		fi
		;;
	series)
		f=$(spec_alias_file "$spec")
		rel=$(cat "$f" 2>/dev/null) || return 1
		;;
	esac
	kernel_cached "$rel" || return 1
	echo "$rel"
}

# remember_spec SPEC RELEASE: records what a symbolic SPEC resolved to, so
# later runs reuse that kernel without asking the network.
remember_spec() {
	local f
	f=$(spec_alias_file "$1")
	# Best effort: a read-only cache still serves what it has.
	{ mkdir -p "$(dirname "$f")" && echo "$2" >"$f.new.$$" && mv -f "$f.new.$$" "$f"; } 2>/dev/null ||
		rm -f "$f.new.$$" 2>/dev/null || true
}

# remember_symbolic SPEC RELEASE: remember_spec for the SPECs that do not
# name their release (series and metapackages).
remember_symbolic() {
	case $(spec_kind "$1") in
	series) remember_spec "$1" "$2" ;;
	package) [[ $1 =~ ^linux-image-[0-9] ]] || remember_spec "$1" "$2" ;;
	esac
	return 0
}

# Reads the 4 bytes at OFFSET of FILE as text (magic numbers).
magic_at() { dd if="$2" bs=1 skip="$1" count=4 status=none 2>/dev/null | LC_ALL=C tr -c '[:print:]' '.'; }

# install_image SRC DEST: the QEMU -kernel image; checks it is one, and
# gives arm64 a plain Image (decompressing a gzip one).
install_image() {
	local src=$1 dst=$2
	case $ARCH in
	amd64)
		[[ $(magic_at 514 "$src") == HdrS ]] || die 3 "$src is not a bzImage (no HdrS at 0x202)"
		mv "$src" "$dst"
		;;
	arm64)
		if [[ $(od -An -tx1 -N2 "$src" | tr -d ' ') == 1f8b ]]; then
			note "vmlinuz is gzip-compressed; storing the plain Image"
			gzip -dc <"$src" >"$dst" || die 3 "cannot decompress $src"
			rm -f "$src"
		else
			mv "$src" "$dst"
		fi
		[[ $(magic_at 56 "$dst") == ARMd ]] || die 3 "$dst is not an arm64 Image (no ARM\\x64 magic at 0x38)"
		;;
	esac
}

# extract_kernel TMP: assembles TMP/out from the .debs in TMP/debs: the
# 7.x split packages keep vmlinuz, config and System.map in
# usr/lib/modules/<rel>/, older ones in /boot and (usr/)lib/modules/<rel>.
extract_kernel() {
	local tmp=$1 rel=$R_RELEASE root=$1/root out=$1/out deb mod f
	mkdir -p "$root" "$out"
	for deb in "$tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root" || die 3 "dpkg-deb -x $deb failed"
	done
	mod=
	for f in "$root/usr/lib/modules/$rel" "$root/lib/modules/$rel"; do
		if [[ -d $f ]]; then
			mod=$f
			break
		fi
	done
	if [[ -n $mod ]]; then mv "$mod" "$out/modules"; else mkdir "$out/modules"; fi
	for f in "$out/modules/vmlinuz" "$root/boot/vmlinuz-$rel" "$out/modules/Image" "$root/boot/Image-$rel"; do
		if [[ -f $f ]]; then
			install_image "$f" "$out/vmlinuz"
			break
		fi
	done
	[[ -s $out/vmlinuz ]] || die 3 "no kernel image in the packages of $rel"
	for f in "$out/modules/config" "$root/boot/config-$rel"; do
		if [[ -f $f ]]; then
			mv "$f" "$out/config"
			break
		fi
	done
	for f in "$out/modules/System.map" "$root/boot/System.map-$rel"; do
		[[ -f $f ]] || continue
		# Debian ships a one-line stub pointing at the -dbg package; a stub
		# would mislead symbol lookups, so it is left out.
		if [[ $(wc -l <"$f") -le 1 ]] && grep -q 'real System.map' "$f"; then
			SYSTEM_MAP_NOTE="System.map is a stub: $(sed 's/^[^ ]* [^ ]* //' "$f")"
			note "$SYSTEM_MAP_NOTE; not stored"
			rm -f "$f"
		else
			mv "$f" "$out/System.map"
		fi
		break
	done
	[[ -n $(find "$out/modules" -name '*.ko*' -print -quit) ]] ||
		note "no modules in the packages of $rel"
}

# fetch_kernel: downloads and extracts R_RELEASE into the cache, under a
# per-kernel lock, building it in a temporary directory renamed into place
# only when complete.
fetch_kernel() {
	local rel=$R_RELEASE dest kroot fd tmp name ver deb
	local -a pins=() missing=()
	dest=$(kdir "$rel")
	kroot=$(dirname "$dest")
	mkdir -p "$kroot" || die 3 "cannot create $kroot"
	exec {fd}>"$kroot/.lock-$rel"
	if ! flock -n "$fd"; then
		note "waiting for another kernel-fetch of $rel"
		flock "$fd"
	fi
	if kernel_cached "$rel"; then
		note "$rel was fetched meanwhile by another run"
		exec {fd}>&-
		return 0
	fi
	# Leftovers of an interrupted run (we hold the lock, so none is live).
	rm -rf "$kroot/.tmp-$rel".* "$dest"
	tmp=$(mktemp -d "$kroot/.tmp-$rel.XXXXXX")
	TMP_DIRS+=("$tmp")
	chmod 755 "$tmp"
	mkdir -p "$tmp/debs"
	while IFS=$'\t' read -r name ver; do
		if [[ -z $ver ]]; then
			missing+=("$name")
		else
			pins+=("$name:$ARCH=$ver")
		fi
	done < <(parts_of "$R_PKG" "$R_VERSION" "$R_SUITE")
	((${#missing[@]} == 0)) ||
		die 3 "$R_SUITE no longer carries ${missing[*]}, which $R_PKG needs; pick another release (kernel-fetch list)"
	note "downloading $rel from $R_SUITE: ${pins[*]}"
	download_debs "$tmp/debs" "$R_SUITE" "${pins[@]}" ||
		die 3 "apt-get download failed for $rel (offline?)"
	SYSTEM_MAP_NOTE=
	note "extracting $rel"
	extract_kernel "$tmp"
	echo "$rel" >"$tmp/out/release"
	{
		echo "# kernel-fetch: the Debian packages $rel was extracted from"
		echo "release $rel"
		echo "suite $R_SUITE"
		echo "arch $ARCH"
		echo "flavor $R_FLAVOR"
		echo "fetched $(date -u +%FT%TZ)"
		for deb in "$tmp"/debs/*.deb; do
			echo "package $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)"
		done
		[[ -z $SYSTEM_MAP_NOTE ]] || echo "note $SYSTEM_MAP_NOTE"
	} >"$tmp/out/packages.txt"
	chmod 755 "$tmp/out"
	mv -T "$tmp/out" "$dest" || die 3 "cannot move the kernel into $dest"
	rm -rf "$tmp"
	exec {fd}>&-
}
