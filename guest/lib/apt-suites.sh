# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/kernel-fetch's package lists: one private apt configuration per
# Debian suite under $CACHE/apt/<suite>/ (scripts/lib/private-apt.sh), its
# lists kept at most LIST_MAX_AGE old, an index of the packages that
# matter (index.tsv), and downloads with that configuration.  Sourced by
# guest/kernel-fetch: reads its globals (CACHE, REFRESH, APT_ARCHES,
# LIST_MAX_AGE, PROG), uses its note and die.
# shellcheck disable=SC2154

# shellcheck source-path=SCRIPTDIR/../..
# shellcheck source=scripts/lib/private-apt.sh
source "$SRC/scripts/lib/private-apt.sh"

declare -A UPDATED=() # suites whose lists this run already brought up to date

# Archive URIs stay out of messages and logs (they name the mirror host).
hide_uris() { sed -E 's#[a-z][a-z0-9+.-]*://[^/[:space:]]*#<archive>#g'; }

# Fails clearly (exit 3) when the cache cannot be written, before apt or
# flock trip over it.
need_writable_cache() {
	if ! mkdir -p "$CACHE" 2>/dev/null || [[ ! -w $CACHE ]]; then
		die 3 "cache $CACHE is not writable (set PTECHECK_CACHE or --cache DIR)"
	fi
}

# Runs private_apt_init for SUITE under the suite's lock; the helper
# rewrites sources.list through a fixed temporary name, so two runs must
# not do it at once.
suite_init() {
	local suite=$1 dir=$CACHE/apt/$1
	mkdir -p "$dir" || die 3 "cannot create $dir"
	private_apt_init "$dir" "$suite" "${APT_ARCHES[@]}" >&2 ||
		die 3 "cannot set up a private apt configuration for $suite"
}

# Builds SUITE's index.tsv (package, arch, version, depended-on names) of
# the packages this script cares about, straight from the cached Packages
# files: one pass over the lists, no apt cache to go stale or to share.
suite_index() {
	local suite=$1 dir=$CACHE/apt/$1 f n=0 files
	# shellcheck disable=SC2016 # $(FILENAME) is apt's placeholder
	files=$(apt-get "${PRIVATE_APT_OPTS[@]}" indextargets --format '$(FILENAME)' 'Created-By: Packages' 2>/dev/null) || true
	: >"$dir/index.tsv.new"
	while read -r f; do
		[[ -e $f ]] || continue
		n=$((n + 1))
		/usr/lib/apt/apt-helper cat-file "$f" | awk -v OFS='\t' '
			function flush() {
				if (p ~ /^linux-(image|binary|base|modules)-/ && p !~ /-dbg$/ || p == "busybox-static")
					print p, a, v, d
				p = a = v = d = ""
			}
			/^Package: / { p = $2; next }
			/^Architecture: / { a = $2; next }
			/^Version: / { v = $2; next }
			/^Depends: / {
				s = substr($0, 10)
				gsub(/\([^)]*\)/, "", s); gsub(/:any/, "", s); gsub(/[|,]/, " ", s)
				gsub(/[[:space:]]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
				d = s; next
			}
			/^$/ { flush() }
			END { flush() }' >>"$dir/index.tsv.new" || {
			rm -f "$dir/index.tsv.new"
			return 1
		}
	done <<<"$files"
	if ((n == 0)); then
		rm -f "$dir/index.tsv.new"
		return 1
	fi
	mv -f "$dir/index.tsv.new" "$dir/index.tsv"
}

# suite_ready SUITE [offline]: makes sure SUITE's index exists and, unless
# offline, that its lists are at most LIST_MAX_AGE old (or refreshed this
# run with --refresh).  Fails over to cached lists when the update fails.
suite_ready() {
	local suite=$1 offline=${2:-} dir=$CACHE/apt/$1 fd age now
	[[ -n ${UPDATED[$suite]:-} ]] && return 0
	if [[ -n $offline ]]; then
		[[ -s $dir/index.tsv ]] && return 0
		return 1
	fi
	need_writable_cache
	mkdir -p "$dir" || die 3 "cannot create $dir"
	exec {fd}>"$dir/.lock"
	flock "$fd"
	suite_init "$suite"
	now=$(date +%s)
	age=$((now - $(stat -c %Y "$dir/updated" 2>/dev/null || echo 0)))
	if ((REFRESH)) || ((age > LIST_MAX_AGE)) || [[ ! -s $dir/index.tsv ]]; then
		note "updating package lists for $suite"
		if apt-get "${PRIVATE_APT_OPTS[@]}" --error-on=any update 2>&1 | hide_uris >"$dir/update.log"; then
			touch "$dir/updated"
			suite_index "$suite" || {
				exec {fd}>&-
				die 3 "no package lists for $suite after an update (see $dir/update.log)"
			}
		else
			grep -E '^(E|W|Err):' "$dir/update.log" | head -n 3 | sed "s/^/$PROG:   /" >&2 || true
			if suite_index "$suite" || [[ -s $dir/index.tsv ]]; then
				note "apt-get update for $suite failed (offline?); using the lists cached on $(date -r "$dir/index.tsv" '+%F %R')"
			else
				exec {fd}>&-
				die 3 "apt-get update for $suite failed (offline?) and no lists are cached (log: $dir/update.log)"
			fi
		fi
	fi
	exec {fd}>&-
	UPDATED[$suite]=1
}

# Prints index rows of SUITE (tab-separated: package arch version depends).
suite_rows() { cat "$CACHE/apt/$1/index.tsv"; }

# download_debs DIR SUITE NAME=VERSION...: apt-get download into DIR with
# SUITE's private configuration (architecture-qualified, version-pinned).
download_debs() {
	local dir=$1 suite=$2 fd
	shift 2
	# apt drops to _apt for downloading; let it write there when root.
	if [[ $(id -u) -eq 0 ]] && getent passwd _apt >/dev/null; then
		chown _apt "$dir" 2>/dev/null || true
	fi
	# Exclusive while the private sources.list is rewritten, then shared so
	# an update of the same suite waits for the download.
	exec {fd}>>"$CACHE/apt/$suite/.lock"
	flock "$fd"
	suite_init "$suite"
	flock -s "$fd"
	if ! (cd "$dir" && apt-get "${PRIVATE_APT_OPTS[@]}" download "$@") 2>&1 | hide_uris >"$dir/../download.log"; then
		exec {fd}<&-
		sed "s/^/$PROG:   /" "$dir/../download.log" | tail -n 5 >&2
		return 1
	fi
	exec {fd}<&-
}
