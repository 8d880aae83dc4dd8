#!/usr/bin/env bash
# Integration tests of the ptecheck command on the running kernel: features
# reports the tiers honestly, the mremap suite passes, JSON validates
# against docs/report-schema.json, TAP is well formed, JUnit validates
# against tests/data/junit.xsd and parses, bad arguments exit 2.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
build=${1:?usage: test_ptecheck.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pc=$build/ptecheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/wait.sh
source "$src/tests/integration/lib/wait.sh"
# scenario_says FILE CHECK TIER ERE: under the passing CHECK [TIER] of a
# `run -v` text report, a scenario's line matches ERE.
scenario_says() {
	awk -v c="$2" -v t="[$3]" -v re="$4" '
		/^(PASS|FAIL|SKIP) / { inside = ($1 == "PASS" && $2 == c && $3 == t); next }
		inside && /^      / && $0 ~ re { found = 1 }
		END { exit !found }' "$1"
}

echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF and /proc/kpageflags"
	exit 4
fi
mthp=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
before=$(cat $mthp/enabled $mthp/shmem_enabled 2>/dev/null)

"$pc" features >"$tmp/features" 2>&1
check "features exits 0" "[[ $? -eq 0 ]]"
check "features names the syscall tracepoints" "grep -q 'raw_syscalls/sys_enter *yes' $tmp/features && grep -q 'raw_syscalls/sys_exit *yes' $tmp/features"
if grep -q 'fentry on move_page_tables refused' "$tmp/features"; then
	check "features gives the reason fentry is refused" "grep -q 'refused: Operation not permitted' $tmp/features"
else
	check "features reports fentry available" "grep -q 'fentry/fexit on move_page_tables' $tmp/features"
fi

"$pc" run --suite mremap -v >"$tmp/run.txt" 2>"$tmp/run.err"
rc=$?
check "run --suite mremap -v exits 0 (rc=$rc)" "[[ $rc -eq 0 ]]"
sed 's/^/# /' "$tmp/run.txt" | head -40
for c in moved ad-bits perms folio-intact; do
	check "mremap/$c passes in an oracle tier" "grep -E '^PASS +mremap/$c +\[oracle:' $tmp/run.txt >/dev/null"
done
# The kernel tiers this host allows (features says it will use them)
# must judge something: a skip there is a program that did not load or a
# scenario that made no state, never an honest skip.
if grep -Eq '^  mremap/moved, ad-bits, perms +.*kernel:syscall-walk' "$tmp/features"; then
	for c in moved ad-bits perms pmd-move; do
		check "mremap/$c passes in kernel:syscall-walk (features: the tier runs here)" \
			"grep -E '^PASS +mremap/$c +\[kernel:syscall-walk\]' $tmp/run.txt >/dev/null"
	done
else
	for c in moved ad-bits perms pmd-move; do
		check "mremap/$c has a kernel:syscall-walk result (skip: features says no walk)" \
			"grep -E '^SKIP +mremap/$c +\[kernel:syscall-walk\]' $tmp/run.txt >/dev/null"
	done
fi
check "mremap/perms write-fault oracle judged the fork-exit trigger state" \
	"scenario_says $tmp/run.txt mremap/perms oracle:write-fault '^      pass  perms-fork-exit: [1-9][0-9]* read-only pages written'"
check "mremap/ad-bits data-loss probe judged dirty bits only the PTEs held" \
	"scenario_says $tmp/run.txt mremap/ad-bits oracle:data-loss '^      pass  shmem-64k-pte-dirty: [1-9][0-9]* written blocks read back: 0 lost'"
check "a check the scenarios judged says how many, short" \
	"grep -Eq '^PASS +mremap/moved +\[oracle:pagemap\] +\(derived\) +judged by [1-9][0-9]* scenarios?: [0-9]+ checked, 0 violations' $tmp/run.txt"
check "no check failed" "! grep -q '^FAIL' $tmp/run.txt"
check "latency histogram printed" "grep -q 'mremap latency' $tmp/run.txt"
check "TLB flush histogram printed" "grep -q 'TLB flushes per call' $tmp/run.txt"
check "summary line present" "grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' $tmp/run.txt"
after=$(cat $mthp/enabled $mthp/shmem_enabled 2>/dev/null)
check "mTHP settings restored after run" "[[ \"$before\" == \"$after\" ]]"

"$pc" run --suite mremap --format json --output "$tmp/run.json" 2>/dev/null
check "run --format json exits 0" "[[ $? -eq 0 ]]"
check "JSON validates against docs/report-schema.json" \
	"python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' $tmp/run.json $src/docs/report-schema.json"
# What the kernel made of the tracing object: every program loaded within
# the budget, nothing refused; the tracepoint histograms and, where
# features says they run, the derived batch runs counted something.
derived=no
grep -Eq '^  derived batch runs +yes' "$tmp/features" && derived=yes
why=$(python3 - "$tmp/run.json" "$derived" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d.get("bpf", {})
if not b.get("loaded") or b.get("refused"):
    print("not loaded, or refused:", b.get("refused")); sys.exit(0)
big = max(b["programs"], key=lambda p: p["verified_insns"])
if big["verified_insns"] > 200000:
    print(f"{big['name']}: {big['verified_insns']} instructions"); sys.exit(0)
total = {h["name"]: h["total"] for h in d["histograms"]}
if not total.get("mremap latency"):
    print("mremap latency: no events"); sys.exit(0)
derived = [n for n, t in total.items() if n.endswith("(derived)") and t]
if sys.argv[2] == "yes" and not derived:
    print("features says the derived batch runs run here, and none counted"); sys.exit(0)
print("OK")
PY
)
check "JSON: the object loaded within budget, nothing refused, the tracepoint and derived histograms counted ($why)" "[[ \$why == OK ]]"
# Each result's scenarios are its variants, each whole: its counts add up
# to the result's, its words or reason given.
why=$(python3 - "$tmp/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
judged = 0
for r in d["results"]:
    sc = r["scenarios"]
    if [s["name"] for s in sc] != [v["scenario"] for v in r["variants"]]:
        print(f"{r['check']} [{r['tier']}]: scenarios are not its variants"); sys.exit(0)
    if sc and sum(s["checked"] for s in sc) != r["checked"]:
        print(f"{r['check']} [{r['tier']}]: scenarios checked {sum(s['checked'] for s in sc)}, result {r['checked']}"); sys.exit(0)
    for s in sc:
        if not s.get("summary" if s["status"] != "skip" else "reason"):
            print(f"{r['check']} [{r['tier']}]: {s['name']} says nothing"); sys.exit(0)
    judged += len(sc)
print("OK" if judged else "no scenario judged anything")
PY
)
check "JSON: each result's scenarios, with counts adding up and their words ($why)" "[[ \$why == OK ]]"

"$pc" run --suite mremap --format tap -v >"$tmp/run.tap" 2>/dev/null
check "TAP has a version and a plan" "head -1 $tmp/run.tap | grep -q 'TAP version 13' && grep -Eq '^1\.\.[0-9]+$' $tmp/run.tap"
check "TAP skips carry a reason" "! grep -E '# SKIP *$' $tmp/run.tap"
check "TAP -v: a check's scenarios are its subtest, plan first" \
	"grep -A1 '^    # Subtest: mremap/moved \[oracle:pagemap\]$' $tmp/run.tap | grep -Eq '^    1\.\.[1-9][0-9]*$'"
if command -v prove >/dev/null; then
	check "prove accepts the TAP with subtests" "prove -e cat $tmp/run.tap >$tmp/prove.out 2>&1"
else
	ok "prove accepts the TAP with subtests # SKIP prove not installed"
fi

# JUnit as CI reads it: the schema, then a JUnit parser (tests/unit/junit_check.py)
# finding a testcase per result of the JSON run above.
xsd=$src/tests/data/junit.xsd
"$pc" run --suite mremap --format junit --output "$tmp/run.xml" 2>/dev/null
check "run --format junit exits 0" "[[ $? -eq 0 ]]"
check "run JUnit validates against tests/data/junit.xsd" "xmllint --noout --schema $xsd $tmp/run.xml 2>/dev/null"
check "run JUnit read by junitparser: a testcase per result, counts consistent" \
	"/usr/bin/python3 $src/tests/unit/junit_check.py --report $tmp/run.json --names-only $tmp/run.xml"

"$pc" run --bogus >/dev/null 2>&1
check "unknown option exits 2" "[[ $? -eq 2 ]]"
"$pc" run --suite nosuch >/dev/null 2>"$tmp/err"
check "unknown suite exits 2 with a message" "[[ $? -eq 2 ]] && grep -q 'unknown suite' $tmp/err"
"$pc" run --suite mremap,nosuch >/dev/null 2>"$tmp/err"
check "a list with an unknown suite exits 2 naming it" "[[ $? -eq 2 ]] && grep -q \"unknown suite 'nosuch'\" $tmp/err"
"$pc" run --suite mremap,filemap,contpte,mprotect,zap,mlock,fork,madvise,reclaim,mremap \
	>/dev/null 2>"$tmp/err"
check "a --suite list past 63 characters exits 2" "[[ $? -eq 2 ]] && grep -q 'at most 63' $tmp/err"
"$pc" run --suite madvise,reclaim --list >"$tmp/list" 2>/dev/null
check "run --suite madvise,reclaim --list lists both suites' scenarios" \
	"[[ $? -eq 0 ]] && grep -q '^madvise/' $tmp/list && grep -q '^reclaim/' $tmp/list && ! grep -qv '^madvise/\\|^reclaim/' $tmp/list"
"$pc" run --suite filemap --list >"$tmp/list" 2>/dev/null
check "run --list marks the known bug's scenario (docs/findings.md)" \
	"grep -q '^filemap/trunc-pinned-collapse-blockfs .*(a bug released kernels carry: --skip-known-bugs)' $tmp/list"
"$pc" run --format xml >/dev/null 2>&1
check "unknown format exits 2" "[[ $? -eq 2 ]]"
"$pc" nosuchcommand >/dev/null 2>&1
check "unknown command exits 2" "[[ $? -eq 2 ]]"
"$pc" watch --pid 999999999 >/dev/null 2>&1
check "watch of a missing pid exits 2" "[[ $? -eq 2 ]]"
setpriv --reuid=65534 --regid=65534 --clear-groups "$pc" run >/dev/null 2>"$tmp/err"
check "without root: exit 2 and says so" "[[ $? -eq 2 ]] && grep -q 'needs root' $tmp/err"

"$pc" watch -- "$build/workloads/mremap_folios" --iterations 200 >"$tmp/watch.txt" 2>&1
check "watch of the reference workload exits 0" "[[ $? -eq 0 ]] && grep -q 'PASS  mremap/moved' $tmp/watch.txt"
"$pc" watch --format junit --output "$tmp/watch.xml" -- "$build/workloads/mremap_folios" --iterations 50 >/dev/null 2>&1
check "watch --format junit validates, mremap/moved a passed testcase" \
	"xmllint --noout --schema $xsd $tmp/watch.xml 2>/dev/null && grep -q '<testcase classname=\"ptecheck.mremap\" name=\"moved \[kernel:' $tmp/watch.xml"
"$pc" hist --format json --output "$tmp/hist.json" -- "$build/workloads/mremap_folios" --iterations 50 >/dev/null 2>&1
# Under --stress windows are disturbed: what they saw is inconclusive, not
# judged, and each summary's numbers are the result's counters.
"$pc" run --suite mremap --stress 4 --format json --output "$tmp/stress.json" >/dev/null 2>&1
why=$(python3 - "$tmp/stress.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
if not d["stats"].get("calls_disturbed"):
    print("SKIP no window was disturbed"); sys.exit(0)
for r in d["results"]:
    if r["tier"] != "kernel:syscall-walk" or r["status"] != "pass":
        continue
    m = re.match(r"(\d+) .* judged in quiet windows; (\d+) inconclusive \(disturbed, shared or unenforced windows\), not judged; (\d+) not applicable", r["summary"])
    if not m:
        print(f"{r['check']}: summary '{r['summary']}'"); sys.exit(0)
    if (int(m[1]), int(m[2])) != (r["checked"], r["inconclusive"]):
        print(f"{r['check']}: summary {m[1]}/{m[2]}, counters {r['checked']}/{r['inconclusive']}"); sys.exit(0)
    if r["check"] == "mremap/moved" and r["inconclusive"] == 0:
        print(f"{d['stats']['calls_disturbed']} calls disturbed, none of their entries inconclusive"); sys.exit(0)
print("OK")
PY
)
case $why in
OK) ok "--stress: entries of disturbed windows are inconclusive, not judged; summaries match the counters" ;;
SKIP*) ok "--stress: entries of disturbed windows are inconclusive # SKIP ${why#SKIP }" ;;
*) not_ok "--stress: entries of disturbed windows are inconclusive, not judged: $why" ;;
esac
# A shrink in place moves nothing: no entry judged as moved, none counted.
"$pc" watch --format json --output "$tmp/shrink.json" -- "$build/workloads/mremap_folios" \
	--variant shrink --size 2M --iterations 3 >/dev/null 2>&1
