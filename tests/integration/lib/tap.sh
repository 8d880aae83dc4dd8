# shellcheck shell=bash
# TAP for the integration tests that count in nr/nr_fail:
#   ok NAME
#   not_ok NAME [DETAIL [LOG]]  DETAIL's lines as '# ' diagnostics, then the
#                               last 20 lines of LOG (default: $TAP_LOG, a
#                               file the test writes each case's output to)
#   skip NAME WHY               a test point not run, for the cause WHY
#   tap_end                     the plan; exit 1 when something failed
#   expect NAME RC GOT OUT PAT... a command's exit status and output
# Sourced after `set -u`; starts the counts.
nr=0 nr_fail=0 nr_skip=0

ok() {
	nr=$((nr + 1))
	echo "ok $nr - $1"
}

not_ok() {
	local log=${3:-${TAP_LOG:-}}

	nr=$((nr + 1))
	nr_fail=$((nr_fail + 1))
	echo "not ok $nr - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | head -n 40 | sed 's/^/# /'
	[ -n "$log" ] && [ -f "$log" ] && tail -n 20 "$log" | sed 's/^/#   /'
	return 0
}

skip() {
	nr=$((nr + 1))
	nr_skip=$((nr_skip + 1))
	echo "ok $nr - $1 # SKIP $2"
}

tap_end() {
	echo "1..$nr"
	[ "$nr_fail" -gt 0 ] && exit 1
	exit 0
}

# check NAME EXPR: ok NAME when EXPR (eval'd) holds, else not_ok NAME.
check() {
	if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}

# expect NAME WANT_RC GOT_RC OUTPUT [GREP_PATTERN...]: ok NAME when the exit
# status is WANT_RC and OUTPUT matches every pattern (grep -E), else not_ok
# with what differed.
expect() {
	local name=$1 want=$2 got=$3 out=$4 pat
	shift 4
	if [ "$got" != "$want" ]; then
		not_ok "$name" "exit $got, want $want; output:
$out"
		return
	fi
	for pat in "$@"; do
		if ! grep -qE -- "$pat" <<<"$out"; then
			not_ok "$name" "no '$pat' in:
$out"
			return
		fi
	done
	ok "$name"
}
