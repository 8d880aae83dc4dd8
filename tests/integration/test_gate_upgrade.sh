#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gate/gate-upgrade passes the run's options to the guests and reuses only
# reports run the same way, with a vmtest of recorded reports
# (PTECHECK_VMTEST: it copies tests/data/noise/x86_64-7-run1.json and
# logs the ptecheck command line it was given), the real kernel-fetch
# (kernel 7, cached after the first fetch) and the real gate:
#   (a) --skip-known-bugs reaches `ptecheck run` in every guest, is kept
#       beside each report (A-K-runN.options), and the summary and the
#       decisions say the known bugs were left out;
#   (b) --reuse with the same option boots no guest;
#   (c) --reuse without it runs the guests again, saying why, and their
#       command lines no longer carry it;
#   (d) a report of an earlier recipe (no .options file) is reused by a
#       run without options, not by one with --skip-known-bugs.
# No guest boots: seconds.
#
# Usage: bash test_gate_upgrade.sh BUILD_DIR
# Prints TAP; exits 0 all passed, 1 something failed.

set -u

# shellcheck source=tests/integration/lib/args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/args.sh"
test_args test_gate_upgrade "$@"
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"

if ! "$ROOT/guest/kernel-fetch" fetch --arch amd64 7 >"$tmp/fetch.out" 2>"$tmp/fetch.err"; then
	echo "1..0 # SKIP kernel-fetch could not fetch kernel 7: $(tail -n 1 "$tmp/fetch.err")"
	exit 4
fi

cat >"$tmp/vmtest" <<EOF
#!/bin/bash
out=
while [ \$# -gt 0 ]; do
	case \$1 in
	--output) out=\$2; shift ;;
	--) shift; break ;;
	esac
	shift
done
echo "\$*" >>"$tmp/argv"
cp "$ROOT/tests/data/noise/x86_64-7-run1.json" "\$out"
echo "vmtest: accel: tcg (a recorded report)" >&2
exit 0
EOF
chmod +x "$tmp/vmtest"
export PTECHECK_VMTEST=$tmp/vmtest
up=$tmp/up

# upgrade ARGS...: the recipe on x86_64 kernel 7 alone, two runs (--noise:
# one kernel, no step); its exit in rc, its stdout and stderr in
# up.out and up.err.
upgrade() {
	"$ROOT/gate/gate-upgrade" --noise --chain 7 --arch x86_64 --runs 2 --out "$up" \
		--ptecheck "$PTECHECK" "$@" >"$tmp/up.out" 2>"$tmp/up.err"
	rc=$?
}
calls() { if [ -f "$tmp/argv" ]; then wc -l <"$tmp/argv"; else echo 0; fi; }

# (a)
upgrade --skip-known-bugs
if [ $rc -eq 0 ] && [ "$(calls)" -eq 2 ] &&
	[ "$(grep -c -- '^run --scale 4 --skip-known-bugs$' "$tmp/argv")" -eq 2 ] &&
	[ "$(cat "$up/x86_64-7-run1.options")" = --skip-known-bugs ] &&
	grep -q "run options: --skip-known-bugs" "$up/summary.txt" &&
	grep -q "known bugs left out (--skip-known-bugs)" "$tmp/up.out"; then
	ok "--skip-known-bugs: in both guests' ptecheck run, kept beside the reports, said"
else
	not_ok "--skip-known-bugs reaches the guests (exit $rc)" \
		"$(cat "$tmp/argv" "$tmp/up.out" "$tmp/up.err" 2>&1)"
fi

# (b)
upgrade --skip-known-bugs --reuse
if [ $rc -eq 0 ] && [ "$(calls)" -eq 2 ] && [ "$(grep -c "reusing $up/x86_64-7-run" "$tmp/up.err")" -eq 2 ]; then
	ok "--reuse with the same --skip-known-bugs: both reports reused, no guest"
else
	not_ok "--reuse with the same option: no guest (exit $rc)" "$(cat "$tmp/up.out" "$tmp/up.err")"
fi

# (c)
upgrade --reuse
if [ $rc -eq 0 ] && [ "$(calls)" -eq 4 ] &&
	[ "$(tail -n 2 "$tmp/argv" | grep -c -- '^run --scale 4$')" -eq 2 ] &&
	grep -q "not reusing $up/x86_64-7-run1.json: run with options '--skip-known-bugs', not 'none'" "$tmp/up.err" &&
	[ -z "$(cat "$up/x86_64-7-run1.options")" ] && ! grep -q "known bugs left out" "$tmp/up.out"; then
	ok "--reuse without --skip-known-bugs: the guests run again without it, saying why"
else
	not_ok "--reuse without the option runs again (exit $rc)" \
		"$(cat "$tmp/argv" "$tmp/up.out" "$tmp/up.err" 2>&1)"
fi

# (d)
rm -f "$up"/*.options
upgrade --reuse
n_plain=$(calls)
upgrade --reuse --skip-known-bugs
if [ "$n_plain" -eq 4 ] && [ $rc -eq 0 ] && [ "$(calls)" -eq 6 ] &&
	grep -q "not reusing $up/x86_64-7-run2.json: run with options 'none', not '--skip-known-bugs'" "$tmp/up.err"; then
	ok "a report without .options: reused without options, run again with --skip-known-bugs"
else
	not_ok "a report of an earlier recipe (no .options): reuse by options (exit $rc, $n_plain)" \
		"$(cat "$tmp/argv" "$tmp/up.out" "$tmp/up.err" 2>&1)"
fi

tap_end
