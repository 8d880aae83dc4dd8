# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/vmtest's QEMU: the command line, one run of it under a time limit,
# and the KVM probe that decides --accel auto.  Sourced by guest/vmtest:
# reads its globals (arch, qemu, console, memory, cpus, numa, append,
# config, ptc, ptc_off, kernel, scratch_mb, work, accel), sets q_* and use_accel, uses
# its log, die, sh_quote, stage and mkcpio.  QEMU options contain commas;
# probe_stop and never are called by name.
# shellcheck disable=SC2154,SC2034,SC2054,SC2317

# The KVM probe's boot limit: a probe that boots takes ~2 s; a nested
# hypervisor that cannot emulate the decompressor hangs forever.
readonly PROBE_TIMEOUT=25
readonly MARKER=VMTEST-KVM-PROBE-OK

qpid=
saved_err=''
# Undo run_qemu's redirection of stderr before saying anything.
restore_err() { [[ -z $saved_err ]] || exec 2>&"$saved_err"; }
stop_qemu() {
	[[ -n $qpid ]] || return 0
	if kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
		# QEMU ends at once on SIGTERM; the KILL is for a wedged one.
		for _ in $(seq 50); do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$qpid" 2>/dev/null || true
	fi
	wait "$qpid" 2>/dev/null || true
	qpid=
}

# qemu_cmd ACCEL CPIO CONSOLE_LOG [PORTS]: fills the array qcmd.
qemu_cmd() {
	local acc=$1 cpio=$2 con=$3 ports=${4:-}
	# loglevel=5: warnings, oopses and panics reach the console log, the
	# ~350 info lines of a boot do not (they cost ~1.5 s under TCG).
	local cmdline="console=$console loglevel=5 panic=-1 oops=panic rdinit=/init"
	# A kernel that dies prints its trace buffers, every CPU's (what a bad
	# batch wrote may kill another CPU than its own): ptecheck's crash
	# witness (a batch judged on entry that may kill the kernel,
	# include/ptecheck/events.h) is then on the console, for ptecheck merge.
	cmdline+=" ftrace_dump_on_oops"
	# The checker's own BUG_ONs are worth having when the kernel may have
	# them (ptc: y, n or unknown, set by vmtest; ptc_off: --no-page-table-check).
	[[ $ptc != n && $ptc_off -eq 0 ]] && cmdline+=" page_table_check=on"
	[[ -n $append ]] && cmdline+=" $append"
	qcmd=("$qemu")
	case $arch:$acc in
	x86_64:kvm) qcmd+=(-M q35 -accel kvm -cpu host) ;;
	x86_64:tcg) qcmd+=(-M q35 -accel tcg,thread=multi -cpu max) ;;
	arm64:kvm) qcmd+=(-M virt,gic-version=max -accel kvm -cpu host) ;;
	arm64:tcg) qcmd+=(-M virt -accel tcg,thread=multi -cpu max) ;;
	esac
	# -nodefaults: no NIC (its option ROM slows boot), no VGA, no monitor.
	qcmd+=(-nodefaults -no-user-config -display none -no-reboot
		-m "$memory" -smp "$cpus"
		-chardev "file,id=con,path=${con//,/,,}" -serial chardev:con
		-kernel "$kernel" -initrd "$cpio" -append "$cmdline")
	if [[ $numa -gt 1 ]]; then
		# Memory split evenly (the last node takes the rest), CPUs round-robin.
		local node per=$((memory / numa)) size cpu spec
		for ((node = 0; node < numa; node++)); do
			size=$per
			if ((node == numa - 1)); then size=$((memory - per * (numa - 1))); fi
			spec="node,nodeid=$node,memdev=mem$node"
			for ((cpu = node; cpu < cpus; cpu += numa)); do
				spec+=",cpus=$cpu"
			done
			qcmd+=(-object "memory-backend-ram,id=mem$node,size=${size}M" -numa "$spec")
		done
	fi
	if [[ -n $ports && $scratch_mb -gt 0 ]]; then
		qcmd+=(-drive "file=${work//,/,,}/scratch.img,if=none,id=scratch,format=raw,cache=unsafe"
			-device virtio-blk-pci,drive=scratch)
	fi
	if [[ -n $ports ]]; then
		local p
		qcmd+=(-device virtio-serial-pci)
		for p in report stderr facts status; do
			qcmd+=(-chardev "file,id=$p,path=${work//,/,,}/$p"
				-device "virtserialport,chardev=$p,name=ptecheck.$p")
		done
	fi
}

# show_cmd WORD...: a copy-pasteable command line, quoting only what needs it.
show_cmd() {
	local w out=()
	for w in "$@"; do
		if [[ $w =~ ^[A-Za-z0-9_,./:=+@%-]+$ ]]; then
			out+=("$w")
		else
			out+=("$(sh_quote "$w")")
		fi
	done
	echo "${out[*]}"
}

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b - a}'; }

