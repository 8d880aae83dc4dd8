#!/usr/bin/env bash
# Integration test of ptecheck export on the running kernel: /metrics over
# real HTTP (counters grow and never fall, promtool accepts the output,
# Content-Type 0.0.4), bad input to the server (404, 405, a malformed
# request line, a 1 MiB header, a stalled client, 100 connections at once)
# while it keeps answering, an injected kernel-log splat counted and logged
# as a JSON line, SIGHUP reopening --log, --textfile written atomically, and
# SIGTERM exiting 0 with no BPF link left; one program at each syscall
# tracepoint.
# TAP output; exit 0 pass, 1 fail, 4 skip (not root).
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/integration/lib/tap.sh
source "$src/tests/integration/lib/tap.sh"
# shellcheck source=tests/integration/lib/wait.sh
source "$src/tests/integration/lib/wait.sh"
# shellcheck source=tests/integration/lib/prometheus.sh
source "$src/tests/integration/lib/prometheus.sh" # export_start
echo "TAP version 13"
build=${1:?usage: test_export.sh BUILD_DIR}
pc=$build/ptecheck
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
if [[ $(id -u) -ne 0 ]]; then
	echo "1..0 # SKIP needs root for BPF"
	exit 4
fi
if ! "$pc" export --help | grep -q -- --listen; then
	echo "1..0 # SKIP ptecheck export not built"
	exit 4
fi
TAP_LOG=$tmp/err

# Usage errors come before anything is attached.
"$pc" export --listen 127.0.0.1:http >/dev/null 2>"$tmp/usage"
check "--listen with a non-numeric port: exit 2" "[[ $? -eq 2 ]] && grep -q 'not a port' $tmp/usage"
"$pc" export --listen 127.0.0.1:65536 >/dev/null 2>&1
check "--listen with a port past 65535: exit 2" "[[ $? -eq 2 ]]"