why=$(python3 - "$tmp/shrink.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
moved = [r for r in d["results"] if r["check"] == "mremap/moved" and r["tier"] == "kernel:syscall-walk"][0]
hist = [h for h in d["histograms"] if h["name"] == "mremap present PTEs moved per call"]
if d["stats"].get("calls_in_place") != 3:
    print(f"calls_in_place {d['stats'].get('calls_in_place')}, not 3")
elif moved["checked"] or moved["status"] != "skip" or "3 moved nothing" not in moved["summary"]:
    print(f"mremap/moved: {moved['status']}, {moved['checked']} judged: {moved['summary']}")
elif hist and hist[0]["total"]:
    print(f"{hist[0]['total']} calls counted as moves")
else:
    print("OK")
PY
)
check "watch: a shrink in place is no move: nothing judged or counted as moved ($why)" "[[ \$why == OK ]]"
# Descendants are followed (perf's inherit), unless --no-inherit: sh's
# child makes the 20 mremap calls.
for x in inherit no-inherit; do
	opt=()
	[[ $x == no-inherit ]] && opt=(--no-inherit)
	"$pc" hist "${opt[@]}" --format json --output "$tmp/$x.json" \
		-- sh -c "$build/workloads/mremap_folios --iterations 20 >/dev/null" >/dev/null 2>&1
