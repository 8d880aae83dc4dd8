# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# When a guest kernel dies (or hangs) during 'ptecheck run': each other
# suite of the run in a fresh boot of its own, then one report of them
# all, in which the suite the kernel died in is a failed result
# SUITE/kernel-log [console] made by 'ptecheck merge' from that boot's
# console (docs/vmtest.md, "When the kernel dies").  The gate reads it as
# an invariant failure, naming the crash.  Sourced by guest/vmtest: reads
# its globals (work, console_log, ptecheck_args, guest_cmd, output, arch,
# release, build_dir, root, timeout, q_timed_out), uses its log,
# boot_guest_once_more and guest_exit.
# shellcheck disable=SC2154,SC2034

# A scenario name as a status record may carry it.
readonly SCENARIO_RE='^[A-Za-z0-9_.+-]+$'

deaths=()      # SUITE|SCENARIO|CONSOLE|HUNG_S of each boot that died
pieces=()      # the JSON reports of the boots that finished
merge_notes=() # how the report was made, for its notes

# The job is a run whose report can be merged: 'ptecheck run', or a
# --guest-cmd (the test hook plays 'ptecheck run --format json').
is_run_job() { [[ -n $guest_cmd || ${ptecheck_args[0]:-} == run ]]; }

# run_arg LONG SHORT DEFAULT: the last value of that option among
# ptecheck's arguments (getopt's "last wins"), else DEFAULT.
run_arg() {
	local v=$3 i a=("${ptecheck_args[@]}")
	for ((i = 0; i < ${#a[@]}; i++)); do
		case ${a[i]} in
		"$1" | "$2") v=${a[i + 1]:-$v} ;;
		"$1"=*) v=${a[i]#"$1"=} ;;
		esac
	done
	echo "$v"
}

# The run's report format and suite (a --guest-cmd: json, all).
run_format() { if [[ -n $guest_cmd ]]; then echo json; else run_arg --format -f text; fi; }
run_suite() { if [[ -n $guest_cmd ]]; then echo all; else run_arg --suite -s all; fi; }

# scenario_in_progress SUITE: the last "scenario NAME" after the last
# "suite SUITE begin", or nothing.
scenario_in_progress() {
	awk -v s="$1" -v re="$SCENARIO_RE" '
		NF == 3 && $1 == "suite" && $3 == "begin" { on = ($2 == s); cur = ""; next }
		NF == 3 && $1 == "suite" && $3 == "end" { on = 0 }
		on && NF == 2 && $1 == "scenario" && $2 ~ re { cur = $2 }
		END { if (cur != "") print cur }' "$work/status"
}

# record_death SUITE: this boot died (or hung) during SUITE ("": between
# suites); its console kept as the evidence, before a next boot writes
# over it.
record_death() {
	local s=$1 tag=${1:-run} sc='' con hung=0
	con=$work/console.$tag.log
	[[ -n $s ]] && sc=$(scenario_in_progress "$s")
	cp -- "$console_log" "$con"
	log "the console of the boot that died in ${s:+suite }${s:-the run}: $con"
	[[ $q_timed_out -eq 1 ]] && hung=$timeout
	deaths+=("$s|$sc|$con|$hung")
}

# resume_others DEAD: one boot per other suite of the run (by the
# "suites" status record), each with --suite and --format json: those
# after DEAD never ran, those before it went down with the boot and its
# report.  A boot that dies too is recorded as DEAD was.
resume_others() {
	local dead=$1 list s rc sip before=1 others='' orig=("${ptecheck_args[@]}")
	list=$(suites_planned)
	for s in $list; do
		if [[ $s == "$dead" ]]; then
			before=0
			continue
		fi
		others+=${others:+, }$s
		if [[ $before -eq 1 ]]; then
			log "suite $s ran before the kernel died in $dead, its results with that boot: running it again in a fresh guest"
		else
			log "resuming with suite $s in a fresh guest (the kernel died in $dead)"
		fi
		resume_suite=$s
		[[ -z $guest_cmd ]] && ptecheck_args=("${orig[@]}" --suite "$s" --format json)
		boot_guest_once_more
		rc=$(guest_exit)
		cat "$work/stderr" >&2
		if [[ -n $rc ]]; then
			cp -- "$work/report" "$work/report.$s.json"
			pieces+=("$work/report.$s.json")
			log "suite $s: exit $rc (report $work/report.$s.json)"
		else
			console_tail
			if crashed; then
				log "FAIL: the guest kernel crashed during suite $s: $(crash_line)"
			else
				log "FAIL: suite $s: the guest did not finish (timeout ${timeout}s or no status)"
			fi
			# Died before its suite began: still that suite's boot.
			sip=$(suite_in_progress)
			record_death "${sip:-$s}"
		fi
	done
	ptecheck_args=("${orig[@]}")
	[[ -z $others ]] || merge_notes+=("guest/vmtest: the kernel died in suite $dead; the run's other suites ($others) ran in boots of their own")
}

# host_ptecheck: a ptecheck this host runs, for 'ptecheck merge': the
# build's, one on PATH, or the guest's when it is of this arch.
host_ptecheck() {
	local c
	for c in "$root/build/ptecheck" "$(command -v ptecheck || true)" "${build_dir:+$build_dir/ptecheck}"; do
		if [[ -n $c && -x $c ]] && "$c" merge --help >/dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# write_merged: the reports of the boots that finished and a failed
# result per death, as one report in the run's format, delivered as a
# finished guest's would be.  False when it could not be made.
write_merged() {
	local ptc fmt i n=${#deaths[@]} s sc con hung out args cur=("${pieces[@]}") rc note rel mach def_mach
	ptc=$(host_ptecheck) || {
		log "no report written: no ptecheck runs on this host for 'ptecheck merge' (scripts/setup builds build/ptecheck)"
		return 1
	}
	fmt=$(run_format)
	for ((i = 0; i < n; i++)); do
		IFS='|' read -r s sc con hung <<<"${deaths[i]}"
		args=(merge --suite "$(run_suite)" --died "${s:-$(run_suite)}" --console "$con")
		[[ -n $sc ]] && args+=(--scenario "$sc")
		[[ $hung -gt 0 ]] && args+=(--hung "$hung")
		if [[ ${#cur[@]} -eq 0 ]]; then
			# No boot finished: the kernel as the guest saw it, else as
			# the host knows it.
			rel=$(guest_fact release)
			mach=$(guest_fact arch)
			[[ $arch == arm64 ]] && def_mach=aarch64 || def_mach=$arch
			args+=(--release "${rel:-${release:-unknown}}" --machine "${mach:-$def_mach}")
		fi
		out=$work/merged.$i.json
		if ((i == n - 1)); then
			out=$work/merged.report
			args+=(--format "$fmt")
			for note in "${merge_notes[@]}"; do
				args+=(--note "$note")
			done
		else
			args+=(--format json)
		fi
		rc=0
		"$ptc" "${args[@]}" --output "$out" -- "${cur[@]}" || rc=$?
		if ((rc == 2 || rc == 3)); then
			log "no report written: 'ptecheck merge' failed (exit $rc)"
			return 1
		fi
		cur=("$out")
	done
	cp -- "$work/merged.report" "$work/report"
	deliver
	log "report of the boots that finished and of the kernel's death${output:+ written to $output} ($(run_format))"
}

# after_death: the run's boot died or hung during suite $1 (or between
# suites): resume the others, then write one report of it all.  Nothing
# when the job is not a run or the run never began.
after_death() {
	is_run_job || return 0
	[[ -n $(suites_planned) ]] || return 0
	record_death "$1"
	[[ -n $1 ]] && resume_others "$1"
	write_merged || true
}
