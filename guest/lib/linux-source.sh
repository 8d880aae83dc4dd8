# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel source mutate/mutate builds and soak/soak builds the mm
# selftests from: Debian's linux-source package, fetched
# with apt-get download through guest/kernel-fetch's private apt
# configurations (guest/lib/apt-suites.sh: the archive URI comes from the
# system's apt sources) into $CACHE/source/, unpacked once beside the .deb
# and never written again; or any tree given with --tree.  Sourced by
# mutate/mutate and soak/soak: reads their globals (CACHE, SRC, PROG,
# EXIT_SETUP), uses note and die.  TREE and TREE_VERSION are its results.
# shellcheck disable=SC2154,SC2034

SOURCE_PACKAGE=${PTECHECK_SOURCE_PACKAGE:-linux-source-7.2}
# Where the package may be, newest first; the first suite that has it wins.
SOURCE_SUITES=(sid trixie-backports trixie bookworm-backports)

# What apt-suites.sh reads (kernel-fetch's globals): both architectures are
# in every suite's lists, as kernel-fetch keeps them, so the two share them.
APT_ARCHES=(amd64 arm64)
LIST_MAX_AGE=3600
REFRESH=0
# shellcheck source-path=SCRIPTDIR/../..
# shellcheck source=guest/lib/apt-suites.sh
source "$SRC/guest/lib/apt-suites.sh"

source_dir() { echo "$CACHE/source/$SOURCE_PACKAGE"; }

# The cached .deb of SOURCE_PACKAGE (the newest when several), or nothing.
source_deb() {
	local d
	d=$(find "$CACHE/source" -maxdepth 1 -name "${SOURCE_PACKAGE}_*_all.deb" 2>/dev/null | sort -V | tail -n1)
	[[ -n $d ]] && echo "$d"
	return 0
}

# source_download: apt-get download of the newest SOURCE_PACKAGE of the
# first suite that carries it, into $CACHE/source/.  Network needed.
source_download() {
	local suite ver tmp deb
	for suite in "${SOURCE_SUITES[@]}"; do
		suite_ready "$suite" || continue
		ver=$(apt-cache "${PRIVATE_APT_OPTS[@]}" show --no-all-versions "$SOURCE_PACKAGE" 2>/dev/null |
			sed -n 's/^Version: //p' | head -n1)
		[[ -n $ver ]] && break
	done
	[[ -n $ver ]] || die "$EXIT_SETUP" "no suite of ${SOURCE_SUITES[*]} carries $SOURCE_PACKAGE (or no package lists: offline?); pass --tree DIR"
	note "downloading $SOURCE_PACKAGE $ver from $suite (about 160 MB)"
	tmp=$(mktemp -d "$CACHE/source/.dl.XXXXXX")
	chmod 755 "$tmp"
	mkdir "$tmp/debs"
	if ! download_debs "$tmp/debs" "$suite" "$SOURCE_PACKAGE=$ver"; then
		rm -rf "$tmp"
		die "$EXIT_SETUP" "apt-get download $SOURCE_PACKAGE=$ver failed (offline?)"
	fi
	deb=$(find "$tmp/debs" -name '*.deb' | head -n1)
	[[ -n $deb ]] || die "$EXIT_SETUP" "apt-get download $SOURCE_PACKAGE left no .deb"
	mv "$deb" "$CACHE/source/" || die "$EXIT_SETUP" "cannot move $deb into $CACHE/source"
	rm -rf "$tmp"
}

# source_unpack DEB: the tarball inside the package, unpacked into a
# temporary directory renamed into place once complete.
source_unpack() {
	local deb=$1 tmp tarball
	tarball=usr/src/$SOURCE_PACKAGE.tar.xz
	note "unpacking $(basename "$deb") (once; about a minute)"
	tmp=$(mktemp -d "$CACHE/source/.unpack.XXXXXX")
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$tarball" | tar -xJ -C "$tmp"; then
		rm -rf "$tmp"
		die "$EXIT_SETUP" "cannot unpack $tarball from $deb"
	fi
	[[ -f $tmp/$SOURCE_PACKAGE/Makefile ]] || die "$EXIT_SETUP" "$deb: no $SOURCE_PACKAGE/Makefile in $tarball"
	rm -rf "$(source_dir)"
	mv -T "$tmp/$SOURCE_PACKAGE" "$(source_dir)" || die "$EXIT_SETUP" "cannot move the tree into $(source_dir)"
	rm -rf "$tmp"
	dpkg-deb -f "$deb" Version >"$(source_dir).unpacked"
}

# source_ready: sets TREE and TREE_VERSION for the Debian source, fetching
# and unpacking what the cache lacks (under $CACHE/source/.lock).  A tree
# unpacked by hand beside its .deb is taken as it is.
source_ready() {
	local fd deb ver
	if ! mkdir -p "$CACHE/source" 2>/dev/null || [[ ! -w $CACHE/source ]]; then
		die "$EXIT_SETUP" "cache $CACHE/source is not writable (set PTECHECK_CACHE)"
	fi
	exec {fd}>"$CACHE/source/.lock"
	flock "$fd"
	deb=$(source_deb)
	if [[ -z $deb && -f $(source_dir).unpacked && -f $(source_dir)/Makefile ]]; then
		# Unpacked by an earlier run whose .deb was removed since: as it is.
		ver=$(cat "$(source_dir).unpacked")
	elif [[ -z $deb ]]; then
		source_download
		deb=$(source_deb)
	fi
	[[ -n ${ver:-} ]] || ver=$(dpkg-deb -f "$deb" Version) || die "$EXIT_SETUP" "$deb is not a Debian package"
	if [[ -n $deb && $(cat "$(source_dir).unpacked" 2>/dev/null) != "$ver" ]]; then
		# Unpacked before this script (or by an older run): the same version?
		if [[ -f $(source_dir)/Makefile && $(make -s -C "$(source_dir)" kernelversion 2>/dev/null) == "${ver%%-*}" ]]; then
			echo "$ver" >"$(source_dir).unpacked"
		else
			source_unpack "$deb"
		fi
	fi
	exec {fd}>&-
	TREE=$(source_dir)
	TREE_VERSION=$SOURCE_PACKAGE-$ver
}

# tree_ready DIR: sets TREE and TREE_VERSION for a tree given with --tree:
# its version is its kernelversion and a hash of every file's name, size
# and modification time, so an edit of the tree means other kernels.
tree_ready() {
	local dir=$1 kv sum
	[[ -f $dir/Makefile && -d $dir/mm && -d $dir/arch ]] || die "$EXIT_SETUP" "--tree $dir: not a kernel source tree"
	TREE=$(realpath "$dir")
	kv=$(make -s -C "$TREE" kernelversion 2>/dev/null) || die "$EXIT_SETUP" "--tree $dir: make kernelversion failed"
	sum=$(cd "$TREE" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum)
	TREE_VERSION=tree-$kv-${sum:0:12}
}
