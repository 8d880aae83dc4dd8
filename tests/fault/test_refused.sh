#!/usr/bin/env bash
# A program of ptecheck's own that the kernel refuses, made so by the
# fault points of the test build (CMake PTECHECK_FAULT_INJECT=ON,
# include/ptecheck/fault.h; PTECHECK_FAULT_REFUSE names them): the part
# is turned off with the verifier's reason in one line, the other parts
# load and judge, the command exits 3 (never a pass, never a skip), the
# verifier's log is in a file and not on the terminal, and the gate does
# not ship the run against a baseline where that part ran.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
build=${1:?usage: test_refused.sh BUILD_DIR}
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
export TMPDIR=$tmp # the verifier's log files land here
trap 'rm -rf "$tmp"' EXIT
export TAP_LOG=$tmp/log
refused() { PTECHECK_FAULT_REFUSE=$1 "${@:2}"; }
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

# The baseline: nothing refused, the derived batch runs counted.
"$pc" run --suite mremap --scale 4 --format json --output "$tmp/base.json" 2>"$tmp/log"
rc=$?
check "run without a fault exits 0, nothing refused (rc=$rc)" \
	"[[ $rc -eq 0 ]] && py $tmp/base.json 'sys.exit(bool(d[\"bpf\"][\"refused\"]))'"
derived=$(py "$tmp/base.json" 'print(sum(h["total"] for h in d["histograms"] if h["name"].endswith("(derived)")))')

# The derived walk refused: its part off, mremap's own checks still judged.
refused walk "$pc" run --suite mremap --scale 4 --format json --output "$tmp/walk.json" 2>"$tmp/log"
rc=$?
check "run, the walk refused: exit 3 (rc=$rc)" "[[ $rc -eq 3 ]]"
check "one line on stderr names the part, the program and the verifier's reason" \
	"[[ \$(grep -c 'the verifier refused' $tmp/log) == 1 ]] && grep -q 'ptecheck: the verifier refused the derived batch runs (syscalls_enter, pc_walk_sys_enter): invalid read from stack' $tmp/log"
check "no verifier log on the terminal: it is in the file the line names" \
	"[[ \$(wc -l <$tmp/log) -lt 10 ]] && f=\$(sed -n 's/.*(log: \(.*\)).*/\1/p' $tmp/log | head -1) && grep -q 'BEGIN PROG LOAD LOG' \"\$f\""
check "the report: exit_code 3, the refusal in bpf.refused" \
	"py $tmp/walk.json 'sys.exit(not (d[\"summary\"][\"exit_code\"] == 3 and len(d[\"bpf\"][\"refused\"]) == 1))'"
check "the other parts still judged: mremap/moved passes in kernel:syscall-walk" \
	"py $tmp/walk.json 'sys.exit(not any(r[\"check\"] == \"mremap/moved\" and r[\"tier\"] == \"kernel:syscall-walk\" and r[\"status\"] == \"pass\" for r in d[\"results\"]))'"
check "the refused part's histograms are gone, not empty: no derived histogram" \
	"py $tmp/walk.json 'sys.exit(any(h[\"name\"].endswith(\"(derived)\") for h in d[\"histograms\"]))'"
check "the JSON validates against docs/report-schema.json" \
	"python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' $tmp/walk.json $src/docs/report-schema.json"

# The gate: the baseline judged the derived batch runs, the candidate's
# kernel refused them.  Not shipped, and the refusal is named.
if [[ $derived -gt 0 ]]; then
	"$pc" gate --baseline "$tmp/base.json" "$tmp/walk.json" >"$tmp/gate.txt" 2>&1
	rc=$?
	check "gate: the candidate's refused walk against a baseline that walked: DO NOT SHIP (rc=$rc)" \
		"[[ $rc -eq 1 ]] && grep -q 'the verifier refused the derived batch runs' $tmp/gate.txt"
else
	skip "gate: refused walk against a walking baseline" "the baseline counted no derived batch run"
fi

# madvise's syscall-walk handler refused: that tier skips with the
# verifier's reason, the suite's oracles still judge, exit 3.
refused madvise "$pc" run --suite madvise --scale 4 --format json --output "$tmp/madv.json" 2>"$tmp/log"
rc=$?
check "run, madvise's handler refused: exit 3 (rc=$rc)" "[[ $rc -eq 3 ]]"
check "the refusal named in one line" \
	"grep -q \"ptecheck: the verifier refused madvise's syscall-walk (syscalls_enter, pc_madvise_sys_enter)\" $tmp/log"
check "madvise/range [kernel:syscall-walk] skips with the refusal; the oracles pass" \
	"py $tmp/madv.json 'r = {(x[\"check\"], x[\"tier\"]): x for x in d[\"results\"]}; k = r[(\"madvise/range\", \"kernel:syscall-walk\")]; sys.exit(not (k[\"status\"] == \"skip\" and \"verifier refused\" in k[\"summary\"] and r[(\"madvise/range\", \"oracle:data-loss\")][\"status\"] == \"pass\"))'"

# hist: a refused tracepoint program; its histogram says why it is not shown.
refused filemap-tp "$pc" hist --duration 1 --format json --output "$tmp/hist.json" 2>"$tmp/log"
rc=$?
check "hist, filemap's tracepoint program refused: exit 3 (rc=$rc)" "[[ $rc -eq 3 ]]"
check "hist: the fault-around window histogram is not shown, the refusal is why" \
	"py $tmp/hist.json 'sys.exit(not any(n.startswith(\"not shown: fault-around window\") and \"the verifier refused filemap_window\" in n for n in d[\"notes\"]))'"
check "hist: the other histograms are there (mremap latency)" \
	"py $tmp/hist.json 'sys.exit(not any(h[\"name\"] == \"mremap latency\" for h in d[\"histograms\"]))'"

# Nothing can trace without the dispatcher: watch -- CMD says so, exits 3,
# and CMD never runs.
refused syscalls "$pc" watch --duration 5 -- sh -c "touch $tmp/ran" >"$tmp/out" 2>"$tmp/log"
rc=$?
check "watch -- CMD, the dispatcher refused: exit 3, CMD never ran (rc=$rc)" \
	"[[ $rc -eq 3 && ! -e $tmp/ran ]] && grep -q 'cannot trace: the verifier refused syscalls_enter' $tmp/log"

# features: no yes for what did not load, exit 3.
refused walk "$pc" features >"$tmp/features" 2>"$tmp/log"
rc=$?
check "features, the walk refused: exit 3, derived batch runs no, run's object no (rc=$rc)" \
	"[[ $rc -eq 3 ]] && grep -Eq '^  derived batch runs +no +the verifier refused' $tmp/features && grep -Eq '^  run +no +the verifier refused' $tmp/features"
tap_end
