#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Integration test of `ptecheck bench`: a --quick run's JSON is well
# formed (--repeat 2: two pairs a row, not --quick's three, for CI's time;
# two still make a median of several ratios), every row is either
# measured (positive ratios, min <= median <= max) or skipped/not
# applicable with a reason, the exit code agrees with the rows,
# bad arguments exit 2, a bench waiting for the machine lock ends on a
# signal, and nothing is left behind (mTHP settings, mounts).
# No timing is asserted.  The JSON is kept as $BUILD_DIR/bench.json (a CI
# artefact).  TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
build=${1:?usage: test_bench.sh BUILD_DIR}
pc=$build/ptecheck
tmp=$(mktemp -d)
trap 'umount "$tmp/fsdir" 2>/dev/null; rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/wait.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/wait.sh"

echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP ptecheck bench needs root (BPF, mTHP settings, loop devices)"
	exit 4
fi
mthp=/sys/kernel/mm/transparent_hugepage
before=$(cat $mthp/hugepages-64kB/enabled $mthp/hugepages-64kB/shmem_enabled \
	$mthp/hugepages-2048kB/enabled 2>/dev/null)

"$pc" bench --help >"$tmp/help" 2>&1
check "bench --help exits 0" "[[ $? -eq 0 ]] && grep -q -- '--quick' $tmp/help"
for bad in "--repeat 0" "--repeat x" "--format xml" "--only no-such-row" "--cpu -3" "extra" \
	"--fs-dir /nonexistent"; do
	# shellcheck disable=SC2086
	"$pc" bench $bad >/dev/null 2>&1
	rc=$?
	check "bench $bad exits 2 (rc=$rc)" "[[ $rc -eq 2 ]]"
done

# --fs-dir where the journal-data flag cannot be set (a tmpfs of the
# test's own: shmem refuses it): the row is skipped naming the flag, never
# measured some other way, and nothing is left in the directory.
# guest/vmtest -- bench gives it the scratch ext4 (docs/performance.md has
# a measured run).
mkdir -p "$tmp/fsdir"
mount -t tmpfs -o size=1m ptecheck-test "$tmp/fsdir"
"$pc" bench --quick --only filemap-fault --fs-dir "$tmp/fsdir" --format json \
	--output "$tmp/fsdir.json" 2>/dev/null
rc=$?
check "bench --fs-dir on a directory without the journal-data flag: row skipped, why said (rc=$rc)" \
	"[[ $rc -eq 3 ]] && python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); row = r[\"rows\"][0]; assert r[\"options\"][\"fs_dir\"] == sys.argv[2] and row[\"status\"] == \"skipped\" and \"chattr +j\" in row[\"reason\"], row' $tmp/fsdir.json $tmp/fsdir && [[ -z \$(ls -A $tmp/fsdir) ]]"
umount "$tmp/fsdir"

start=$SECONDS
"$pc" bench --quick --repeat 2 --format json --output "$tmp/bench.json" 2>"$tmp/bench.err"
rc=$?
echo "# bench --quick took $((SECONDS - start)) s, exit $rc"
sed 's/^/# /' "$tmp/bench.err" | tail -20
cp "$tmp/bench.json" "$build/bench.json" 2>/dev/null
check "bench --quick exits 0 or 3 (rc=$rc)" "[[ $rc -eq 0 || $rc -eq 3 ]]"
if python3 - "$tmp/bench.json" "$rc" >"$tmp/check.out" 2>&1 <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert doc["schema"] == "ptecheck-bench" and doc["schema_version"] == 1, "schema"
assert doc["options"]["quick"] is True and doc["options"]["repeat"] == 2, doc["options"]
assert doc["platform"]["kind"] in ("host", "virtualized", "emulated"), doc["platform"]
rows = {r["name"]: r for r in doc["rows"]}
want = ["mremap-folios", "mremap-pmd", "filemap-fault", "contpte-mlock", "load-attach",
        "start-exit-hist", "start-exit-watch"]
want += ["overhead-%s-%s" % (w, t) for w in ("mremap-folios", "filemap-fault")
         for t in ("hist", "watch", "empty-bpf", "bpftrace")]
