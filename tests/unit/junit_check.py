#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reads ptecheck's JUnit XML with junitparser (Debian's python3-junitparser,
a JUnit consumer as CI tools are one) and checks it against the JSON of the
same report, which another writer produced:

  junit_check.py --report REPORT.json [--verbose] [--names-only] FILE.xml
      `ptecheck run|watch --format junit`: one testcase per result of the
      report (classname ptecheck.PATH, name "CHECK [TIER]"), with its status;
      --verbose: a testcase per scenario variant too ("CHECK [TIER] / SCEN");
      --names-only: the same testcases, statuses not compared (two runs).
  junit_check.py --gate GATE.json FILE.xml
      `ptecheck gate --format junit`: a testcase per rule per group and one
      per check of the group, with verdicts and statuses; a warning is
      first in its testcase's output; failures only when it does not ship.

Always: each testsuite's tests/failures/errors/skipped are its testcases'
counts, the testsuites' are their sums, (classname, name) is unique,
skipped and failure carry a message.  Exit 0 if all holds, else 1 with
one line per problem.

/usr/bin/python3: the interpreter Debian's package is installed for.
"""
import argparse
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


def status(case):
    """pass, fail, skip or error, from the parsed testcase."""
    kinds = [type(r) for r in case.result]
    need(len(kinds) <= 1, f"{case.classname} {case.name}: {len(kinds)} outcomes")
    for r in case.result:
        need(bool(r.message), f"{case.classname} {case.name}: {type(r).__name__} without message")
    if Failure in kinds:
        return "fail"
    if Error in kinds:
        return "error"
    if Skipped in kinds:
        return "skip"
    return "pass"


def attr(elem, name):
    v = elem._elem.get(name)
    need(v is not None, f"{elem._elem.tag} {elem.name}: no {name} attribute")
    return int(v) if v is not None else -1


def check_counts(xml):
    """Every count is what the testcases say; returns {(class, name): case}."""
    cases, total = {}, {"tests": 0, "failures": 0, "errors": 0}
    for suite in xml:
        got = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for case in suite:
            st = status(case)
            got["tests"] += 1
            got["failures"] += st == "fail"
            got["errors"] += st == "error"
            got["skipped"] += st == "skip"
            key = (case.classname, case.name)
            need(key not in cases, f"testcase {key} twice")
            cases[key] = case
        for k, v in got.items():
            need(attr(suite, k) == v, f"testsuite {suite.name}: {k}={attr(suite, k)}, testcases say {v}")
        for k in total:
            total[k] += got[k]
    for k, v in total.items():
        need(attr(xml, k) == v, f"testsuites: {k}={attr(xml, k)}, testsuites sum to {v}")
    need(xml._elem.get("skipped") is None, "testsuites has a skipped attribute (Jenkins xUnit refuses it)")
    return cases


def case_key(suite, check, tier, scenario=None):
    """A check named without its path ("kernel-log") is of the report's suite."""
    path, _, test = check.rpartition("/")
    name = f"{test} [{tier}]" + (f" / {scenario}" if scenario else "")
    return (f"ptecheck.{path or suite}", name)


def check_report(cases, report, verbose, names_only):
    want = {}
    for res in report["results"]:
        want[case_key(report["suite"], res["check"], res["tier"])] = res["status"]
        for v in res.get("variants", []) if verbose else []:
            key = case_key(report["suite"], res["check"], res["tier"], v["scenario"])
            want[key] = v["status"]
    need(set(cases) == set(want), f"testcases differ from the report: extra {sorted(set(cases) - set(want))}, missing {sorted(set(want) - set(cases))}")
    for key, st in want.items():
        if key in cases and not names_only:
            need(status(cases[key]) == st, f"{key}: junit {status(cases[key])}, report {st}")
    return len(want)


GATE_CASE = {"pass": "pass", "warn": "pass", "fail": "fail", "not-judged": "skip"}
CHECK_CASE = {"pass": "pass", "fail": "fail", "skip": "skip", "missing": "skip"}


def check_gate(xml, cases, gate):
    # A check fails only where invariant-failure does: no failure, ship.
    ship = gate["decision"] == "ship"
    need(ship == (attr(xml, "failures") == 0), f"decision {gate['decision']} with {attr(xml, 'failures')} failures")
    want = {}
    for rule in gate["rules"]:
        cls = f"ptecheck.gate.{rule['machine']}.{rule['suite']}.scale{rule['scale']}"
        key = (cls, rule["rule"])
        want[key] = GATE_CASE[rule["verdict"]]
        if rule["verdict"] == "warn" and key in cases:
            out = cases[key].system_out or ""
            need(out.startswith("WARN: "), f"{key}: a warning not first in system-out")
    for grp in gate["groups"]:
        cls = f"ptecheck.gate.{grp['machine']}.{grp['suite']}.scale{grp['scale']}.checks"
        for c in grp["checks"]:
            want[(cls, f"{c['check']} [{c['tier']}]")] = CHECK_CASE[c["candidate"]]
    need(set(cases) == set(want), f"testcases differ from the gate: extra {sorted(set(cases) - set(want))}, missing {sorted(set(want) - set(cases))}")
    for key, st in want.items():
        if key in cases:
            need(status(cases[key]) == st, f"{key}: junit {status(cases[key])}, gate {st}")
    return len(want)


def main():
    ap = argparse.ArgumentParser()
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--report")
    src.add_argument("--gate")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--names-only", action="store_true")
    ap.add_argument("xml")
    a = ap.parse_args()

    xml = JUnitXml.fromfile(a.xml)
    need(isinstance(xml, JUnitXml), "the root is not testsuites")
    cases = check_counts(xml)
    with open(a.report or a.gate) as f:
        js = json.load(f)
    if a.report:
        n = check_report(cases, js, a.verbose, a.names_only)
    else:
        n = check_gate(xml, cases, js)
    for p in problems:
        print(f"{a.xml}: {p}")
    if not problems:
        print(f"{a.xml}: {n} testcases as in {a.report or a.gate}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
