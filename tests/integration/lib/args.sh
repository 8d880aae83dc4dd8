# shellcheck shell=bash
# The preamble of the tests run as `bash TEST BUILD_DIR`:
#   test_args NAME "$@"   without BUILD_DIR: usage, exit 2; else sets ROOT
#                         (the tree), PTECHECK (BUILD_DIR/ptecheck) and tmp
#                         (a private directory, removed on exit)
test_args() {
	local name=$1

	shift
	if [ -z "${1:-}" ]; then
		echo "usage: bash $name BUILD_DIR" >&2
		exit 2
	fi
	# For the script that sourced this one.
	# shellcheck disable=SC2034
	ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
	# shellcheck disable=SC2034
	PTECHECK=$(cd "$1" 2>/dev/null && pwd)/ptecheck
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
}
