# shellcheck shell=bash
# Runs the QEMU boots of an integration test side by side.  A TCG guest
# keeps about one host core busy (its workloads are mostly one thread:
# `time` said 103% for a 6.1 guest, 126% for a 7.x one), so on CI's two
# cores two boots at once take the wall time of about one
# (docs/vmtest.md, "Boots side by side").
#   pool_go CMD...   runs CMD in the background once a slot is free
#   pool_alone CMD...  runs CMD once every CMD started has ended, and
#                    nothing beside it (a boot that uses both cores)
#   pool_drain       waits for every CMD started
#   tap_replay FILE  prints FILE's TAP points renumbered after the ones
#                    printed so far, counting them in nr, nr_pass,
#                    nr_fail and nr_skip; other lines as they are
# PTECHECK_GUEST_JOBS sets the slots (default 2; 1 runs one at a time).
pool_slots=${PTECHECK_GUEST_JOBS:-2}
case $pool_slots in
'' | *[!0-9]* | 0) pool_slots=2 ;;
esac

pool_go() {
	while [ "$(jobs -rp | wc -l)" -ge "$pool_slots" ]; do
		wait -n
	done
	"$@" &
}

pool_alone() {
	wait
	"$@"
}

pool_drain() {
	wait
}

tap_replay() {
	local line rest

	while IFS= read -r line; do
		case $line in
		"ok "[0-9]* | "not ok "[0-9]*)
			nr=$((nr + 1))
			rest=${line#ok }
			rest=${rest#not ok }
			rest=${rest#* }
			case $line in
			"not ok "*)
				nr_fail=$((nr_fail + 1))
				echo "not ok $nr $rest"
				continue
				;;
			*"# SKIP"*) nr_skip=$((nr_skip + 1)) ;;
			*) nr_pass=$((${nr_pass:-0} + 1)) ;;
			esac
			echo "ok $nr $rest"
			;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$1"
}
