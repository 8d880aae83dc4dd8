#!/usr/bin/env bash
# The tracing object on the running kernel, as a new user meets it: every
# program ptecheck loads verifies within the budget (200000 instructions,
# a fifth of the kernel's limit; the object's load and attach times are
# printed against their 300 ms, not judged: a wall time, stretched when
# the test runs beside CI's guests) for each command's session, under this kernel's calibration and
# synthetic ones (tests/integration/helpers/load_budget.c), and `features
# -v` says each command's object loads, lists every program's
# instructions and exits 0.  A program near the limit loads on one
# machine and not the next: this fails CI wherever it runs.
# TAP output; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
build=${1:?usage: test_load_budget.sh BUILD_DIR}
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

"$build/tests/load_budget" >"$tmp/budget" 2>&1
rc=$?
grep -E '^# (run|watch|hist|export) \[this kernel\]' "$tmp/budget"
if [[ $rc -eq 0 ]]; then
	ok "every session under $(grep -c '^ok' "$tmp/budget") budget points: $(sed -n 's/^# seed /seed /p' "$tmp/budget")"
else
	not_ok "load_budget exits 0 (rc=$rc)" "$(grep -E '^(not ok|#|Bail)' "$tmp/budget" | grep -B1 -A1 -E '^(not ok|Bail)')"
fi

"$pc" features -v >"$tmp/features" 2>"$tmp/log"
rc=$?
check "features -v exits 0 (rc=$rc)" "[[ $rc -eq 0 ]]"
for c in run watch hist export; do
	check "features: $c's tracing object loads" \
		"grep -qE '^  $c +yes +[0-9]+ programs, the largest' '$tmp/features'"
done
check "features -v lists each program's instructions (syscalls_enter)" \
	"grep -qE '^      syscalls_enter +[0-9]+$' '$tmp/features'"
check "features: no program over the instruction budget" "! grep -q 'OVER BUDGET' '$tmp/features'"
check "features: no libbpf or verifier words on stderr" "[[ ! -s $tmp/log ]]"
tap_end
