#!/usr/bin/env bash
# Integration test of watch/hist --by comm|pid on the running kernel (the
# syscall and filemap tracepoints): two differently named children's
# mremap calls are counted each under its own key, in JSON (valid against
# docs/report-schema.json) and text; -i gives each interval its own keys;
# a full table of keys is said, never lost silently.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
echo "TAP version 13"
build=${1:?usage: test_hist_by.sh BUILD_DIR}
pc=$build/ptecheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF"
	exit 4
fi
# The same workload under a second name: its processes' comm differs.
cp "$build/workloads/mremap_folios" "$tmp/other_folios"
two="$build/workloads/mremap_folios --iterations 20 >/dev/null; $tmp/other_folios --iterations 7 >/dev/null"

# The keys of histogram NAME in report FILE, in report order, one per
# line: "comm total" or "pid comm total"; "? total" for the unattributed.
keys() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["histograms"]:
    if h["name"] != sys.argv[2]:
        continue
    k = h.get("key", {})
    if k.get("unattributed"):
        print("?", h["total"])
    elif k.get("by") == "pid":
        print(k["pid"], k["comm"], h["total"])
    else:
        print(k.get("comm", "-"), h["total"])
PY
}
valid() { python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$1" "$src/docs/report-schema.json"; }

"$pc" hist --by comm --format json --output "$tmp/comm.json" -- sh -c "$two" 2>"$tmp/comm.err"
check "hist --by comm exits 0" "[[ $? -eq 0 ]]"
keys "$tmp/comm.json" "mremap latency" >"$tmp/comm.keys"
sed 's/^/# /' "$tmp/comm.keys"
check "hist --by comm: mremap latency per comm, largest first: mremap_folios 20, other_folios 7" \
	"[[ \$(cat $tmp/comm.keys) == \$'mremap_folios 20\nother_folios 7' ]]"
check "hist --by comm: the TLB flush histogram is keyed too" \
	"keys $tmp/comm.json 'mremap TLB flushes per call' | grep -qx 'other_folios 7'"
check "hist --by comm: the banner says so" "grep -q 'histograms by comm' $tmp/comm.err"
check "hist --by comm: the JSON validates" "valid $tmp/comm.json"

"$pc" hist --by pid --format json --output "$tmp/pid.json" -- sh -c "$two" 2>/dev/null
keys "$tmp/pid.json" "mremap latency" >"$tmp/pid.keys"
sed 's/^/# /' "$tmp/pid.keys"
check "hist --by pid: two processes with their names, 20 and 7 calls" \
	"awk '{ print \$2, \$3 }' $tmp/pid.keys | paste -sd, | grep -qx 'mremap_folios 20,other_folios 7'"
check "hist --by pid: two different pids" "[[ \$(awk '{ print \$1 }' $tmp/pid.keys | sort -u | wc -l) == 2 ]]"
check "hist --by pid: the JSON validates" "valid $tmp/pid.json"

# Text: a section per key under each histogram's title (watch has them too).
"$pc" watch --by pid --output "$tmp/watch.txt" -- sh -c "$two" 2>/dev/null
check "watch --by pid text: 'pid = N (other_folios)' after the mremap latency title" \
	"grep -A1 '^mremap latency (ns)' $tmp/watch.txt | grep -qE '^pid = [0-9]+ \(other_folios\)$'"

# -i: each interval holds the keys with events in it: mremap_folios runs
# in the first second, other_folios in the second.
"$pc" hist --by comm -i 1 --output "$tmp/iv.txt" -- \
	sh -c "$build/workloads/mremap_folios --iterations 20 >/dev/null; sleep 1.5; $tmp/other_folios --iterations 7 >/dev/null; sleep 1" 2>"$tmp/iv.err"
awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] \(the last 1 s\)$/ { i++ } /^comm = / { print i, $3 }' "$tmp/iv.err" | sort -u >"$tmp/iv.keys"
sed 's/^/# /' "$tmp/iv.keys"
check "hist --by comm -i 1: mremap_folios in the first interval only, other_folios in the second only" \
	"grep -qx '1 mremap_folios' $tmp/iv.keys && ! grep -qx '1 other_folios' $tmp/iv.keys && grep -qx '2 other_folios' $tmp/iv.keys && ! grep -qx '2 mremap_folios' $tmp/iv.keys"

# More processes than the table has keys: the rest is said, not lost.
# shellcheck disable=SC2016 # the loop is sh's
"$pc" hist --by pid --format json --output "$tmp/full.json" -- \
	sh -c 'i=0; while [ $i -lt 2100 ]; do /bin/true; i=$((i + 1)); done' 2>/dev/null
keys "$tmp/full.json" "fault-around window per filemap_map_pages call" >"$tmp/full.keys"
echo "# $(grep -vc '^?' "$tmp/full.keys") keys, unattributed: $(grep '^?' "$tmp/full.keys")"
check "hist --by pid, 2101 processes: the table's 2048 keys, the rest in the unattributed section, last" \
	"[[ \$(grep -vc '^?' $tmp/full.keys) -le 2048 ]] && tail -1 $tmp/full.keys | grep -qE '^\? [1-9][0-9]*$'"
check "hist --by pid, a full table: a note says how many events were not attributed" \
	"python3 -c 'import json,sys; sys.exit(not any(\"events not attributed to a pid\" in x for x in json.load(open(sys.argv[1]))[\"notes\"]))' $tmp/full.json"
check "hist --by pid, a full table: the JSON validates" "valid $tmp/full.json"

tap_end
