#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ptecheck merge, what guest/vmtest writes a dead kernel's report with:
#   (a) a recorded report read and written again as JSON keeps every
#       result, histogram, note and stat (nothing is lost on the way; a
#       report of schema 7 gains its histograms' ids);
#   (b) two boots of one kernel merge: a check's worst status wins,
#       histograms add up;
#   (c) a death (a console with a BUG) is a failed SUITE/kernel-log
#       [console], the report exits 1, and the gate says DO NOT SHIP
#       naming the crash; the same in every format;
#   (d) bad input is exit 2 with no report left behind: reports of two
#       kernels, --died without a console, an unreadable console, an
#       output that is a directory, nothing to merge.
# No guest boots: seconds.
#
# Usage: bash test_merge.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed.

# check's expressions are eval'd: single quotes on purpose.
# shellcheck disable=SC2016
set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_merge "$@"
# shellcheck source=tests/integration/lib/tap.sh
source "$ROOT/tests/integration/lib/tap.sh"
DATA=$ROOT/tests/data/noise
A=$DATA/x86_64-7-run2.json
B=$DATA/x86_64-7-run3.json
TAP_LOG=$tmp/err
echo "TAP version 13"

# (a) read and written again: the same document but for the tool version
# and the summary's order-free fields.
"$PTECHECK" merge --format json -o "$tmp/a.json" "$A" 2>"$tmp/err"
rc=$?
same() { jq -S "$2" "$A" >"$tmp/want" && jq -S "$2" "$tmp/a.json" >"$tmp/got" && cmp -s "$tmp/want" "$tmp/got"; }
if [ "$rc" -ne 0 ]; then
	not_ok "a report written again: exit $rc"
else
	# The recording is of schema 7: its histograms get the ids of their
	# titles (schema 8), and are otherwise the same.
	for part in .results '[.histograms[] | del(.id)]' .notes .stats .bpf .summary .kernel .scale .started; do
		if same "$part" "$part"; then
			ok "a report written again keeps its $part"
		else
			not_ok "a report written again keeps its $part" "$(diff "$tmp/want" "$tmp/got" | head -n 20)"
		fi
	done
	check "a schema 7 report written again: every histogram has its id, mremap latency mremap/latency" \
		'jq -e '\''(.histograms | all(has("id"))) and ([.histograms[] | select(.name == "mremap latency") | .id] == ["mremap/latency"]) and .schema_version == 9'\'' "$tmp/a.json" >/dev/null'
fi

# (b) two boots of one kernel.
jq '(.results[] | select(.check == "mremap/moved" and .tier == "oracle:pagemap")) |= (.status = "fail" | .violations = 3 | .summary = "3 PTEs lost")
    | .summary.passed -= 1 | .summary.failed += 1 | .summary.exit_code = 1' "$B" >"$tmp/b.json"
"$PTECHECK" merge --format json -o "$tmp/ab.json" "$A" "$tmp/b.json" 2>"$tmp/err"
rc=$?
check "two boots merge: exit 1, the failed check wins with its summary" \
	'[ "$rc" -eq 1 ] && jq -e '\''.results[] | select(.check == "mremap/moved" and .tier == "oracle:pagemap") | .status == "fail" and .summary == "3 PTEs lost"'\'' "$tmp/ab.json" >/dev/null'
# shellcheck disable=SC2034 # check evals it
h='[.histograms[] | select(.name == "munmap PTEs per batch (folio_pte_batch)") | .total][0]'
check "two boots merge: a histogram's events add up" \
	'[ "$(jq "$h" "$tmp/ab.json")" -eq $(($(jq "$h" "$A") + $(jq "$h" "$B"))) ]'

