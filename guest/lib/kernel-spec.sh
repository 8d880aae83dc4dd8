# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/kernel-fetch's SPECs: what 6.1, 7, latest, a uname -r release or a
# package name means in the suites' package lists (R_SUITE, R_PKG,
# R_VERSION, R_RELEASE, R_FLAVOR), and the packages that make up that
# kernel.  Sourced by guest/kernel-fetch: reads its globals (ARCH, FLAVOR,
# CACHE, SUITES_ALL), sets R_*, uses its note and the suites' lists
# (guest/lib/apt-suites.sh).
# shellcheck disable=SC2154,SC2153,SC2034

# flavour_suffix FLAVOR ARCH: what an image package name ends with.
flavour_suffix() {
	if [[ $1 == cloud ]]; then echo "-cloud-$2"; else echo "-$2"; fi
}

# image_rows SUITE ARCH FLAVOR: "version<TAB>package<TAB>release<TAB>parts"
# of the kernel images of one flavour (no rt, 16k, unsigned or dbg
# variants); parts is "complete", or "missing:" and the packages named
# after the release that the image depends on but SUITE no longer carries
# (trixie-backports keeps old signed images whose split-out linux-base-
# and linux-modules- packages are gone).
image_rows() {
	local suite=$1 arch=$2 sfx
	sfx=$(flavour_suffix "$3" "$arch")
	suite_rows "$suite" | awk -F'\t' -v arch="$arch" -v sfx="$sfx" -v OFS='\t' '
		$2 != arch { next }
		{ have[$1] = 1 }
		substr($1, length($1) - length(sfx) + 1) == sfx && $1 ~ /^linux-image-[0-9]/ {
			rel = substr($1, 13)
			ver = substr(rel, 1, length(rel) - length(sfx))
			if (ver ~ /^[0-9]+\.[0-9]+[^-]*(-[0-9]+)?$/) { n++; V[n] = $3; P[n] = $1; R[n] = rel; D[n] = $4 }
		}
		END {
			for (i = 1; i <= n; i++) {
				miss = ""
				m = split(D[i], d, " ")
				for (j = 1; j <= m; j++) {
					x = d[j]
					if (x ~ /^linux-/ && substr(x, length(x) - length(R[i])) == "-" R[i] && !(x in have))
						miss = miss " " x
				}
				print V[i], P[i], R[i], (miss == "" ? "complete" : "missing:" miss)
			}
		}'
}

# suite_flavour SUITE ARCH: the flavour to use in SUITE (FLAVOR, or generic
# when FLAVOR is cloud and SUITE has no cloud kernel for ARCH).
suite_flavour() {
	if [[ $FLAVOR == cloud && -z $(image_rows "$1" "$2" cloud) ]]; then
		note "$1 has no cloud kernel for $2; using the generic flavour there"
		echo generic
	else
		echo "$FLAVOR"
	fi
}

# upstream_of VERSION: Debian version without epoch and revision.
upstream_of() {
	local v=${1#*:}
	echo "${v%%-*}"
}

# series_matches SERIES UPSTREAM: 7 matches 7.x.y, 6.1 matches 6.1.z
# (never 6.12), latest matches everything.
series_matches() {
	[[ $1 == latest || $2 == "$1" || $2 == "$1".* ]]
}

# newest_in SERIES ARCH SUITE...: sets R_* to the newest image of SERIES
# across the suites (by package version); fails if none.
newest_in() {
	local series=$1 arch=$2 suite fl ver pkg rel found=1
	shift 2
	for suite in "$@"; do
		fl=$(suite_flavour "$suite" "$arch")
		while IFS=$'\t' read -r ver pkg rel parts; do
			series_matches "$series" "$(upstream_of "$ver")" || continue
			if [[ $parts != complete ]]; then
				R_INCOMPLETE+=("$rel")
				continue
			fi
			if ((found)) || dpkg --compare-versions "$ver" gt "$R_VERSION"; then
				R_SUITE=$suite R_PKG=$pkg R_VERSION=$ver R_RELEASE=$rel R_FLAVOR=$fl
				found=0
			fi
		done < <(image_rows "$suite" "$arch" "$fl")
	done
	return "$found"
}

# suite_has PKG ARCH SUITE: sets R_* when SUITE carries PKG for ARCH.
suite_has() {
	local row
	row=$(suite_rows "$3" | awk -F'\t' -v p="$1" -v a="$2" '$1 == p && $2 == a { print $3; exit }')
	[[ -n $row ]] || return 1
	R_SUITE=$3 R_PKG=$1 R_VERSION=$row
}

# available_summary ARCH SUITE...: "suite: series..." lines for messages.
available_summary() {
	local arch=$1 suite fl
	shift
	for suite in "$@"; do
		[[ -s $CACHE/apt/$suite/index.tsv ]] || continue
		fl=$(suite_flavour "$suite" "$arch" 2>/dev/null)
		printf '  %-19s %s\n' "$suite:" "$(image_rows "$suite" "$arch" "$fl" |
			awk -F'\t' '$4 == "complete" { v = $1; sub(/^[0-9]+:/, "", v); split(v, a, /[.~+-]/); print a[1] "." a[2] }' |
			sort -uV | paste -sd " ")"
	done
}

# spec_kind SPEC: series | release | package, or fails (usage error).
spec_kind() {
	case $1 in
	latest) echo series ;;
	linux-image-*) echo package ;;
	*)
		if [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
			echo series
		elif [[ $1 =~ ^[0-9]+\.[0-9]+[^[:space:]/]*-(amd64|arm64)(-16k)?$ ]]; then
			echo release
		else
			return 1
		fi
		;;
	esac
}