done
n_calls() { python3 -c 'import json,sys; print([h["total"] for h in json.load(open(sys.argv[1]))["histograms"] if h["name"] == "mremap latency"][0])' "$1"; }
check "hist -- sh -c CMD: the child's 20 mremap calls are traced; with --no-inherit none" \
	"[[ \$(n_calls $tmp/inherit.json) == 20 && \$(n_calls $tmp/no-inherit.json) == 0 ]]"
# -i: each interval's histograms on stderr with a timestamp, the report
# (here JSON) untouched on stdout.
"$pc" hist -i 1 --duration 2.5 --format json >"$tmp/iv.json" 2>"$tmp/iv.err"
check "hist -i 1 --duration 2.5: two stamped intervals on stderr, the JSON report intact" \
	"[[ \$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} \(the last 1 s\)$' $tmp/iv.err) == 2 ]] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $tmp/iv.json"
# --cgroup: the 20 mremap calls of a task in the cgroup count, the 7 of
# one outside do not.  The banner says when the programs are attached.
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [[ -z $cgroot ]]; then
	ok "hist --cgroup: only the cgroup's tasks # SKIP no cgroup v2 mounted"
else
	cg=$cgroot/ptecheck-test.$$
	mkdir "$cg"
	"$pc" hist --cgroup "$cg" --duration 5 --format json --output "$tmp/cg.json" 2>"$tmp/cg.err" &
	hp=$!
	wait_for_line "$tmp/cg.err" 'programs attached'
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $build/workloads/mremap_folios --iterations 20 >/dev/null"
	"$build/workloads/mremap_folios" --iterations 7 >/dev/null
	wait $hp
	rmdir "$cg"
	check "hist --cgroup: the cgroup's task's 20 mremap calls, not the 7 of one outside" \
		"[[ \$(n_calls $tmp/cg.json) == 20 ]]"