# (c) a death.
cat >"$tmp/console.log" <<'EOF'
[   40.000001] ------------[ cut here ]------------
[   40.000002] kernel BUG at mm/page_table_check.c:118!
[   40.000003] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
[   40.000004] CPU: 1 UID: 0 PID: 412 Comm: mremap_move Not tainted
[   40.000005] RIP: 0010:__page_table_check_ptes_set+0x1b4/0x1c0
[   40.000007] Call Trace:
[   40.000008]  <TASK>
[   40.000011]  move_ptes+0x3a1/0x6c0
[   40.000013]  </TASK>
[   40.000014] ---[ end trace 0000000000000000 ]---
EOF
# A boot that died in contpte: its report would hold none of contpte's checks.
jq '.results |= map(select(.check | startswith("contpte/") | not))
    | .summary.passed = ([.results[] | select(.status == "pass")] | length)
    | .summary.skipped = ([.results[] | select(.status == "skip")] | length)' "$A" >"$tmp/no-contpte.json"
"$PTECHECK" merge --format json -o "$tmp/died.json" --died contpte --scenario dirty-7 \
	--console "$tmp/console.log" "$tmp/no-contpte.json" 2>"$tmp/err"
rc=$?
check "a death: exit 1, contpte/kernel-log [console] failed naming the BUG, the function and the scenario" \
	'[ "$rc" -eq 1 ] && jq -e '\''.results[] | select(.check == "contpte/kernel-log" and .tier == "console") | .status == "fail" and (.summary | test("during suite contpte \\(scenario dirty-7 running\\): kernel BUG at mm/page_table_check.c:118!, in __page_table_check_ptes_set, called from move_ptes"))'\'' "$tmp/died.json" >/dev/null'
"$PTECHECK" gate --baseline "$B" "$tmp/died.json" >"$tmp/gate" 2>&1
rc=$?
check "the gate: DO NOT SHIP because of the crash, exit 1" \
	'[ "$rc" -eq 1 ] && grep -q "^  because invariant-failure .*contpte/kernel-log \[console\] failed.*kernel BUG at mm/page_table_check.c:118" "$tmp/gate"'
for f in text tap junit; do
	"$PTECHECK" merge --format "$f" --died contpte --console "$tmp/console.log" "$tmp/no-contpte.json" >"$tmp/died.$f" 2>"$tmp/err"
	rc=$?
	check "a death in $f: exit 1, the crash line in it" \
		'[ "$rc" -eq 1 ] && grep -q "kernel BUG at mm/page_table_check.c:118" "$tmp/died.$f"'
done
"$PTECHECK" merge --format json --died mremap --console "$tmp/console.log" \
	--release 7.2.0-1-amd64 --machine x86_64 >"$tmp/alone.json" 2>"$tmp/err"
rc=$?
check "a death with no report beside it: a report of the kernel named, exit 1" \
	'[ "$rc" -eq 1 ] && jq -e '\''.kernel.release == "7.2.0-1-amd64" and ([.results[].check] == ["mremap/kernel-log"])'\'' "$tmp/alone.json" >/dev/null'

# (d) bad input: exit 2, a message, and no report written.
bad() {
	local what=$1 msg=$2
	shift 2
	rm -f "$tmp/out.json"
	"$PTECHECK" merge -o "$tmp/out.json" "$@" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		not_ok "$what: exit $rc, not 2"
	elif ! grep -q "$msg" "$tmp/err"; then
		not_ok "$what: no message '$msg'"
	elif [ -e "$tmp/out.json" ] || [ -s "$tmp/stdout" ]; then
		not_ok "$what: a report was written"
	else
		ok "$what: exit 2, said, nothing written"
	fi
}
bad "reports of two kernels" "one kernel's reports merge" "$A" "$DATA/arm64-7-run1.json"
bad "--died without a console" "needs the console log" --died mremap "$A"
bad "an unreadable console" "cannot open the console log" --died mremap --console "$tmp/none.log" "$A"
bad "a report that is not one" "not a ptecheck report\|not JSON\|JSON" "$tmp/console.log"
bad "nothing to merge" "nothing to merge"
mkdir "$tmp/dir"
"$PTECHECK" merge -o "$tmp/dir" "$A" >"$tmp/stdout" 2>"$tmp/err"
rc=$?
check "an output that is a directory: exit 2, nothing on stdout" '[ "$rc" -eq 2 ] && [ ! -s "$tmp/stdout" ]'
tap_end
