# shellcheck shell=bash
# A real Prometheus (Debian's `prometheus`) for a test, on 127.0.0.1 only,
# with its TSDB in a temporary directory:
#   free_port                     prints a TCP port free on 127.0.0.1 now
#   export_start PC ERR ARGS...   PC export --listen 127.0.0.1:0 (the port
#                                 it says) with ARGS in the background,
#                                 stderr in ERR (export_pid, export_port,
#                                 export_url);
#                                 true once its programs are attached,
#                                 false if it exits or has not in 30 s
#   prom_start DIR TARGET         scrapes http://TARGET/metrics every 1 s
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
served_pid=
served_port=

# The kernel's pick (bind to port 0), released: another process may take
# it before the caller binds it (a test runs beside this one under ctest
# -j2, and connections take ports from the same range), so a server
# started on it tries again on another when its was taken
# (serve_on_free_port; export needs none: it binds port 0).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve_on_free_port WHAT LOG TAKEN START READY: START PORT launches a
# server in the background (the caller takes $!) writing LOG; READY is
# true once it serves.  A server that exits with TAKEN (a regex) in LOG
# lost its port to another process: another port, three tries at most.
# Sets served_port and served_pid; false when it exits otherwise or is
# not ready within 30 s (served_pid still set, for the caller to end).
serve_on_free_port() {
	local what=$1 log=$2 taken=$3 start=$4 ready=$5 try _

	for try in 1 2 3; do
		served_port=$(free_port) || return 1
		"$start" "$served_port"
		served_pid=$!
		for _ in $(seq 300); do
			"$ready" && return 0
			kill -0 "$served_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$served_pid" 2>/dev/null && return 1
		wait "$served_pid"
		served_pid=
		grep -qE "$taken" "$log" || return 1
		echo "# port $served_port was taken before $what bound it (try $try)" >&2
	done
	return 1
}

# export_pid, export_port and export_url are for the caller.
# shellcheck disable=SC2034
export_start() {
	local pc=$1 err=$2 _

	shift 2
	# Port 0: export binds a port the kernel picks and says which, so no
	# other process can take it between the pick and the bind.
	"$pc" export --listen 127.0.0.1:0 "$@" >/dev/null 2>"$err" &
	export_pid=$!
	for _ in $(seq 300); do
		if grep -q 'programs attached' "$err"; then
			export_port=$(sed -n 's|^ptecheck export: serving http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$err")
			export_url=http://127.0.0.1:$export_port/metrics
			[[ -n $export_port ]]
			return
		fi
		kill -0 "$export_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$export_pid" 2>/dev/null || export_pid=
	return 1
}

# For prom_launch.
prom_dir=

prom_launch() {
	prom_url=http://127.0.0.1:$1
	prometheus --config.file="$prom_dir/prometheus.yml" --storage.tsdb.path="$prom_dir/data" \
		--web.listen-address="127.0.0.1:$1" --log.level=warn >"$prom_dir/prometheus.log" 2>&1 &
}
prom_ready() { curl -fsS "$prom_url/-/ready" >/dev/null 2>&1; }

prom_start() {
	local target=$2 rc=0

	prom_dir=$1
	mkdir -p "$prom_dir/data"
	cat >"$prom_dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ptecheck
    static_configs:
      - targets: ['$target']
EOF
	serve_on_free_port prometheus "$prom_dir/prometheus.log" 'address already in use' \
		prom_launch prom_ready || rc=$?
	prom_pid=$served_pid
	if ((rc)); then
		echo "prometheus not ready within 30 s:" >&2
		tail -n 20 "$prom_dir/prometheus.log" >&2
	fi
	return $rc
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
