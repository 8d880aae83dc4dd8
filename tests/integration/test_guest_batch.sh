#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The batch histograms against a workload of known shape, in QEMU guests of
# Debian kernels: `ptecheck hist --format json -- batch --json`, where
# workloads/batch makes N 64 KiB folios (it counts the order-4 ones from
# kpageflags, F in all, F1 in the first half, F2 in the second), forks a
# child that exits at once, mprotects PROT_READ and back, mlocks and
# munlocks, MADV_DONTNEED's the first half and munmaps the rest.  The
# buckets asserted are what the kernel's code says it batches:
#   - zap (mm/memory.c zap_present_ptes) calls folio_pte_batch for a large
#     folio only, up to the folio's end inside the PMD and VMA, and removes
#     the rmap of the whole batch: munmap F2, MADV_DONTNEED F1, the child's
#     exit F batches, all of 16 PTEs;
#   - mlock and munlock (mm/mlock.c folio_mlock_step) batch each folio: F
#     batches of 16 each;
#   - fork (copy_present_ptes) batches with folio_pte_batch_flags, inline:
#     on arm64 set_ptes and wrprotect_ptes pass the batch to
#     contpte_set_ptes / contpte_wrprotect_ptes (which only see nr > 1): F
#     batches of 16 each;
#   - mprotect (change_pte_range, batched since 7.x) hands each folio to
#     arm64's modify_prot_start_ptes, which clears it with
#     contpte_get_and_clear_full_ptes, and to set_ptes (contpte_set_ptes):
#     2F batches of 16 for the two calls;
# on 7.x x86_64 and arm64 (folio_pte_batch out of line), and on 6.12
# (folio_pte_batch inline: not shown; on arm64 no batched mprotect:
# modify_prot_start_ptes absent, a named skip) the rmap and contpte ones.
# Each guest boots in seconds with KVM, a few minutes under TCG.
#
# Usage: bash test_guest_batch.sh BUILD_DIR   (unused: guests get static
# builds of their own from guest/build-guest)
# Prints TAP; exits 0 all passed, 1 something failed, 4 nothing could run
# (no QEMU, or no kernel in the cache and no network).

set -u

if [ -z "${1:-}" ]; then
	echo "usage: bash $0 BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_guest_batch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# shellcheck source=tests/integration/lib/pool.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/pool.sh"

# The guest's command: the histograms and the workload's shape, one JSON.
read -r -d '' GUEST_CMD <<'EOF'
ptecheck hist --format json --output /tmp/hist.json -- batch --json --size 1M >/tmp/wl.json
rc=$?
[ -s /tmp/wl.json ] || echo null >/tmp/wl.json
[ -s /tmp/hist.json ] || echo null >/tmp/hist.json
printf '{"rc":%d,"workload":' "$rc"; cat /tmp/wl.json
printf ',"hist":'; cat /tmp/hist.json; echo '}'
exit $rc
EOF

# Asserts on the guest's JSON: prints one line per assertion, "ok|not ok
# TEXT", then the histograms seen (for the log).
assert() {
	python3 - "$@" <<'EOF'
import json, sys

doc = json.load(open(sys.argv[1]))
arch, spec = sys.argv[2], sys.argv[3]
wl, rep = doc["workload"], doc["hist"]
hists = {h["name"]: h for h in (rep or {}).get("histograms", [])}
lines = []


def say(ok, text):
    lines.append(("ok " if ok else "not ok ") + text)


def buckets(name):
    h = hists.get(name)
    return None if h is None else [(b["low"], b["high"], b["count"]) for b in h["buckets"]]


def all16(name, n):  # every batch of name is 16 PTEs, and there are n of them
    b = buckets(name)
    got = "absent" if b is None else b
    say(b == [(16, 16, n)], f"'{name}': {n} batches, all of 16 PTEs (got {got})")


def at16(name, n, at_least=False):  # n batches of 16 (others may be there)
    b = buckets(name)
    c = None if b is None else sum(k for lo, hi, k in b if lo == 16 and hi == 16)
    ok = c is not None and (c >= n if at_least else c == n)
    say(ok, f"'{name}': {'at least ' if at_least else ''}{n} batches of 16 PTEs (got {c}; {b})")


def note(text):
    got = [n for n in rep.get("notes", []) if text in n]
    say(bool(got), f"a note says '{text}' ({got[0] if got else 'none'})")


if doc["rc"] != 0 or not wl or not rep:
    say(False, f"hist -- batch ran (exit {doc['rc']})")
    print("\n".join(lines))
    sys.exit(0)
F, F1, F2 = wl["folios_order4"], wl["folios_order4_first_half"], wl["folios_order4_second_half"]
orders = wl["folios_by_order"]
want_f = wl["size"] // 65536 * wl["iterations"]
say(F == want_f and sum(orders) == F,
    f"the workload made {want_f} 64 KiB folios and nothing else (kpageflags: {F}, by order {orders})")
fpb = "folio_pte_batch"
rmap = "folio_remove_rmap_ptes"
clear = "contpte_*clear_full_ptes"
if spec == "7":
    all16(f"munmap PTEs per batch ({fpb})", F2)
    all16(f"madvise DONTNEED PTEs per batch ({fpb})", F1)
    all16(f"mlock PTEs per batch ({fpb})", F)
    all16(f"munlock PTEs per batch ({fpb})", F)
    at16(f"exit PTEs per batch ({fpb})", F)
else:
    note(f"not shown: batch histograms ({fpb})")
# The derived runs (the page-table walk at syscall entry) see what the
# kernel had to batch: the same folios, on every kernel.
walk = "PTEs per large-folio run (derived)"
all16(f"munmap {walk}", F2)
all16(f"madvise DONTNEED {walk}", F1)
all16(f"mlock {walk}", F)
all16(f"munlock {walk}", F)
all16(f"munmap PTEs per batch ({rmap})", F2)
all16(f"madvise DONTNEED PTEs per batch ({rmap})", F1)
at16(f"exit PTEs per batch ({rmap})", F)
if arch == "arm64":
    all16("fork PTEs per batch (contpte_set_ptes)", F)
    all16("fork PTEs per batch (contpte_wrprotect_ptes)", F)
    at16("page fault PTEs per batch (contpte_set_ptes)", F, at_least=True)
    all16(f"munmap PTEs per batch ({clear})", F2)
    all16(f"madvise DONTNEED PTEs per batch ({clear})", F1)
    at16(f"exit PTEs per batch ({clear})", F)
    if spec == "7":
        at16("mprotect PTEs per batch (modify_prot_start_ptes)", 2 * F)
        at16(f"mprotect PTEs per batch ({clear})", 2 * F)
        at16("mprotect PTEs per batch (contpte_set_ptes)", 2 * F)
    else:
        note("not shown: batch histograms (modify_prot_start_ptes)")
else:
    note("not shown: batch histograms (contpte_set_ptes)")
print("\n".join(lines))
for name, h in sorted(hists.items()):
    if "per batch (" in name or "(derived)" in name:
        print("# " + name + ": " + " ".join(f"{b['low']}-{b['high']}:{b['count']}"
                                             for b in h["buckets"]))
EOF
}

