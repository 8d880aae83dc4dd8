# shellcheck shell=bash
# A real Prometheus (Debian's `prometheus`) for a test, on 127.0.0.1 only,
# with its TSDB in a temporary directory:
#   free_port                     prints a TCP port free on 127.0.0.1 now
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

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

prom_start() {
	local dir=$1 target=$2 port i

	port=$(free_port) || return 1
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