links_before=$(bpftool link list | grep -c '^[0-9]')
# Links at raw_syscalls:NAME (run at every syscall of the system: one
# program for every part, bpf/syscalls.bpf.c).
sys_links() { bpftool link list -j | python3 -c 'import json, sys
print(sum(l.get("tp_name") == sys.argv[1] for l in json.load(sys.stdin)))' "$1"; }
sys_before="$(sys_links sys_enter) $(sys_links sys_exit)"
# A port taken: exit 3 before anything is attached.  The holder binds a
# port the kernel picks and keeps it (no window in which another takes it).
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(20)' >"$tmp/held" &
holder=$!
wait_for_line "$tmp/held" '^[0-9]+$' 100
"$pc" export --listen "127.0.0.1:$(cat "$tmp/held")" --duration 5 >/dev/null 2>"$tmp/taken"
check "a port taken: exit 3, said, nothing attached" \
	"[[ $? -eq 3 ]] && grep -q 'Address already in use' $tmp/taken && [[ \$(bpftool link list | grep -c '^[0-9]') -eq $links_before ]]"
kill "$holder"
wait "$holder" 2>/dev/null
mkdir "$tmp/tf"
export_start "$pc" "$tmp/err" -i 1 --textfile "$tmp/tf" --log "$tmp/v.log" \
	--log-user-lines --comm mremap_folios
started=$?
pid=$export_pid port=$export_port url=$export_url
if [[ $started -ne 0 ]]; then
	not_ok "export starts and attaches" "" "$tmp/err"
	tap_end
fi
ok "export starts, serves and attaches"
check "export attached BPF links" "(( \$(bpftool link list | grep -c '^[0-9]') > links_before ))"
# Read by the check's expression, which check evaluates.
# shellcheck disable=SC2034
read -r enter0 exit0 <<<"$sys_before"
check "one program at raw_syscalls:sys_enter and one at sys_exit for every part" \
	"(( \$(sys_links sys_enter) == enter0 + 1 && \$(sys_links sys_exit) == exit0 + 1 ))"

"$build/workloads/mremap_folios" --iterations 50 >/dev/null
sleep 1.5
curl -sS -D "$tmp/h1" -o "$tmp/m1" "$url"
check "GET /metrics: 200 with Content-Type text/plain; version=0.0.4" \
	"grep -qi '^HTTP/1.1 200' $tmp/h1 && grep -qi '^Content-Type: text/plain; version=0.0.4' $tmp/h1"
"$build/workloads/mremap_folios" --iterations 50 >/dev/null
sleep 1.5
curl -sS -o "$tmp/m2" "$url"
# Every counter sample of m1 is in m2, none smaller; the judged ones grew.
python3 - "$tmp/m1" "$tmp/m2" >"$tmp/cmp" 2>&1 <<'PY'
import sys
def samples(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        series, value = line.rsplit(" ", 1)
        out[series] = float(value)
    return out
a, b = samples(sys.argv[1]), samples(sys.argv[2])
gauges = ("ptecheck_up", "ptecheck_start_time_seconds", "ptecheck_build_info",
          "ptecheck_sample_every", "ptecheck_check_tier_info")
fell = [s for s in a if not s.startswith(gauges) and b.get(s, -1) < a[s]]
judged = lambda m: sum(v for s, v in m.items() if s.startswith("ptecheck_checks_judged_total{"))
viol = sum(v for s, v in b.items() if s.startswith("ptecheck_violations_total{"))
print("judged", judged(a), judged(b), "violations", viol, "fell", fell)
sys.exit(0 if not fell and 0 < judged(a) < judged(b) and viol == 0 else 1)
PY
check "counters never fall, the judged ones grew, no violation ($(cat "$tmp/cmp"))" "[[ $? -eq 0 ]]"
check "promtool check metrics accepts /metrics" "promtool check metrics <$tmp/m2 >$tmp/lint 2>&1"
check "export's default judges 1 in 16 windows, and says so: ptecheck_sample_every 16" \
	"grep -qx 'ptecheck_sample_every 16' $tmp/m2"
check "mremap latency is a histogram of 100 calls" \
	"grep -qx 'ptecheck_mremap_latency_seconds_count 100' $tmp/m2"

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "GET /nope: 404" "[[ \$(code http://127.0.0.1:$port/nope) == 404 ]]"
check "POST /metrics: 405" "[[ \$(code -X POST -d x=1 $url) == 405 ]]"

# Raw sockets: what curl will not send.
python3 - "$port" >"$tmp/bad" 2>&1 <<'PY'
import socket, sys, threading, time, urllib.request
port = int(sys.argv[1])
url = "http://127.0.0.1:%d/metrics" % port
fails = []
def metrics_ok(timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status == 200 and b"ptecheck_up 1" in r.read()
def raw(data, timeout=15):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
    except OSError:
        pass  # the server may close while we still send
    try:
        return s.recv(200)
    except OSError:
        return b""
    finally:
        s.close()
# A stalled client: half a request, then nothing.
slow = socket.create_connection(("127.0.0.1", port), timeout=30)
slow.sendall(b"GET /metr")
t0 = time.time()
t = time.time()
if not metrics_ok():
    fails.append("no answer while a client stalls")
print("GET while a client stalls: %.2f s" % (time.time() - t))
r = raw(b"\x00\x01GARBAGE\r\n\r\n")
print("malformed line:", r[:40])
if r and not r.startswith(b"HTTP/1.1 4"):
    fails.append("malformed line answered %r" % r[:40])
r = raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
print("1 MiB header:", r[:40])
if r and not r.startswith(b"HTTP/1.1 4"):
    fails.append("1 MiB header answered %r" % r[:40])
ok = []
def one():
    try:
        ok.append(metrics_ok(20))
    except Exception as e:
        print("concurrent:", e)
threads = [threading.Thread(target=one) for _ in range(100)]
for th in threads:
    th.start()
for th in threads:
    th.join()
print("100 at once: %d answered" % sum(ok))
if sum(ok) != 100:
    fails.append("%d of 100 concurrent answered" % sum(ok))
if not metrics_ok():
    fails.append("no answer after the bad input")
try:
    left = slow.recv(10)
except OSError:
    left = b""
print("stalled client closed after %.1f s (%r)" % (time.time() - t0, left[:20]))
if time.time() - t0 > 14:
    fails.append("the stalled client was held %.1f s" % (time.time() - t0))
print("\n".join(fails))
sys.exit(1 if fails else 0)
PY
rc=$?
sed 's/^/# /' "$tmp/bad"
check "bad input: malformed, 1 MiB header, a stalled client, 100 at once; still answering" \
	"[[ $rc -eq 0 ]]"

# A splat in the kernel log: counted by rule and logged with its lines.
printf '<4>%s\n' "BUG: Bad page map in process export_test  pte:8000000107a4d867" >/dev/kmsg
if wait_for_line "$tmp/v.log" '"check":"kernel-log"' 80; then
	ok "the splat is a JSON line in --log"
else
	not_ok "the splat is a JSON line in --log" "$(cat "$tmp/v.log")"
fi
# The metrics are rebuilt once a second; a loaded machine may take longer
# (seen beside two QEMU guests): up to 10 s, the first match ends it, and
# the scrape after it must still say 1.  Each scrape is kept whole in a
# file: `curl | grep -q` under pipefail failed when grep's early exit cut
# curl off (SIGPIPE, exit 23), and the file is the evidence on failure.
for _ in $(seq 50); do
	echo "-- $(date +%s.%N)" >>"$tmp/splats"
	curl -s "$url" | grep kernel_log >>"$tmp/splats"
	grep -qx 'ptecheck_kernel_log_splats_total{rule="bad-page-map"} 1' "$tmp/splats" && break
	sleep 0.2
done
echo "-- again $(date +%s.%N)" >>"$tmp/splats"
curl -s "$url" | grep kernel_log >>"$tmp/splats"
if [ "$(grep -cx 'ptecheck_kernel_log_splats_total{rule="bad-page-map"} 1' "$tmp/splats")" -ge 2 ]; then
	ok "the splat is counted: ptecheck_kernel_log_splats_total{rule=\"bad-page-map\"} 1"
else
	not_ok "the splat is counted: ptecheck_kernel_log_splats_total{rule=\"bad-page-map\"} 1" "$(cat "$tmp/splats")"
fi
# logrotate: the file moved, SIGHUP, a new one.
mv "$tmp/v.log" "$tmp/v.log.1"
kill -HUP "$pid"
for _ in $(seq 30); do [ -e "$tmp/v.log" ] && break; sleep 0.1; done
check "SIGHUP reopens --log (a new file) and export goes on" \
	"[[ -e $tmp/v.log ]] && kill -0 $pid && [[ \$(code $url) == 200 ]]"

check "--textfile: promtool accepts DIR/ptecheck.prom" \
	"promtool check metrics <$tmp/tf/ptecheck.prom >$tmp/lint2 2>&1"
check "--textfile: no temporary file left" "[[ \$(ls -A $tmp/tf) == ptecheck.prom ]]"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM: exit 0" "[[ $rc -eq 0 ]]"
check "no BPF link left attached" "[[ \$(bpftool link list | grep -c '^[0-9]') -eq $links_before ]]"
check "nothing serves the port any more" "! curl -s -m 2 -o /dev/null $url"

# A scrape right after a workload sees it, whatever -i (default 15 s,
# the --textfile pace): the exposition is at most a second old.  And the
# other histograms hist shows are there (the TLB flushes per call).
export_start "$pc" "$tmp/err2" --comm mremap_folios --duration 30
started=$?
pid=$export_pid url=$export_url
if [[ $started -eq 0 ]]; then
	"$build/workloads/mremap_folios" --iterations 40 >/dev/null
	sleep 1.3
	curl -sS -o "$tmp/m3" "$url"
	n=$(sed -n 's/^ptecheck_mremap_latency_seconds_count \([0-9]*\)$/\1/p' "$tmp/m3")
	check "a scrape 1.3 s after a workload (-i 15) sees its 40 mremap calls ($n)" "[[ '$n' == 40 ]]"
	check "every other histogram hist shows is exported by id (mremap/tlb-flushes)" \
		"grep -q '^ptecheck_distribution_count{id=\"mremap/tlb-flushes\",unit=\"flushes\"} 40$' $tmp/m3"
	check "check_tier_info: a series per state, 1 for one of them" \
		"[[ \$(grep -c '^ptecheck_check_tier_info{check=\"mremap/moved\",tier=\"kernel:syscall-walk\",state=' $tmp/m3) == 3 ]] && grep -q '^ptecheck_check_tier_info{check=\"mremap/moved\",tier=\"kernel:syscall-walk\",state=\"pass\"} 1$' $tmp/m3"
	check "promtool accepts it" "promtool check metrics <$tmp/m3 >$tmp/lint3 2>&1"
else
	not_ok "export (-i 15) starts and attaches" "" "$tmp/err2"
fi
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	wait "$pid"
	pid=
fi
tap_end
