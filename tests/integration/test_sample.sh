#!/usr/bin/env bash
# watch --sample N on the running kernel (docs/fleet.md): the same mremap
# loop watched judging every call and judging 1 in 4.  Sampled, the checks
# judge a quarter of the calls (bounded: each CPU judges one of each block
# of 4 it sees, so within one per CPU of calls/4), count only those, and
# the report says so; the histograms the hooks feed count every call, as
# unsampled; the derived batch walk (munmap's batches where only
# tracepoints attach) walks a quarter of the calls and counts the rest.
# Not timed.  TAP; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
build=${1:?usage: test_sample.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pc=$build/ptecheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"

echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF"
	exit 4
fi
iters=800
for n in 1 4; do
	"$pc" watch --sample $n --format json --output "$tmp/w$n.json" -- \
		"$build/workloads/mremap_folios" --iterations $iters >/dev/null 2>"$tmp/w$n.err"
	rc=$?
	check "watch --sample $n exits 0 (rc=$rc)" "[[ $rc -eq 0 ]]"
done
if ! grep -q '"calls_checked": [1-9]' "$tmp/w1.json"; then
	echo "1..$nr # SKIP the syscall-walk tier judged nothing here: $(grep -o 'page-table walk: [^"]*' "$tmp/w1.json")"
	exit 4
fi
# One line per fact: name=value, for the checks below.
facts() {
	python3 - "$1" "$(nproc)" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
st = d["stats"]
res = {(r["check"], r["tier"]): r for r in d["results"]}
moved = res[("mremap/moved", "kernel:syscall-walk")]
hist = {h["name"]: h for h in d["histograms"]}
print("sample_every=%s" % d.get("sample_every", 1))
print("calls=%d" % st["calls"])
print("calls_checked=%d" % st["calls_checked"])
# A disturbed window's entries are inconclusive, not judged; its call
# still counts as judged, so the entries per judged call count both.
print("moved_checked=%d" % moved["checked"])
print("moved_seen=%d" % (moved["checked"] + moved["inconclusive"]))
print("violations=%d" % sum(r["violations"] for r in d["results"]))
print("failed=%d" % d["summary"]["failed"])
print("latency_total=%d" % hist["mremap latency"]["total"])
print("tlb_total=%d" % hist["mremap TLB flushes per call"]["total"])
print("ptes_moved_total=%d" % hist["mremap present PTEs moved per call"]["total"])
walk = [re.match(r"derived batch runs: (\d+) calls walked", n) for n in d["notes"]]
walk = [m for m in walk if m]
skipped = [re.match(r"derived batch runs sampled: (\d+) calls not walked \(--sample (\d+)\)", n) for n in d["notes"]]
skipped = [m for m in skipped if m]
print("walk_noted=%d" % bool(walk))
print("walked=%d" % (int(walk[0].group(1)) if walk else 0))
print("unwalked=%d" % (int(skipped[0].group(1)) if skipped else 0))
print("unwalked_every=%d" % (int(skipped[0].group(2)) if skipped else 0))
print("noted=%d" % any(n.startswith("sampled 1 in %s:" % d.get("sample_every")) for n in d["notes"]))
EOF
}
declare -A u s
while IFS='=' read -r k v; do u[$k]=$v; done < <(facts "$tmp/w1.json")
while IFS='=' read -r k v; do s[$k]=$v; done < <(facts "$tmp/w4.json")
cpus=$(nproc)
echo "# unsampled: calls ${u[calls]} judged ${u[calls_checked]}; 1 in 4: calls ${s[calls]} judged ${s[calls_checked]} ($cpus CPUs)"

check "unsampled: every call judged" "[[ ${u[calls]} -eq $iters && ${u[calls_checked]} -eq $iters ]]"
check "unsampled: no sample_every in the report" "[[ ${u[sample_every]} -eq 1 && ${u[noted]} -eq 0 ]]"
check "1 in 4: every call seen" "[[ ${s[calls]} -eq $iters ]]"
q=$((iters / 4))
check "1 in 4: a quarter judged, within one per CPU ($q +- $cpus)" \
	"[[ ${s[calls_checked]} -ge $((q - cpus)) && ${s[calls_checked]} -le $((q + cpus)) ]]"
# Each call of the loop moves the same PTEs: counts scale with the calls
# judged (entries of a disturbed window inconclusive rather than judged).
check "1 in 4: the checks count the judged calls' PTEs only" \
	"[[ $((${s[moved_seen]} * ${u[calls_checked]})) -eq $((${u[moved_seen]} * ${s[calls_checked]})) && ${s[moved_checked]} -le ${s[moved_seen]} ]]"
check "1 in 4: sample_every 4 in JSON and the note" "[[ ${s[sample_every]} -eq 4 && ${s[noted]} -eq 1 ]]"
check "no violation either way" "[[ ${u[violations]} -eq 0 && ${s[violations]} -eq 0 && ${u[failed]} -eq 0 && ${s[failed]} -eq 0 ]]"
for h in latency_total tlb_total; do
	check "histogram $h: as unsampled (${s[$h]} = ${u[$h]} = $iters)" \
		"[[ ${s[$h]} -eq ${u[$h]} && ${u[$h]} -eq $iters ]]"
done
check "the walk's PTEs-moved histogram counts the judged calls" \
	"[[ ${s[ptes_moved_total]} -eq ${s[calls_checked]} ]]"
# The derived walk (munmap's batches, where only tracepoints attach) is
# sampled with the checks: a quarter of the calls walked, the rest counted.
if [[ ${u[walk_noted]} -eq 1 ]]; then
	wt=$((${s[walked]} + ${s[unwalked]}))
	wq=$((wt / 4))
	check "derived walk unsampled: every call walked (${u[walked]}), none passed over" \
		"[[ ${u[walked]} -ge $iters && ${u[unwalked]} -eq 0 ]]"
	check "derived walk 1 in 4: as many calls seen (${s[walked]} + ${s[unwalked]} = ${u[walked]})" \
		"[[ $wt -eq ${u[walked]} && ${s[unwalked_every]} -eq 4 ]]"
	check "derived walk 1 in 4: a quarter walked, within one per CPU ($wq +- $cpus)" \
		"[[ ${s[walked]} -ge $((wq - cpus)) && ${s[walked]} -le $((wq + cpus)) ]]"
else
	skip "derived walk sampled with the checks" "no derived batch walk here: $(grep -o 'derived batch runs[^"]*' "$tmp/w1.json" | head -1)"
fi
check "the sampled JSON validates against docs/report-schema.json" \
	"python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' $tmp/w4.json $src/docs/report-schema.json"
"$pc" watch --sample 0 --duration 1 >/dev/null 2>"$tmp/bad0"
rc=$?
check "--sample 0 is a usage error (rc=$rc)" "[[ $rc -eq 2 ]] && grep -q 'sample takes a number' $tmp/bad0"
"$pc" hist --sample 4 --duration 1 >/dev/null 2>"$tmp/badh"
rc=$?
check "hist --sample is a usage error (rc=$rc)" "[[ $rc -eq 2 ]] && grep -q 'hist judges nothing' $tmp/badh"
tap_end
