#!/usr/bin/env bash
# The page-table walk's calibration when its page moves (compaction or
# NUMA balancing between reading the page's PFN and the program looking
# for it), made so by the fault point of the test build
# (PTECHECK_FAULT_CALIB_MOVE=N: the page moves in the first N attempts,
# trace/calib.c): moved once, the calibration tries again and the walk
# is there, saying so; moved in every attempt, the walk is unavailable
# with the reason and the moves named, never a wrong base.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
build=${1:?usage: test_calib_move.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pc=$build/ptecheck
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"
echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF"
	exit 4
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TAP_LOG=$tmp/log
walk() { grep -E '^  page-table walk from BPF' "$tmp/features"; }

"$pc" features >"$tmp/features" 2>"$tmp/log"
check "no move: calibrated at the first attempt ($(walk))" \
	"walk | grep -qE 'yes +[0-9]-level page tables, direct map at 0x[0-9a-f]+ \(calibrated\)$'"
PTECHECK_FAULT_CALIB_MOVE=1 "$pc" features >"$tmp/features" 2>"$tmp/log"
check "moved once: calibrated again, said ($(walk))" \
	"walk | grep -qE 'yes +[0-9]-level page tables, direct map at 0x[0-9a-f]+ \(calibrated; the page moved during an attempt, tried again\)$'"
PTECHECK_FAULT_CALIB_MOVE=9 "$pc" features >"$tmp/features" 2>"$tmp/log"
check "moved every time: no walk, the reason and the moves named ($(walk))" \
	"walk | grep -qE ' no +no direct-map base among [0-9]+ candidates maps a known page .*; the page moved during 2 of 3 attempts$'"
tap_end
