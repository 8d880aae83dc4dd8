# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# What guest/vmtest reads back from a boot: the status records of the
# ptecheck.status port (docs/vmtest.md, "Status records"), the guest facts
# and, as evidence for a crash, the console.  Sourced by guest/vmtest:
# reads its globals work and console_log, uses its log.
# shellcheck disable=SC2154,SC2034

# A suite name as a status record may carry it: it becomes part of file
# names (console.NAME.log, --output's path + ".NAME") and a --suite value.
readonly SUITE_RE='^[a-z0-9_-]+$'

# guest_exit: N of the boot's last "exit N" record, or nothing (the guest
# did not finish).
guest_exit() {
	sed -n 's/^exit \([0-9][0-9]*\)$/\1/p' "$work/status" | tail -n1
}

# suite_in_progress: the suite of the last "suite NAME begin" that no
# "suite NAME end" followed, or nothing.
suite_in_progress() {
	awk -v re="$SUITE_RE" '
		NF == 3 && $1 == "suite" && $2 ~ re && $3 == "begin" { cur = $2 }
		NF == 3 && $1 == "suite" && $2 == cur && $3 == "end" { cur = "" }
		END { if (cur != "") print cur }' "$work/status"
}

# suites_planned: the names of the last "suites NAME..." record, one line.
suites_planned() {
	awk -v re="$SUITE_RE" '
		$1 == "suites" {
			list = ""
			for (i = 2; i <= NF; i++) if ($i ~ re) list = list (list == "" ? "" : " ") $i
		}
		END { if (list != "") print list }' "$work/status"
}

# guest_fact KEY: the value of the last KEY=value line of the guest facts.
guest_fact() { sed -n "s/^$1=//p" "$work/facts" 2>/dev/null | tail -n1; }

# show_facts: the guest facts people act on, on stderr.
show_facts() {
	[[ -s $work/facts ]] || return 0
	fact() { guest_fact "$1"; }
	local w
	log "guest: release $(fact release), arch $(fact arch), cpus $(fact cpus), memory $(fact mem_total)"
	log "guest: hardware dirty bit management: $(fact hw_dirty_bit_management); page_table_check: $(fact page_table_check) (by $(fact page_table_check_from)); BTF: $(fact btf); tracefs: $(fact tracefs)"
	w=$(fact scratch)
	[[ -n $w ]] && log "guest: scratch filesystem (kind fs device): $w"
	w=$(fact kernel_warnings_during_run)
	if [[ -n $w && $w != 0 ]]; then
		log "guest: warning: the kernel logged $w WARNING/BUG line(s) during the run (see $console_log)"
	fi
	log "guest facts: $work/facts"
}

# 'kernel BUG at FILE:LINE' first: it names the BUG_ON that fired.
crash_re='kernel BUG at|Kernel panic|Oops|BUG:|Unable to handle kernel|general protection fault'
# crashed: the console shows a panic or an oops.
crashed() { grep -qE "$crash_re" "$console_log"; }
# The console's last 40 lines, stripped of the terminal escapes and CRs a
# kernel console carries.  A panic's first line can be more than 40 lines
# up (a call trace follows it): then the lines from it on come first.
console_tail() {
	local clean=$work/console.clean first total
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r$//' "$console_log" >"$clean"
	total=$(wc -l <"$clean")
	first=$(grep -n -m1 -E "$crash_re" "$clean" | cut -d: -f1) || first=''
	if [[ -n $first ]] && ((total - first >= 40)); then
		log "the guest console from its first crash line ($console_log, line $first):"
		sed -n "$((first > 2 ? first - 2 : 1)),$((first + 15))p" "$clean" | sed 's/^/  | /' >&2
		echo "  | ..." >&2
	fi
	log "last 40 lines of the guest console ($console_log):"
	tail -n 40 "$clean" | sed 's/^/  | /' >&2
	if [[ -s $work/qemu.log ]]; then
		log "QEMU said:"
		tail -n 10 "$work/qemu.log" | sed 's/^/  | /' >&2
	fi
}
crash_line() {
	grep -m1 -E "$crash_re" "$console_log" |
		sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r$//; s/^\[ *[0-9.]*\] //'
}

# scenario_times: where this boot's time went, from the "scenario-time"
# records (summed over --stress passes): each suite's seconds in run
# order and the five slowest scenarios; nothing when there are none (a
# --guest-cmd, a kernel that died before the first one ended).
scenario_times() {
	awk -v re="$SUITE_RE" '
		NF == 3 && $1 == "suite" && $3 == "begin" && $2 ~ re {
			cur = $2; if (!(cur in st)) order[n++] = cur; next
		}
		NF == 3 && $1 == "scenario-time" && cur != "" && $3 ~ /^[0-9.]+$/ {
			st[cur] += $3; sc[cur "/" $2] += $3; any = 1
		}
		END {
			if (!any) exit
			line = "suites"
			for (i = 0; i < n; i++)
				line = line sprintf("%s %s %.0f s", i ? "," : "", order[i], st[order[i]])
			line = line "; slowest scenarios"
			for (k = 0; k < 5; k++) {
				best = ""
				for (s in sc) if (!(s in done) && (best == "" || sc[s] > sc[best])) best = s
				if (best == "") break
				done[best] = 1
				line = line sprintf("%s %s %.1f s", k ? "," : "", best, sc[best])
			}
			print line
		}' "$work/status"
}