want += ["export-%s-%s" % (w, m) for w in ("mremap-folios", "filemap-fault")
         for m in ("hist-only", "checks", "sample-16")]
missing = [w for w in want if w not in rows]
assert not missing, "rows missing: %s" % missing
skipped = 0
for r in doc["rows"]:
    name, st = r["name"], r["status"]
    assert r["table"] in ("figures", "overhead", "export"), name
    assert r["kind"] in ("speedup", "slowdown", "seconds"), name
    if st == "measured":
        # --repeat's pairs for each ratio; load-attach's one measure is no pair
        assert r["pairs"] == (1 if r["kind"] == "seconds" else 2), (name, r["pairs"])
        assert len(r["ratios"]) == r["pairs"], name
        assert all(x > 0 for x in r["ratios"]), "%s: ratios %r" % (name, r["ratios"])
        assert 0 < r["min"] <= r["median"] <= r["max"], "%s: %r" % (name, r)
        assert r["timing"] == doc["platform"]["kind"], name
        for side in ("a", "b"):
            if side in r:
                assert r[side]["median"] > 0 and r[side]["label"], (name, side)
        if r.get("invalid"):
            assert r["table"] in ("overhead", "export") and r.get("target_met") is None, name
        if name.endswith("-empty-bpf"):
            # the floor attaches what the tracing session does, not nothing
            assert 0 < r["links"] <= rows["load-attach"].get("links", 0), (name, r["links"])
        if name.endswith("-empty-bpf") and r["median"] < 0.97:
            assert r.get("invalid"), "%s: a floor below 0.97 not invalid" % name
        print("%-36s %s %.3f [%.3f..%.3f]%s" % (name, r["kind"], r["median"], r["min"], r["max"],
                                                " INVALID" if r.get("invalid") else ""))
    elif st in ("skipped", "not-applicable"):
        assert r.get("reason"), "%s: %s without a reason" % (name, st)
        skipped += st == "skipped"
        print("%-36s %s: %s" % (name, st, r["reason"]))
    else:
        raise AssertionError("%s: status %r" % (name, st))
s = doc["summary"]
assert s["measured"] + s["skipped"] + s["not_applicable"] == len(doc["rows"]), s
assert s["skipped"] == skipped, s
assert doc["exit_code"] == rc == (3 if skipped else 0), "exit %d, %d skipped" % (rc, skipped)
EOF
	ok "bench JSON well formed: every row measured or skipped with a reason"
else
	not_ok "bench JSON well formed: every row measured or skipped with a reason"
fi
sed 's/^/# /' "$tmp/check.out"

"$pc" bench --quick --only load-attach >"$tmp/text" 2>/dev/null
rc=$?
check "bench --only load-attach (text) exits 0 or 3 (rc=$rc)" "[[ $rc -eq 0 || $rc -eq 3 ]]"
check "text report has both tables and the row" \
	"grep -q '^Figures' $tmp/text && grep -q '^Overhead' $tmp/text && grep -q 'load-attach' $tmp/text"

# Waiting for another run's /run/ptecheck.lock: bench says so, and a signal
# ends it as its default action (docs/bad-input.md), nothing changed yet.
exec {lk}>/run/ptecheck.lock
flock -x "$lk"
"$pc" bench --quick --only load-attach >/dev/null 2>"$tmp/wait.err" {lk}>&- &
bpid=$!
wait_for_line "$tmp/wait.err" 'in progress; waiting'
kill -TERM "$bpid"
wait "$bpid"
rc=$?
exec {lk}>&-
check "bench waiting for the lock says so and dies by SIGTERM (rc=$rc)" \
	"[[ $rc -eq 143 ]] && grep -q 'another ptecheck run or bench is in progress; waiting' $tmp/wait.err"

after=$(cat $mthp/hugepages-64kB/enabled $mthp/hugepages-64kB/shmem_enabled \
	$mthp/hugepages-2048kB/enabled 2>/dev/null)
check "mTHP settings restored" "[[ \"$before\" == \"$after\" ]]"
check "no scratch filesystem left mounted" "! grep -q ptecheck-bench /proc/self/mounts"

tap_end
