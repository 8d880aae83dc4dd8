#!/usr/bin/env bash
# Integration test of the batch path's derived source (bpf/batch_walk.bpf.c)
# on the running kernel, tracepoints only: with 64 KiB mTHP on, a workload
# of known shape (tests/integration/helpers/batch_walk.c: N 64 KiB blocks,
# F order-4 folios in the first half and S in the second, by
# /proc/kpageflags) is mprotected (8 pages of block 0, then all), half
# MADV_DONTNEEDed, mlocked, munlocked and munmapped under `ptecheck hist --format json -- CMD`; each
# context's "<ctx> PTEs per large-folio run (derived)" histogram holds one
# run of 16 per order-4 folio still mapped, nothing else.  With mTHP off
# every folio is small: no derived histogram, the small PTEs counted; the
# pages of a range past the walk's bound are counted too.  The
# mTHP setting is restored on every exit.  Run under the itest lock.
# TAP output; exit 0 pass, 1 fail, 4 skip.
set -uo pipefail
build=${1:?usage: test_batch_walk.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pc=$build/ptecheck
shape=$build/tests/batch_walk_shape
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF and /proc/kpageflags"
	exit 4
fi
mthp=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled
if [[ ! -w $mthp || ! -x $shape ]]; then
	echo "1..0 # SKIP no 64 KiB mTHP here, or no $shape"
	exit 4
fi
tmp=$(mktemp -d)
before=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$mthp")
restore() { echo "$before" >"$mthp"; }
trap 'restore; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

"$pc" features >"$tmp/features" 2>&1
if ! grep -q '^  derived batch runs  *yes' "$tmp/features"; then
	sed 's/^/# /' "$tmp/features" | grep -i derived
	# Into a file first: grep -q ending the pipe early would kill ptecheck
	# with SIGPIPE, a failure under pipefail.
	"$pc" -v hist -- true >"$tmp/hist" 2>&1
	check "without the walk the derived source says why, and hist says it is not shown" \
		"grep -q 'not shown: batch histograms (derived): ' $tmp/hist"
	tap_end
fi
ok "features: the derived source is available here"

# hist_of FILE NAME: "low-high:count ..." of histogram NAME's non-empty
# buckets, or nothing.
hist_of() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for h in json.load(open(sys.argv[1]))["histograms"]:
    if h["name"] == sys.argv[2]:
        print(" ".join(f"{b['low']}-{b['high']}:{b['count']}" for b in h["buckets"] if b["count"]))
PY
}
valid() { python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$1" "$src/docs/report-schema.json"; }

echo always >"$mthp"
"$pc" hist --format json --output "$tmp/on.json" -- "$shape" 16 >"$tmp/shape" 2>"$tmp/on.err"
rc=$?
check "hist -- batch_walk_shape exits 0 (rc=$rc)" "[[ $rc -eq 0 ]]"
read -r _ first _ second _ block0 <"$tmp/shape"
echo "# order-4 folios: first half ${first:-?}, second half ${second:-?}, block 0 ${block0:-?}"
if [[ -z ${first:-} || $((first + second)) -eq 0 ]]; then
	not_ok "the workload got 64 KiB folios with 64 KiB mTHP on" "$(cat "$tmp/shape" "$tmp/on.err")"
	tap_end
fi
want() { [[ $1 -eq 0 ]] && echo "" || echo "16-16:$1"; }
for c in "madvise DONTNEED $second" "mlock $first" "munlock $first" "munmap $first"; do
	ctx=${c% *} n=${c##* }
	got=$(hist_of "$tmp/on.json" "$ctx PTEs per large-folio run (derived)")
	check "$ctx: one run of 16 per order-4 folio mapped ($n), nothing else (got '$got')" \
		"[[ '$got' == '$(want "$n")' ]]"
done
# mprotect: block 0's 8 pages, then its 4 + 8 + 4 (write bit, range
# ends), and 16 for every other order-4 folio.
n=$((first + second - block0))
if [[ $block0 -eq 1 ]]; then
	expect="4-4:2 8-8:2${n/#/ 16-16:}"
	[[ $n -eq 0 ]] && expect="4-4:2 8-8:2"
else
	expect=$(want "$n")
fi
got=$(hist_of "$tmp/on.json" "mprotect PTEs per large-folio run (derived)")
check "mprotect: runs end at the range's end and where the write bit differs (want '$expect', got '$got')" \
	"[[ '$got' == '$expect' ]]"
# note FILE: the derived source's note in report FILE.
note() { grep -o 'derived batch runs: [^"]*' "$1"; }
# like WHAT FILE ERE: the note matches ERE, else it is shown.
like() {
	local n
	n=$(note "$2")
	if [[ $n =~ $3 ]]; then ok "$1"; else not_ok "$1" "note: $n"; fi
}
like "the note counts the calls walked and nothing unreadable or past the bound" "$tmp/on.json" \
	'^derived batch runs: ([7-9]|[1-9][0-9]+) calls walked, [0-9]+ present PTEs read, [0-9]+ of them in small folios .*, 0 pages under huge PMDs, 0 entries or folios unreadable, 0 pages past'
check "the JSON validates against the schema" "valid '$tmp/on.json'"
check "the derived histograms say where they come from, whole" \
	"grep -q '\"source\": \"page-table walk at syscall entry: PTE runs of one large folio (not folio_pte_batch.s result)\"' '$tmp/on.json'"
check "no note of the batch path says (null)" "! grep -q '(null)' '$tmp/on.json'"

echo never >"$mthp"
"$pc" hist --format json --output "$tmp/off.json" -- "$shape" 16 >"$tmp/shape" 2>/dev/null
read -r _ first _ second _ <"$tmp/shape"
check "mTHP off: no order-4 folio" "[[ '${first:-x} ${second:-x}' == '0 0' ]]"
check "mTHP off: small folios give no derived histogram" \
	"! grep -q 'large-folio run (derived)' '$tmp/off.json'"
# 16 blocks of 16 pages written, each PTE read by mprotect, half by
# DONTNEED, the other half by mlock, munlock and munmap: all small.
like "mTHP off: the small-folio PTEs are counted, none dropped" "$tmp/off.json" \
	'^derived batch runs: ([7-9]|[1-9][0-9]+) calls walked, [0-9]+ present PTEs read, [0-9]+ of them in small folios.*, 0 entries or folios unreadable'
n=$(note "$tmp/off.json")
[[ $n =~ ([0-9]+)\ present\ PTEs\ read,\ ([0-9]+)\ of ]]
check "mTHP off: every present PTE read was of a small folio (${BASH_REMATCH[1]:-?} = ${BASH_REMATCH[2]:-?})" \
	"[[ -n '${BASH_REMATCH[1]:-}' && '${BASH_REMATCH[1]:-}' == '${BASH_REMATCH[2]:-}' ]]"
# 160 blocks: mprotect and munmap of all 2560 pages each pass the bound
# of 2048 by 512; the halves do not.
"$pc" hist --format json --output "$tmp/big.json" -- "$shape" 160 >/dev/null 2>&1
like "a range past the walk's bound: the pages not walked are counted" "$tmp/big.json" \
	', 0 entries or folios unreadable, 1024 pages past the walk.s bound \(2048 per call\) not walked$'
restore
check "64 KiB mTHP restored to '$before'" "grep -q '\\[$before\\]' '$mthp'"
tap_end
