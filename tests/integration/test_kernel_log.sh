#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-log check end to end (docs/kernel-log.md): on this correct
# kernel every suite's kernel-log passes; a splat written into the log
# while a run is in progress fails that suite's check with the line as
# evidence; lines from before the run are never blamed; a user rule may
# ignore a default; a bad rule file is a usage error; `watch` shows a
# splat live.  Splats are injected by writing to /dev/kmsg, which makes
# them user-space records: --log-user-lines lets the check judge those.
# TAP output; exit 0 pass, 1 fail, 4 skip.  About 40 s.
set -uo pipefail
build=${1:?usage: test_kernel_log.sh BUILD_DIR}
pc=$build/ptecheck
tmp=$(mktemp -d)
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=tests/integration/lib/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
# splat REPORT: its kernel-log results, for a failure's diagnostics.
kmsg_results() { grep -E -A6 '^(FAIL|SKIP).*kernel-log' "$1"; }

echo "TAP version 13"
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root"
	exit 4
fi
if ! : </dev/kmsg 2>/dev/null || ! : >/dev/kmsg 2>/dev/null; then
	echo "1..0 # SKIP /dev/kmsg cannot be read and written here"
	exit 4
fi

# status FILE.json CHECK: pass/fail/skip of CHECK's kernel-log result.
status() {
	python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print(next((x["status"] for x in r["results"] if x["check"]==sys.argv[2]), "missing"))' "$1" "$2"
}
splat='BUG: Bad page map in process mremap_folios  pte:8000000112345067'
inject() { printf '<4>%s\n' "$1" >/dev/kmsg; }

# 1. A correct kernel: every suite's kernel-log passes.
"$pc" run --format json --output "$tmp/all.json" >/dev/null 2>"$tmp/all.err"
for suite in mremap filemap contpte; do
	st=$(status "$tmp/all.json" "$suite/kernel-log")
	if [[ $st == pass ]]; then
		ok "$suite/kernel-log passes on this kernel"
	else
		not_ok "$suite/kernel-log passes on this kernel (got $st)"
	fi
done

# 2. Lines written before the run are not blamed on it.
inject "$splat"
"$pc" run --suite mremap --log-user-lines --format json --output "$tmp/before.json" \
	>/dev/null 2>&1
st=$(status "$tmp/before.json" mremap/kernel-log)
[[ $st == pass ]] && ok "a splat from before the run is not blamed" ||
	not_ok "a splat from before the run is not blamed (got $st)"

# 3. A splat during the run fails the suite, with the line as evidence; its
#    text reaches stderr live.  --stress keeps the suite busy for 4 s.
run_injected() { # OUT ARGS...: a run into OUT.{txt,err}, a splat 2 s in
	local out=$1
	shift
	"$pc" run --suite mremap --stress 4 "$@" >"$out.txt" 2>"$out.err" &
	local p=$!
	bg+=("$p")
	sleep 2
	inject "$splat"
	wait "$p"
}
run_injected "$tmp/inj" --log-user-lines
rc=$?
if [[ $rc -eq 1 ]] && grep -q '^FAIL  mremap/kernel-log' "$tmp/inj.txt" &&
	grep -qF "| $splat" "$tmp/inj.txt"; then
	ok "an injected splat fails mremap/kernel-log with its line (exit 1)"
else
	not_ok "an injected splat fails mremap/kernel-log with its line (exit $rc)" "$(kmsg_results "$tmp/inj.txt")"
fi
grep -qF 'bad-page-map: ' "$tmp/inj.txt" && ok "the evidence names the rule" ||
	not_ok "the evidence names the rule" "$(kmsg_results "$tmp/inj.txt")"

# 4. Without --log-user-lines, text user space writes is not the kernel's.
run_injected "$tmp/user"
rc=$?
if [[ $rc -eq 0 ]] && grep -q '^PASS  mremap/kernel-log' "$tmp/user.txt"; then
	ok "a user-space line is not a kernel splat by default (exit 0)"
else
	not_ok "a user-space line is not a kernel splat by default (exit $rc)" "$(kmsg_results "$tmp/user.txt")"
fi

# 5. A user rule that ignores it wins over the default.
printf '# ours: a known harmless report\nignore known-map ^BUG: Bad page map in process mremap_folios\n' \
	>"$tmp/rules"
run_injected "$tmp/ign" --log-user-lines --log-rules "$tmp/rules"
rc=$?
if [[ $rc -eq 0 ]] && grep -q '^PASS  mremap/kernel-log.*1 lines matched ignore rules' "$tmp/ign.txt"; then
	ok "--log-rules: a user 'ignore' rule comes before the defaults"
else
	not_ok "--log-rules: a user 'ignore' rule comes before the defaults (exit $rc)" "$(kmsg_results "$tmp/ign.txt")"
fi

# 6. A bad rule file is a usage error naming file:line; nothing runs.
printf 'fail ok-name ^x\nfial typo ^y\n' >"$tmp/bad"
"$pc" run --suite mremap --log-rules "$tmp/bad" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
if [[ $rc -eq 2 ]] && grep -qF "$tmp/bad:2" "$tmp/bad.err" && [[ ! -s $tmp/bad.out ]]; then
	ok "a bad --log-rules file: exit 2, file:line named, no report"
else
	not_ok "a bad --log-rules file: exit 2, file:line named (exit $rc: $(head -c 200 "$tmp/bad.err"))"
fi
"$pc" run --suite mremap --log-rules /nonexistent/rules >/dev/null 2>"$tmp/miss.err"
rc=$?
[[ $rc -eq 2 ]] && ok "a missing --log-rules file: exit 2 ($(head -c 120 "$tmp/miss.err"))" ||
	not_ok "a missing --log-rules file: exit 2 (exit $rc)"

# 7. watch: the splat is shown live on stderr and fails watch's check.
"$pc" watch --duration 6 --log-user-lines >"$tmp/w.txt" 2>"$tmp/w.err" &
p=$!
bg+=("$p")
sleep 1.5
inject 'BUG: Bad rss-counter state mm:00000000c0ffee00 type:MM_ANONPAGES val:-1 Comm:victim Pid:4321'
sleep 3.5
if grep -qF 'kernel log: bad-rss-counter: pid 4321 (victim)' "$tmp/w.err"; then
	ok "watch shows the splat live, before it ends"
else
	not_ok "watch shows the splat live, before it ends"
fi
wait "$p"
rc=$?
if [[ $rc -eq 1 ]] && grep -q '^FAIL  kernel-log' "$tmp/w.txt"; then
	ok "watch: the splat fails its kernel-log check (exit 1)"
else
	not_ok "watch: the splat fails its kernel-log check (exit $rc)" "$(kmsg_results "$tmp/w.txt")"
fi

tap_end