fi
# The syscalls are told apart by number at raw_syscalls:sys_enter/exit: 50
# i386 syscalls numbered as mremap is in the 64-bit table (x86_64 only)
# are not mremap calls; the helper's one 64-bit mremap is.
if [[ -x $build/tests/compat_syscalls ]]; then
	"$build/tests/compat_syscalls" 1 >/dev/null 2>"$tmp/compat.err"
	if [[ $? -eq 4 ]]; then
		ok "hist: a compat syscall is not taken for mremap # SKIP $(sed 's/^compat_syscalls: //' "$tmp/compat.err")"
	else
		"$pc" hist --format json --output "$tmp/compat.json" -- "$build/tests/compat_syscalls" 50 \
			>/dev/null 2>&1
		check "hist: 50 i386 syscalls of mremap's 64-bit number are not mremap calls, the one mremap is" \
			"[[ \$(n_calls $tmp/compat.json) == 1 ]]"
	fi
fi
# The report never shares stdout with the command's output.
"$pc" watch -- sh -c 'echo data' >"$tmp/cmd.out" 2>"$tmp/cmd.err"
check "watch -- CMD: CMD's stdout is its own, the report on stderr" \
	"[[ \$(cat $tmp/cmd.out) == data ]] && grep -q 'kernel-log' $tmp/cmd.err"
"$pc" hist -- true 2>"$tmp/hist.txt" >/dev/null
check "hist text: no counts of checks it did not run" "! grep -q 'passed, ' $tmp/hist.txt && ! grep -q '^stats:' $tmp/hist.txt"
"$pc" -v hist -- true 2>"$tmp/hist-v.txt" >/dev/null
for h in "mremap PTEs per batch" "fault-around PTEs per set_pte_range"; do
	check "hist shows '$h' or -v says why not" \
		"grep -q '^$h (' $tmp/hist-v.txt || grep -q '^note: not shown: $h: ..' $tmp/hist-v.txt"
done
# Without -v, what hist cannot show is one line, not a note each.
n_not=$(grep -c '^note: not shown: ' "$tmp/hist-v.txt")
check "hist: the $n_not histograms it cannot show are one line without -v" \
	"! grep -q '^note: not shown: ' $tmp/hist.txt && { [[ $n_not -eq 0 ]] || grep -q '^note: $n_not histograms not available here: ptecheck -v hist lists them' $tmp/hist.txt; }"
check "hist --format json validates" \
	"python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' $tmp/hist.json $src/docs/report-schema.json"

tap_end