# arch_of_name NAME: the architecture a release or package name ends in.
arch_of_name() {
	case $1 in
	*-amd64 | *-amd64-unsigned) echo amd64 ;;
	*-arm64 | *-arm64-16k | *-arm64-unsigned | *-arm64-16k-unsigned) echo arm64 ;;
	esac
}

# series_groups SERIES: suite groups to search, one group per line; the
# first group with a match wins, and within a group the newest wins.
series_groups() {
	case $1 in
	6.1) echo bookworm ;;
	6.12) printf '%s\n' bookworm-backports trixie ;;
	7 | latest) echo "trixie-backports sid" ;;
	*) printf '%s\n' "trixie-backports sid" "bookworm-backports trixie" bookworm ;;
	esac
}

# release_suites RELEASE: suites to look in for a release, likeliest first.
release_suites() {
	case $1 in
	6.1.0-*) echo bookworm ;;
	*+deb12*) echo bookworm-backports ;;
	*+deb13*) echo trixie trixie-backports ;;
	*+deb14*) echo sid ;;
	esac
	echo "${SUITES_ALL[*]}"
}

# resolve SPEC [offline]: sets R_SUITE R_PKG R_VERSION R_RELEASE R_FLAVOR
# from the package lists (updated as needed unless offline).  Returns 1
# when SPEC matches nothing (R_SEARCHED: the suites looked at), 3 when the
# lists needed are missing offline.
resolve() {
	local spec=$1 offline=${2:-} kind group suite pkg rel
	local -a searched=()
	R_SUITE='' R_PKG='' R_VERSION='' R_RELEASE='' R_FLAVOR=$FLAVOR
	R_INCOMPLETE=()
	kind=$(spec_kind "$spec")
	case $kind in
	series)
		while read -r group; do
			local -a ok=() want=()
			read -ra want <<<"$group"
			for suite in "${want[@]}"; do
				if suite_ready "$suite" "$offline"; then ok+=("$suite"); fi
			done
			# Offline, a group with a suite never listed cannot say which
			# kernel is the newest, and a later group must not answer.
			if [[ -n $offline ]] && ((${#ok[@]} < ${#want[@]})); then
				R_SEARCHED=${searched[*]}
				return 3
			fi
			searched+=("${ok[@]}")
			((${#ok[@]})) || continue
			newest_in "$spec" "$ARCH" "${ok[@]}" && return 0
		done < <(series_groups "$spec")
		;;
	release | package)
		if [[ $kind == release ]]; then
			pkg=linux-image-$spec rel=$spec
		else
			pkg=$spec rel=${spec#linux-image-}
			rel=${rel%-unsigned}
		fi
		local -A seen=()
		for suite in $(release_suites "$rel"); do
			[[ -n ${seen[$suite]:-} ]] && continue
			seen[$suite]=1
			suite_ready "$suite" "$offline" || continue
			searched+=("$suite")
			if [[ $rel =~ ^[0-9] ]] && suite_has "$pkg" "$ARCH" "$suite"; then
				R_RELEASE=$rel
				[[ $rel == *-cloud-* ]] && R_FLAVOR=cloud || R_FLAVOR=generic
				return 0
			fi
			if [[ ! $rel =~ ^[0-9] ]] && meta_in "$pkg" "$suite"; then
				return 0
			fi
		done
		;;
	esac
	R_SEARCHED=${searched[*]}
	[[ -n $offline && -z $R_SEARCHED ]] && return 3
	return 1
}

# meta_in META SUITE: a metapackage (linux-image-cloud-amd64) names the
# image it depends on; sets R_* to that image in SUITE.
meta_in() {
	local deps d
	deps=$(suite_rows "$2" | awk -F'\t' -v p="$1" -v a="$ARCH" '$1 == p && $2 == a { print $4; exit }')
	for d in $deps; do
		if [[ $d =~ ^linux-image-[0-9] ]] && suite_has "$d" "$ARCH" "$2"; then
			R_RELEASE=${d#linux-image-}
			[[ $R_RELEASE == *-cloud-* ]] && R_FLAVOR=cloud || R_FLAVOR=generic
			return 0
		fi
	done
	return 1
}

# parts_of PKG VERSION SUITE: the packages making up the kernel: the image,
# its dependencies named after the same release (7.x splits it into
# linux-binary-, linux-base- and linux-modules-), and a linux-modules-
# package of the release even if nothing depends on it.  A part the suite
# does not carry comes out with an empty version.
parts_of() {
	local pkg=$1 suite=$3 rel
	rel=${pkg#linux-image-}
	rel=${rel%-unsigned}
	suite_rows "$suite" | awk -F'\t' -v a="$ARCH" -v top="$pkg" -v rel="$rel" -v OFS='\t' '
		$2 == a { ver[$1] = $3; dep[$1] = $4 }
		END {
			want[top] = 1; queue[++n] = top
			for (i = 1; i <= n; i++) {
				m = split(dep[queue[i]], d, " ")
				for (j = 1; j <= m; j++) {
					x = d[j]
					if (x ~ /^linux-/ && substr(x, length(x) - length(rel)) == "-" rel && !(x in want)) {
						want[x] = 1; queue[++n] = x
					}
				}
			}
			x = "linux-modules-" rel
			if ((x in ver) && !(x in want)) queue[++n] = x
			for (i = 1; i <= n; i++) print queue[i], ver[queue[i]]
		}'
}
