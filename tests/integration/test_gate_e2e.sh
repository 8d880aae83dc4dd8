#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `ptecheck gate` end to end on real guest reports:
#   (a) x86_64 6.1 (baseline) -> x86_64 7 (candidate), `run --suite mremap
#       --scale 4` in a QEMU guest each: ships (exit 0) and lists batching or
#       coverage improvements in its JSON output;
#   (b) the candidate with one result flipped to "fail": does not ship (exit
#       1), naming that check and the rule invariant-failure;
#   (c) a truncated copy of a report: bad input (exit 2) with a message;
#   (d) the JUnit output parses as XML (python3 xml.etree), has no <failure>
#       for (a) and one for the check of (b);
#   (e) the HTML page is produced and self-contained: an inline <svg>, no
#       http:// or https:// reference (XML namespace names aside);
# That the gate does not cry wolf on two boots of one kernel, every suite,
# is test_guest_suites.sh's (it has one of the boots already).
# Two guests boot under TCG, 10 to 20 s each.
#
# Usage: bash test_gate_e2e.sh BUILD_DIR   (BUILD_DIR/ptecheck gates; the
# guests get static builds of their own from guest/build-guest)
# Prints TAP; exits 0 all passed, 1 something failed, 4 skipped (no
# 'ptecheck gate' yet, no QEMU, or no kernel in the cache and no network).

set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_gate_e2e "$@"
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/pool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/pool.sh"
if [ ! -x "$PTECHECK" ] || ! "$PTECHECK" gate --help >/dev/null 2>&1; then
	echo "1..0 # SKIP no 'ptecheck gate' in $PTECHECK"
	exit 4
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP QEMU not installed (scripts/install-deps --guest)"
	exit 4
fi

for spec in 6.1 7; do
	if ! "$ROOT/guest/kernel-fetch" fetch --arch amd64 "$spec" >/dev/null 2>"$tmp/fetch-$spec.err"; then
		echo "1..0 # SKIP kernel $spec (amd64) not cached and not downloadable"
		exit 4
	fi
done

if ! build=$("$ROOT/guest/build-guest" x86_64 2>"$tmp/build.err" | tail -n 1) || [ ! -x "$build/ptecheck" ]; then
	not_ok "static x86_64 build for the guest" "guest/build-guest x86_64 failed" "$tmp/build.err"
	tap_end
fi
ok "static x86_64 build for the guest ($build)"

# The two guest reports, the boots side by side (lib/pool.sh).
report_boot() {
	local out=$tmp/x86_64-$1
	"$ROOT/guest/vmtest" --arch x86_64 --package "$1" --build-dir "$build" --timeout 300 \
		--format json --output "$out.json" -- run --suite mremap --scale 4 2>"$out.err"
	echo $? >"$out.rc"
}
for spec in 6.1 7; do
	pool_go report_boot "$spec"
done
pool_drain
for spec in 6.1 7; do
	out=$tmp/x86_64-$spec
	rc=$(cat "$out.rc" 2>/dev/null || echo 1)
	if [ "$rc" -ne 0 ] || [ ! -s "$out.json" ]; then
		not_ok "x86_64 $spec guest: mremap suite report (vmtest exit $rc)" "" "$out.err"
		tap_end
	fi
	ok "x86_64 $spec guest: mremap suite report ($(grep -o '"passed": *[0-9]*' "$out.json" | head -n 1))"
done
base=$tmp/x86_64-6.1.json
cand=$tmp/x86_64-7.json