# run_qemu LIMIT EARLY_STOP_FN: starts qcmd, waits for it to end, for
# LIMIT seconds or for EARLY_STOP_FN to succeed.  Sets q_rc (QEMU's
# status), q_timed_out, q_booted_at (host time of the guest's "booted").
run_qemu() {
	local limit=$1 early=$2 t0 deadline
	q_timed_out=0 q_booted_at='' q_rc=0
	t0=$(now)
	q_started=$t0
	deadline=$((SECONDS + limit))
	# bash itself reports a background job that dies of a signal (QEMU
	# aborts on some KVM errors) on its stderr; send that to qemu.log too.
	: >"$work/qemu.log"
	exec {saved_err}>&2 2>>"$work/qemu.log"
	"${qcmd[@]}" </dev/null >>"$work/qemu.log" 2>&1 &
	qpid=$!
	while kill -0 "$qpid" 2>/dev/null; do
		if [[ -z $q_booted_at && -s $work/status ]]; then
			q_booted_at=$(now)
		fi
		if "$early"; then
			break
		fi
		if ((SECONDS >= deadline)); then
			q_timed_out=1
			break
		fi
		sleep 0.2
	done
	if kill -0 "$qpid" 2>/dev/null; then
		stop_qemu
		q_rc=-1
	else
		# 2>/dev/null: bash's own "Aborted" line; qemu.log has QEMU's words.
		wait "$qpid" 2>/dev/null || q_rc=$?
		qpid=
	fi
	exec 2>&"$saved_err" {saved_err}>&-
	saved_err=''
	[[ -z $q_booted_at && -s $work/status ]] && q_booted_at=$(now)
	return 0
}
never() { return 1; }

# KVM is "usable" only if the kernel actually boots under it: here /dev/kvm
# opens but the nested hypervisor dies in the kernel decompressor (and
# QEMU 10 aborts on an MSR with -cpu host).  The answer per (QEMU binary,
# kernel image) is cached.
probe_stop() {
	grep -q "$MARKER" "$probe_con" 2>/dev/null ||
		grep -qE 'KVM internal error|emulation failure|failed to set MSR' "$work/qemu.log" 2>/dev/null
}
probe_kvm() {
	local cache key qbin f d
	if [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		kvm_reason="no usable /dev/kvm"
		return 1
	fi
	qbin=$(command -v "$qemu")
	key=$({
		echo "$qbin"
		stat -Lc '%s %Y' -- "$qbin"
		sha256sum <"$kernel"
	} | sha256sum | cut -c1-24)
	cache=${PTECHECK_CACHE:-/var/cache/ptecheck}/vmtest-kvm
	f=$cache/$key
	if [[ -f $f ]]; then
		kvm_reason="$(cut -d' ' -f2- "$f") (cached probe $f)"
		[[ $(cut -d' ' -f1 "$f") == kvm ]]
		return
	fi
	log "probing KVM: booting the kernel once under it (up to ${PROBE_TIMEOUT}s)"
	d=$work/probe-root
	stage "$d"
	printf 'VMTEST_MODE=probe\nVMTEST_MARKER=%s\nVMTEST_CMD=\n' "$MARKER" >"$d/etc/vmtest.conf"
	: >"$d/etc/vmtest.args"
	mkcpio "$d" "$work/probe.cpio"
	probe_con=$work/probe-console.log
	qemu_cmd kvm "$work/probe.cpio" "$probe_con"
	local t0
	t0=$(now)
	run_qemu "$PROBE_TIMEOUT" probe_stop
	local res
	if grep -q "$MARKER" "$probe_con" 2>/dev/null; then
		res="kvm booted in $(elapsed "$t0" "$(now)")s"
	else
		local why
		why=$(grep -m1 -E 'KVM internal error|emulation failure|failed to set MSR|error' "$work/qemu.log" 2>/dev/null) ||
			why="no marker from the guest within ${PROBE_TIMEOUT}s"
		res="tcg KVM probe failed: $why"
	fi
	mv -f "$work/qemu.log" "$work/probe-qemu.log"
	# A file of this process's own, renamed into place: boots side by side
	# (tests/integration/lib/pool.sh) may probe the same kernel at once.
	if mkdir -p "$cache" 2>/dev/null && echo "$res" >"$f.tmp.$$" 2>/dev/null; then
		mv -f "$f.tmp.$$" "$f"
	else
		log "warning: cannot cache the KVM probe in $cache"
	fi
	kvm_reason=${res#* }
	[[ ${res%% *} == kvm ]]
}

# choose_accel: sets use_accel from --accel (auto: the probe's answer).
choose_accel() {
	case $accel in
	kvm)
		[[ -r /dev/kvm && -w /dev/kvm ]] || die "$EXIT_SETUP" "--accel kvm: /dev/kvm is missing or not usable"
		use_accel=kvm
		;;
	tcg) use_accel=tcg ;;
	auto)
		if [[ $arch != "$host_arch" ]]; then
			use_accel=tcg
			log "accel: tcg ($arch guest on a $host_arch host)"
		elif probe_kvm; then
			use_accel=kvm
			log "accel: kvm ($kvm_reason)"
		else
			use_accel=tcg
			log "accel: tcg, not kvm: $kvm_reason"
		fi
		;;
	esac
}
