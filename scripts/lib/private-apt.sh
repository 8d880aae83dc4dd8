# shellcheck shell=bash
# A private apt configuration for suites the system does not list
# (bookworm-backports, trixie, sid): its own sources list, package lists
# and cache under a directory of ours, so the system's apt state is never
# touched.  The archive URI is read from the system's own apt sources; no
# host name is written anywhere in the repository.
#
# Usage (after sourcing):
#   private_apt_init DIR "SUITE..." [ARCH...]   -> fills PRIVATE_APT_OPTS
#   apt-get "${PRIVATE_APT_OPTS[@]}" update
#   apt-get "${PRIVATE_APT_OPTS[@]}" download PKG

# Prints the first Debian archive URI of the system's apt sources (deb822
# .sources files first, then one-line sources.list files), or fails.
system_archive_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		# The URIs: line of a stanza whose Suites do not end in -security.
		uri=$(awk '
			/^[[:space:]]*$/ { if (u != "" && !sec) { print u; exit } u = ""; sec = 0; next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i ~ /-security$/) sec = 1 }
			END { if (u != "" && !sec) print u }' "$f" | head -n1)
		if [[ -n $uri ]]; then
			echo "${uri%/}"
			return 0
		fi
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		uri=$(awk '$1 == "deb" && $0 !~ /-security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f")
		if [[ -n $uri ]]; then
			echo "${uri%/}"
			return 0
		fi
	done
	return 1
}

# private_apt_init DIR "SUITES" [ARCH...]
# SUITES: space-separated suite names; ARCH: extra architectures (arm64).
private_apt_init() {
	local dir=$1 suites=$2 uri s
	shift 2
	uri=$(system_archive_uri) || {
		echo "private-apt: no Debian archive URI in /etc/apt/sources*" >&2
		return 1
	}
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" || return 1
	: >"$dir/sources.list.new"
	for s in $suites; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main" \
			>>"$dir/sources.list.new"
	done
	mv "$dir/sources.list.new" "$dir/sources.list"
	PRIVATE_APT_OPTS=(
		-o "Dir::Etc::sourcelist=$dir/sources.list"
		-o "Dir::Etc::sourceparts=/dev/null"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir/cache"
		-o "Dir::Cache::archives=$dir/cache/archives"
		-o "APT::Get::List-Cleanup=false"
		-q
	)
	local arch
	for arch in "$@"; do
		PRIVATE_APT_OPTS+=(-o "APT::Architectures::=$arch")
	done
}