# gate NAME ARGS...: runs ptecheck gate with every output into $tmp/NAME.*;
# sets rc.
gate() {
	local name=$1
	shift
	"$PTECHECK" gate --junit "$tmp/$name.junit.xml" --html "$tmp/$name.html" \
		--tap "$tmp/$name.tap" --json "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# Questions about gate outputs, answered in python3; prints the answer,
# exits 1 when no.
ask() {
	python3 - "$@" <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET

what = sys.argv[1]


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: not JSON: {e}")
        sys.exit(1)


if what == "improvements":  # gate.json: an improvement about batching or coverage
    doc = load(sys.argv[2])
    imps = [i.get("text", "") for i in doc.get("improvements") or [] if isinstance(i, dict)]
    hits = [t for t in imps if re.search("batching|coverage", t, re.I)]
    print(f"{len(imps)} improvements, e.g. {hits[0][:120]}" if hits else
          f"{len(imps)} improvements, none about batching or coverage")
    sys.exit(0 if hits else 1)
if what == "decision-text":  # out check tier: DO NOT SHIP, a line naming rule and check
    lines = open(sys.argv[2], errors="replace").read().splitlines()
    name = f"{sys.argv[3]} [{sys.argv[4]}]"
    hit = [l for l in lines if "invariant-failure" in l and name in l]
    if not lines or lines[0].strip() != "DO NOT SHIP" or not hit:
        print(f"want 'DO NOT SHIP' first and a line naming invariant-failure and {name}")
        sys.exit(1)
    print(f"says: {hit[0].strip()[:150]}")
    sys.exit(0)
if what == "decision-json":  # gate.json check tier: do-not-ship by invariant-failure on it
    doc = load(sys.argv[2])
    name = f"{sys.argv[3]} [{sys.argv[4]}]"
    rules = [r for r in doc.get("rules") or [] if r.get("rule") == "invariant-failure"
             and r.get("fails_gate") and any(x.get("problem") and name in (x.get("text") or "")
                                             for x in r.get("reasons") or [])]
    ok = doc.get("decision") == "do-not-ship" and doc.get("exit_code") == 1 and rules
    print(f'decision {doc.get("decision")}, exit_code {doc.get("exit_code")}, '
          f"{len(rules)} failing invariant-failure rule(s) naming {name}")
    sys.exit(0 if ok else 1)
if what == "junit":  # file want-failure [check]: well-formed; <failure> or none
    try:
        root = ET.parse(sys.argv[2]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"not well-formed XML: {e}")
        sys.exit(1)
    cases = list(root.iter("testcase"))
    fails = [(c, f) for c in cases for f in c.findall("failure")]
    want = sys.argv[3] == "yes"
    if want:
        check = sys.argv[4]
        named = [c for c, f in fails
                 if check in (c.get("name", "") + c.get("classname", "") +
                              (f.get("message") or "") + (f.text or ""))]
        print(f"{len(cases)} testcases, {len(fails)} failures, {len(named)} naming {check}")
        sys.exit(0 if named else 1)
    print(f"{len(cases)} testcases, {len(fails)} failures")
    sys.exit(0 if cases and not fails else 1)
if what == "html":  # file: an inline <svg>, nothing fetched from the network
    text = open(sys.argv[2], errors="replace").read()
    # XML namespace names are identifiers, not references.
    stripped = re.sub(r'xmlns(:\w+)?\s*=\s*"[^"]*"', "", text)
    refs = re.findall(r"https?://[^\s\"'<>)]*", stripped)
    svg = "<svg" in text
    print(f"{len(text)} bytes, <svg: {'yes' if svg else 'no'}, "
          f"network references: {', '.join(refs[:3]) if refs else 'none'}")
    sys.exit(0 if svg and not refs and "</html>" in text.lower() else 1)
if what == "flip":  # in out: the first passing kernel-tier result fails
    r = json.load(open(sys.argv[2]))
    res = [x for x in r["results"] if x["status"] == "pass"]
    res.sort(key=lambda x: (not x["tier"].startswith("kernel:"), x["check"]))
    x = res[0]
    x["status"] = "fail"
    x["violations"] = max(1, x["violations"])
    x["summary"] = "crafted by test_gate_e2e.sh: one violation"
    x["evidence"] = [{"pid": 1, "addr": "0x7f0000000000", "new_addr": "0x7f0000100000",
                      "expected": "0x1", "seen": "0x0", "what": "present PTE lost"}]
    s = r["summary"]
    s["passed"] -= 1
    s["failed"] += 1
    s["exit_code"] = 1
    json.dump(r, open(sys.argv[3], "w"), indent=2)
    print(f'{x["check"]} {x["tier"]}')
    sys.exit(0)
sys.exit(2)
EOF
}

# (a) 6.1 -> 7 ships, with improvements.
gate ship --baseline "$base" "$cand"
if [ $rc -eq 0 ]; then
	ok "(a) 6.1 -> 7 on x86_64 ships (exit 0)"
else
	not_ok "(a) 6.1 -> 7 on x86_64 ships (exit $rc)" "$(cat "$tmp/ship.out")" "$tmp/ship.err"
fi
if why=$(ask improvements "$tmp/ship.json"); then
	ok "(a) gate JSON lists a batching or coverage improvement ($why)"
else
	not_ok "(a) gate JSON lists a batching or coverage improvement" "$why"
fi

# (b) one result flipped to fail: do not ship, naming the check and the rule.
if ! flipped=$(ask flip "$cand" "$tmp/failing.json"); then
	not_ok "(b) crafting a failing report" "$flipped"
else
	check=${flipped%% *}
	gate fail --baseline "$base" "$tmp/failing.json"
	if [ $rc -eq 1 ]; then
		ok "(b) a report with $flipped failing does not ship (exit 1)"
	else
		not_ok "(b) a report with $flipped failing does not ship (exit $rc)" \
			"$(cat "$tmp/fail.out")" "$tmp/fail.err"
	fi
	# shellcheck disable=SC2086 # $flipped is "check tier"
	if why=$(ask decision-text "$tmp/fail.out" $flipped); then
		ok "(b) the decision names $flipped and invariant-failure ($why)"
	else
		not_ok "(b) the decision names $flipped and invariant-failure" "$why
$(head -n 5 "$tmp/fail.out")"
	fi
	# shellcheck disable=SC2086
	if why=$(ask decision-json "$tmp/fail.json" $flipped); then
		ok "(b) the JSON decision: $why"
	else
		not_ok "(b) the JSON decision: do-not-ship by invariant-failure on $flipped" "$why"
	fi
fi

# (c) a truncated report is bad input.
head -c "$(($(wc -c <"$cand") / 2))" "$cand" >"$tmp/truncated.json"
gate trunc --baseline "$base" "$tmp/truncated.json"
if [ $rc -eq 2 ] && grep -q truncated.json "$tmp/trunc.err"; then
	ok "(c) a truncated report is bad input (exit 2: $(head -n 1 "$tmp/trunc.err"))"
else
	not_ok "(c) a truncated report is bad input (exit $rc, want 2 and a message naming the file)" \
		"$(cat "$tmp/trunc.out")" "$tmp/trunc.err"
fi

# (d) JUnit.
if why=$(ask junit "$tmp/ship.junit.xml" no); then
	ok "(d) JUnit of the shipping gate is well-formed, no <failure> ($why)"
else
	not_ok "(d) JUnit of the shipping gate is well-formed, no <failure>" "$why"
fi
if [ -n "${check:-}" ]; then
	if why=$(ask junit "$tmp/fail.junit.xml" yes "$check"); then
		ok "(d) JUnit of the failing gate is well-formed, a <failure> for $check ($why)"
	else
		not_ok "(d) JUnit of the failing gate is well-formed, a <failure> for $check" "$why"
	fi
fi

# (e) HTML.
for name in ship fail; do
	if [ ! -s "$tmp/$name.html" ]; then
		not_ok "(e) HTML page of the $name gate produced" "no $tmp/$name.html"
	elif why=$(ask html "$tmp/$name.html"); then
		ok "(e) HTML page of the $name gate is self-contained ($why)"
	else
		not_ok "(e) HTML page of the $name gate is self-contained" "$why"
	fi
done

tap_end
