# shellcheck shell=bash
# wait_for_line FILE PATTERN [TENTHS]: true once FILE has a line matching
# PATTERN (grep -E), false after TENTHS tenths of a second (default 100):
# how a test knows a background ptecheck got as far as it says on stderr
# (its banner, "waiting" for a lock) before it acts.
wait_for_line() {
	local _

	for _ in $(seq "${3:-100}"); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
