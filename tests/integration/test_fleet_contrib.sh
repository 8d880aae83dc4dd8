#!/usr/bin/env bash
# What docs/fleet.md gives operators, checked by the tools that will read
# it: the alerting rules by `promtool check rules` and their unit tests by
# `promtool test rules`, the systemd unit by `systemd-analyze verify` (and
# its sandbox by `systemd-analyze security --offline`), the Grafana
# dashboard as JSON; and every ptecheck_ metric they name is one of the
# metrics contract's (docs/fleet.md), so a typo cannot hide an alert.
# Needs no root.  TAP; exit 0 pass, 1 fail, 4 skip (no promtool).
set -uo pipefail
build=$(cd "${1:?usage: test_fleet_contrib.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"
contrib=$src/contrib
TAP_LOG=$tmp/log

echo "TAP version 13"
if ! command -v promtool >/dev/null; then
	echo "1..0 # SKIP no promtool (scripts/install-deps installs prometheus)"
	exit 4
fi
check "promtool check rules: ptecheck-rules.yml" \
	"promtool check rules $contrib/prometheus/ptecheck-rules.yml >$TAP_LOG 2>&1"
check "promtool test rules: violation, exporter down, batching share against offset 1w" \
	"(cd $contrib/prometheus && promtool test rules ptecheck-rules.test.yml) >$TAP_LOG 2>&1"

unit=$contrib/systemd/ptecheck-export.service
if command -v systemd-analyze >/dev/null; then
	# verify wants ExecStart's binary to exist: the one just built.
	sed "s#/usr/local/bin/ptecheck#$build/ptecheck#" "$unit" >"$tmp/ptecheck-export.service"
	check "systemd-analyze verify: ptecheck-export.service, no warning" \
		"systemd-analyze verify $tmp/ptecheck-export.service >$TAP_LOG 2>&1 && [[ ! -s $TAP_LOG ]]"
	check "systemd-analyze security: exposure 5.0 or less (OK)" \
		"systemd-analyze security --offline=yes --threshold=50 $tmp/ptecheck-export.service >$TAP_LOG 2>&1"
else
	nr=$((nr + 1))
	echo "ok $nr - systemd-analyze verify # SKIP no systemd-analyze"
fi
for want in 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYSLOG$' \
	'^NoNewPrivileges=yes' '^ProtectSystem=strict' '^ProtectHome=yes' '^PrivateTmp=yes' \
	'^RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX$' '--listen 127.0.0.1:'; do
	check "unit has $want" "grep -Eq -- '$want' $unit"
done

check "contrib/grafana/ptecheck.json is JSON with panels" \
	"python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d[\"panels\"] and all(p[\"targets\"] for p in d[\"panels\"])' $contrib/grafana/ptecheck.json >$TAP_LOG 2>&1"

# The contract's names (docs/fleet.md's table), and what Prometheus derives.
sed -n '/<!-- metrics-contract -->/,/<!-- \/metrics-contract -->/p' "$src/docs/fleet.md" |
	grep -oE '^\| `ptecheck_[a-z_]+' | sed 's/^| `//' | sort -u >"$tmp/contract"
check "docs/fleet.md lists the metrics contract (10 or more names)" "[[ \$(wc -l <$tmp/contract) -ge 10 ]]"
for f in prometheus/ptecheck-rules.yml prometheus/ptecheck-rules.test.yml grafana/ptecheck.json; do
	grep -oE 'ptecheck_[a-z_]+' "$contrib/$f" | sed -E 's/_(bucket|count|sum)$//' | sort -u >"$tmp/used"
	unknown=$(comm -23 "$tmp/used" "$tmp/contract" | tr '\n' ' ')
	check "$f names contract metrics only${unknown:+ (unknown: $unknown)}" "[[ -z '$unknown' ]]"
done
tap_end