if ! command -v qemu-system-x86_64 >/dev/null || ! command -v qemu-system-aarch64 >/dev/null; then
	echo "1..0 # SKIP QEMU not installed (scripts/install-deps --guest)"
	exit 4
fi
if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 not found"
	exit 4
fi

# batch_boot ARCH SPEC BUILD: one guest; vmtest's exit status in $out.rc.
batch_boot() {
	local out=$tmp/$1-$2
	"$ROOT/guest/vmtest" --arch "$1" --package "$2" --build-dir "$3" \
		--timeout 600 --output "$out.json" --guest-cmd "$GUEST_CMD" 2>"$out.err"
	echo $? >"$out.rc"
}

# Builds and kernels first, then the boots two at a time (lib/pool.sh),
# then each judged in the table's order.
cases=("x86_64 7" "arm64 7" "x86_64 6.12" "arm64 6.12")
declare -A build # static guest builds, once per architecture
for case in "${cases[@]}"; do
	read -r arch spec <<<"$case"
	out=$tmp/$arch-$spec deb_arch=amd64
	[ "$arch" = arm64 ] && deb_arch=arm64
	if [ -z "${build[$arch]:-}" ]; then
		# The build directory is the last line build-guest prints.
		if ! built=$("$ROOT/guest/build-guest" "$arch" 2>"$tmp/build-$arch.err"); then
			build[$arch]=failed
			echo "build" >"$out.rc"
			continue
		fi
		build[$arch]=$(tail -n 1 <<<"$built")
	fi
	if [ "${build[$arch]}" = failed ]; then
		echo "build" >"$out.rc"
	elif ! "$ROOT/guest/kernel-fetch" fetch --arch "$deb_arch" "$spec" >/dev/null 2>"$out.fetch"; then
		echo "fetch" >"$out.rc"
	else
		pool_go batch_boot "$arch" "$spec" "${build[$arch]}"
	fi
done
pool_drain

ran=0
built_said=
for case in "${cases[@]}"; do
	read -r arch spec <<<"$case"
	out=$tmp/$arch-$spec
	rc=$(cat "$out.rc" 2>/dev/null || echo 1)
	if [ "$rc" = build ]; then
		case " $built_said " in
		*" $arch "*) ;;
		*)
			not_ok "static $arch build for the guest" "guest/build-guest $arch failed" \
				"$tmp/build-$arch.err"
			built_said="$built_said $arch"
			;;
		esac
		continue
	fi
	if [ "$rc" = fetch ]; then
		skip "$arch $spec guest: batch histograms" "kernel $spec not cached and not downloadable"
		continue
	fi
	ran=$((ran + 1))
	if [ "$rc" != 0 ] || ! lines=$(assert "$out.json" "$arch" "$spec" 2>&1); then
		not_ok "$arch $spec guest: hist -- batch (exit $rc)" "${lines:-no report}" "$out.err"
		continue
	fi
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$arch $spec guest: ${line#ok }" ;;
		"not ok "*) not_ok "$arch $spec guest: ${line#not ok }" ;;
		*) echo "$line" ;;
		esac
	done <<<"$lines"
done

echo "1..$nr"
[ "$nr_fail" -gt 0 ] && exit 1
[ $ran -eq 0 ] && exit 4
exit 0
