# shellcheck shell=bash
# A real Prometheus (Debian's `prometheus`) for a test, on 127.0.0.1 only,
# with its TSDB in a temporary directory:
#   free_port                     prints a TCP port free on 127.0.0.1 now
#   export_start PC ERR ARGS...   PC export --listen on a free port with
#                                 ARGS in the background, stderr in ERR
#                                 (export_pid, export_port, export_url);
#                                 true once its programs are attached,
#                                 false if it exits or has not in 30 s
#   prom_start DIR TARGET [LABEL] scrapes http://TARGET/metrics every 1 s
#                                 (job "ptecheck"); DIR holds its config,
#                                 data and log; false when it is not ready
#                                 within 30 s (its log on stderr)
#   prom_stop                     ends it (the caller's EXIT trap calls this)
#   prom_query EXPR               the instant query's first value (empty: no
#                                 result); false when the API says error
#   prom_wait_scrapes N [S]       true once N scrapes of the target succeeded
#                                 (within S seconds, default 20)
#   prom_wait EXPR [S]            true once EXPR has a result that is not 0
# Needs curl and python3 (the API's JSON).
prom_pid=
prom_url=
export_pid=
export_port=
export_url=

# The kernel's pick (bind to port 0), released: another process may take
# it before the caller binds it (a test runs beside this one under ctest
# -j2, and connections take ports from the same range), so the starters
# below try again on another port when theirs was taken.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# export_url is for the caller.
# shellcheck disable=SC2034
export_start() {
	local pc=$1 err=$2 try _

	shift 2
	for try in 1 2 3; do
		export_port=$(free_port) || return 1
		export_url=http://127.0.0.1:$export_port/metrics
		"$pc" export --listen "127.0.0.1:$export_port" "$@" >/dev/null 2>"$err" &
		export_pid=$!
		for _ in $(seq 300); do
			grep -q 'programs attached' "$err" && return 0
			kill -0 "$export_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$export_pid" 2>/dev/null && return 1
		wait "$export_pid"
		export_pid=
		grep -q 'Address already in use' "$err" || return 1
		echo "# port $export_port was taken before export bound it (try $try)"
	done
	return 1
}

prom_start() {
	local dir=$1 target=$2 port i try

	mkdir -p "$dir/data"
	cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ptecheck
    static_configs:
      - targets: ['$target']
EOF
	for try in 1 2 3; do
		port=$(free_port) || return 1
		prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
			--web.listen-address="127.0.0.1:$port" --log.level=warn >"$dir/prometheus.log" 2>&1 &
		prom_pid=$!
		prom_url="http://127.0.0.1:$port"
		for i in $(seq 300); do
			if curl -fsS "$prom_url/-/ready" >/dev/null 2>&1; then
				return 0
			fi
			kill -0 "$prom_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$prom_pid" 2>/dev/null && break
		wait "$prom_pid"
		prom_pid=
		grep -q 'address already in use' "$dir/prometheus.log" || break
		echo "# port $port was taken before prometheus bound it (try $try)" >&2
	done
	echo "prometheus not ready after ${i} tenths of a second:" >&2
	tail -n 20 "$dir/prometheus.log" >&2
	return 1
}

prom_stop() {
	[[ -n $prom_pid ]] || return 0
	kill "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	prom_pid=
}

prom_query() {
	curl -sS "$prom_url/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("status") != "success":
    sys.exit("query error: %s" % d.get("error"))
r = d["data"]["result"]
if d["data"]["resultType"] == "scalar":
    print(r[1])
elif r:
    print(r[0]["value"][1])
'
}

# True once EXPR's first value is there and not 0, within S seconds.
prom_wait() {
	local v _

	for _ in $(seq $((${2:-20} * 5))); do
		v=$(prom_query "$1" 2>/dev/null)
		[[ -n $v && $v != 0 ]] && return 0
		sleep 0.2
	done
	return 1
}

prom_wait_scrapes() {
	prom_wait "sum_over_time(up{job=\"ptecheck\"}[5m]) >= $1" "${2:-20}"
}
