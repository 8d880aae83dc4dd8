#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The JUnit XML of run/watch (report/report_junit.c) and of the gate
# (gate/output_junit.c) as CI reads it: each fixture test_junit writes is
# validated by xmllint against tests/data/junit.xsd (the subset of the
# Jenkins and GitLab format ptecheck writes) and read by a JUnit consumer,
# Debian's python3-junitparser (tests/unit/junit_check.py), whose
# testcases must be the results, rules and checks the JSON of the same
# report or gate gives.  Then the same tools must refuse files broken on
# purpose: a validation that cannot fail proves nothing.
#
# Usage: junit_parse.sh BUILD_DIR.  Prints TAP; exits 0 if all passed.
set -u

build=$1
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
xsd=$src/tests/data/junit.xsd
checker=$src/tests/unit/junit_check.py
# Debian's interpreter: the one python3-junitparser is installed for.
py=/usr/bin/python3
n=0
fails=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n $1"
	[[ -s $tmp/out ]] && sed 's/^/# /' "$tmp/out"
}
# check NAME CMD...: CMD must succeed.
check() {
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
# refuse NAME CMD...: CMD must fail.
refuse() {
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then not_ok "$name"; else ok "$name"; fi
}

echo "TAP version 13"
if ! command -v xmllint >/dev/null || ! "$py" -c 'import junitparser' 2>/dev/null; then
	echo "not ok 1 xmllint and python3-junitparser present (scripts/install-deps installs them)"
	echo "1..1"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check "test_junit writes the fixtures" "$build/tests/test_junit" "$tmp"
for f in run run-v kmsg empty; do
	check "$f.xml valid by the schema" xmllint --noout --schema "$xsd" "$tmp/$f.xml"
	v=()
	[[ $f == run-v ]] && v=(--verbose)
	check "$f.xml parsed: the report's results, statuses and counts" \
		"$py" "$checker" --report "$tmp/$f.json" "${v[@]}" "$tmp/$f.xml"
done
for f in gate-noship gate-warn; do
	check "$f.xml valid by the schema" xmllint --noout --schema "$xsd" "$tmp/$f.xml"
	check "$f.xml parsed: the gate's rules and checks, the warning said" \
		"$py" "$checker" --gate "$tmp/$f.json" "$tmp/$f.xml"
done

# Broken on purpose, each in one way: break IN OUT SED-SCRIPT (a script
# that changes nothing is a failure of its own).
break_file() {
	sed "$3" "$tmp/$1" >"$tmp/$2"
	if cmp -s "$tmp/$1" "$tmp/$2"; then
		: >"$tmp/out"
		not_ok "$2: the sed script changed nothing"
	fi
}
break_file run.xml b1.xml 's/<testsuites \(.*\)errors="0"/<testsuites \1errors="0" skipped="2"/'
refuse "schema refuses skipped on testsuites (Jenkins xUnit does)" \
	xmllint --noout --schema "$xsd" "$tmp/b1.xml"
break_file run.xml b2.xml \
	'0,/<\/testcase>/s//<\/testcase>\n<testcase classname="ptecheck.mremap" name="moved [oracle:pagemap]"\/>/'
refuse "schema refuses a testcase named twice" xmllint --noout --schema "$xsd" "$tmp/b2.xml"
break_file run.xml b3.xml 's/<skipped message="[^"]*"/<skipped/'
refuse "schema refuses a skip without its reason" xmllint --noout --schema "$xsd" "$tmp/b3.xml"
printf '<testsuites tests="0" failures="0" errors="0">\x01</testsuites>\n' >"$tmp/b4.xml"
refuse "xmllint refuses a control character XML 1.0 forbids" xmllint --noout "$tmp/b4.xml"
break_file run.xml b5.xml '0,/failures="2"/s//failures="1"/'
refuse "parser test refuses a count the testcases do not give" \
	"$py" "$checker" --report "$tmp/run.json" "$tmp/b5.xml"
refuse "parser test refuses testcases the report does not have" \
	"$py" "$checker" --report "$tmp/kmsg.json" "$tmp/run.xml"
break_file gate-warn.xml b6.xml 's/<system-out>WARN: /<system-out>/'
refuse "parser test refuses a warning not said" \
	"$py" "$checker" --gate "$tmp/gate-warn.json" "$tmp/b6.xml"

echo "1..$n"
[[ $fails -eq 0 ]]
