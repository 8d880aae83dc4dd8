# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# mutate/mutate's kernels: the shared build tree of an arch
# ($CACHE/mutate/ARCH/{src,out,fragment.config}, docs/mutation.md), a build
# with a patch applied under $KBUILD_LOCK and reverted by a trap, images
# cached per (tree version, fragment, patch), boots with guest/vmtest and
# the gate.  Sourced by mutate/mutate: reads its globals (SRC, CACHE, ARCH,
# TREE, TREE_VERSION, JOBS, SCALE, RUNS, ...; SUITE, when set, the suites
# instead of all), uses note and die.  gate/gate-patch sources it too.
# shellcheck disable=SC2154,SC2153

ADIR='' KSRC='' KOUT='' FRAGMENT='' KIMAGE='' KTARGET=''
KMAKE=()

# kernel_setup: the arch's paths and the make command line.  The same
# command line every time, whoever builds in the shared tree: Kbuild
# rebuilds an object whose recorded command changed.
kernel_setup() {
	ADIR=$CACHE/mutate/$ARCH
	KSRC=$ADIR/src
	KOUT=$ADIR/out
	FRAGMENT=$ADIR/fragment.config
	case $ARCH in
	arm64)
		KMAKE=(make -C "$KSRC" O="$KOUT" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "CC=ccache aarch64-linux-gnu-gcc")
		KIMAGE=arch/arm64/boot/Image KTARGET=Image
		;;
	x86_64)
		KMAKE=(make -C "$KSRC" O="$KOUT" ARCH=x86_64 "CC=ccache gcc")
		KIMAGE=arch/x86/boot/bzImage KTARGET=bzImage
		;;
	esac
	mkdir -p "$ADIR/images" || die "$EXIT_SETUP" "cannot create $ADIR/images"
}

# fragment_write: the arch's part of mutate/guest.config ("# arch: all" and
# "# arch: ARCH" sections), written only when it changed so that make does
# not see a newer fragment for nothing.
fragment_write() {
	local new=$ADIR/.fragment.new
	awk -v arch="$ARCH" '
		/^# arch: / { on = ($3 == "all" || $3 == arch); next }
		on && /^CONFIG_/ { print }' "$SRC/mutate/guest.config" >"$new"
	[[ -s $new ]] || die "$EXIT_SETUP" "mutate/guest.config has no CONFIG_ line for $ARCH"
	if cmp -s "$new" "$FRAGMENT"; then
		rm -f "$new"
	else
		mv "$new" "$FRAGMENT"
	fi
}

# files_of PATCH: the files a patch touches, relative to the tree.
files_of() {
	sed -n '\#^[-+][-+][-+] /dev/null#d;s#^[-+][-+][-+] [^/]*/\([^[:space:]]*\).*#\1#p' "$1" | sort -u
}

# resync FILE...: each file's content from the source tree, with a new
# modification time (never the old one: make would keep a mutant's object),
# or removed when the source has none (a file the patch created).
resync() {
	local f
	for f in "$@"; do
		if [[ -f $TREE/$f ]]; then
			cat "$TREE/$f" >"$KSRC/$f" || die "$EXIT_SETUP" "cannot restore $KSRC/$f"
		else
			rm -f "$KSRC/$f"
		fi
		rm -f "$KSRC/$f.orig" "$KSRC/$f.rej"
	done
}

# src_ready (under the lock): src/ a copy of TREE.  A patch left applied
# by a kill ($ADIR/applying) is undone from the source first; a tree of
# another version (the stamp src.version) is synced by content, changed
# files getting new times; a missing src/ is copied whole with out/ reset.
src_ready() {
	local changed
	if [[ -f $ADIR/applying ]]; then
		note "src left patched by an interrupted build ($(head -n1 "$ADIR/applying")): restoring its files"
		mapfile -t changed < <(files_of "$ADIR/applying")
		resync "${changed[@]}"
		rm -f "$ADIR/applying"
	fi
	if [[ ! -f $KSRC/Makefile ]]; then
		note "copying $TREE to $KSRC (once)"
		rm -rf "$KOUT"
		rsync -a --delete "$TREE/" "$KSRC/" || die "$EXIT_SETUP" "cannot copy $TREE to $KSRC"
	elif [[ $(cat "$ADIR/src.version" 2>/dev/null) != "$TREE_VERSION" ]]; then
		note "comparing $KSRC with $TREE by content (once per tree version)"
		rsync -rlpc --delete "$TREE/" "$KSRC/" || die "$EXIT_SETUP" "cannot sync $KSRC with $TREE"
	fi
	echo "$TREE_VERSION" >"$ADIR/src.version"
}

# config_ready (under the lock): out/.config from allnoconfig and the
# fragment, and every fragment line in it: Kconfig drops an option whose
# dependencies are missing without a word.
config_ready() {
	local line missing=()
	mkdir -p "$KOUT"
	if [[ ! -f $KOUT/.config || $FRAGMENT -nt $KOUT/.config ]]; then
		note "configuring $ARCH: allnoconfig + $FRAGMENT"
		"${KMAKE[@]}" -s allnoconfig KCONFIG_ALLCONFIG="$FRAGMENT" >"$ADIR/config.log" 2>&1 ||
			die "$EXIT_SETUP" "make allnoconfig failed (see $ADIR/config.log)"
	fi
	while read -r line; do
		if [[ $line == *=n ]]; then
			grep -qx "${line%=n}=.*" "$KOUT/.config" && missing+=("$line")
		else
			grep -qxF "$line" "$KOUT/.config" || missing+=("$line")
		fi
	done <"$FRAGMENT"
	((${#missing[@]} == 0)) ||
		die "$EXIT_SETUP" "Kconfig dropped ${#missing[@]} options of mutate/guest.config (unmet dependencies?): ${missing[*]}"
}

# take_lock FILE WHAT: flock on a new descriptor (LOCK_FD), saying so when
# WHAT holds it: a silent wait of a quarter of an hour looks like a hang.
LOCK_FD=
take_lock() {
	exec {LOCK_FD}>"$1" || die "$EXIT_SETUP" "cannot open the lock $1"
	flock -n "$LOCK_FD" && return 0
	note "waiting for $1 ($2 holds it)"
	flock "$LOCK_FD"
}

# image_key PATCH|"": the cache key of a kernel: tree version, fragment,
# patch (none for the control).
image_key() {
	{
		echo "$TREE_VERSION"
		sha256sum <"$FRAGMENT"
		if [[ -n $1 ]]; then sha256sum <"$1"; else echo control; fi
	} | sha256sum | cut -c1-16
}

KPATCH=
revert() {
	[[ -n $KPATCH ]] || return 0
	if patch -s -p1 -R -f --no-backup-if-mismatch -d "$KSRC" --batch <"$KPATCH" >/dev/null 2>&1; then
		rm -f "$ADIR/applying"
	else
		# Leave the record: the next start restores these files.
		note "cannot revert $KPATCH in $KSRC: the next run restores its files"
	fi
	KPATCH=
}

# build_locked NAME PATCH DIR: under the lock, apply, build, copy, revert.
build_locked() {
	local name=$1 patch=$2 dir=$3 rc=0
	src_ready
	config_ready
	: >"$dir/build.log"
	if [[ -n $patch ]]; then
		if ! patch --dry-run -s -p1 -f -d "$KSRC" --forward --batch <"$patch" >"$dir/build.log" 2>&1; then
			echo "build failed: the patch does not apply to $TREE_VERSION (see $dir/build.log)" >"$dir/failed"
			return 0
		fi
		# The record first: a kill from here on leaves src to repair.
		{ echo "$name"; cat "$patch"; } >"$ADIR/applying"
		KPATCH=$patch
		patch -s -p1 -f --no-backup-if-mismatch -d "$KSRC" --forward --batch <"$patch" >>"$dir/build.log" 2>&1 ||
			die "$EXIT_SETUP" "$patch applied in a dry run but not for real (see $dir/build.log)"
	fi
	nice -n 5 "${KMAKE[@]}" -j"$JOBS" "$KTARGET" >>"$dir/build.log" 2>&1 || rc=$?
	if ((rc == 0)); then
		cp "$KOUT/$KIMAGE" "$KOUT/.config" "$dir/" || die "$EXIT_SETUP" "cannot copy the image to $dir"
		mv "$dir/.config" "$dir/config"
	else
		echo "build failed: make exited $rc: $(grep -m1 -E 'error:|Error [0-9]' "$dir/build.log" || echo "see $dir/build.log")" >"$dir/failed"
	fi
	revert
}

# build NAME [PATCH]: the kernel's image directory in IMAGE_DIR, built
# unless cached (an image, or a build failure, from an earlier run).
build() {
	local name=$1 patch=${2:-} dir fd t0=$SECONDS
	dir=$ADIR/images/$(image_key "$patch")
	IMAGE_DIR=$dir
	if [[ -f $dir/$(basename "$KIMAGE") || -f $dir/failed ]]; then
		note "$name ($ARCH): kernel cached in $dir"
		return 0
	fi
	mkdir -p "$dir"
	printf 'name %s\ntree %s\nfragment %s\npatch %s\n' "$name" "$TREE_VERSION" \
		"$(sha256sum <"$FRAGMENT" | cut -c1-64)" \
		"$(if [[ -n $patch ]]; then sha256sum <"$patch" | cut -c1-64; else echo none; fi)" >"$dir/key"
	note "building $name ($ARCH) ..."
	take_lock "$KBUILD_LOCK" "another kernel build"
	fd=$LOCK_FD
	trap revert EXIT
	trap 'exit 130' INT TERM HUP
	build_locked "$name" "$patch" "$dir"
	trap - EXIT INT TERM HUP
	exec {fd}>&-
	if [[ -f $dir/failed ]]; then
		note "$name ($ARCH): $(cat "$dir/failed")"
	else
		note "$name ($ARCH): built in $((SECONDS - t0)) s"
	fi
}

# guest_ready: the static guest binaries every boot of this run uses, built
# once (GUEST_DIR), and GUEST_ID, a hash of them: a report is only as good
# as the ptecheck that wrote it, so results are cached per guest build.
# PTECHECK_MUTATE_GUEST_DIR: another directory for them (one per worktree
# when several trees boot the same cached kernels).
guest_ready() {
	local dir=${PTECHECK_MUTATE_GUEST_DIR:-$ADIR/guest-build}
	local args=(--dir "$dir") log=$dir.log
	((DEPS)) || args+=(--no-deps)
	note "building the guest's ptecheck and workloads ($ARCH)"
	"$BUILD_GUEST" "${args[@]}" "$ARCH" >"$log" 2>&1 ||
		die "$EXIT_SETUP" "$BUILD_GUEST $ARCH failed: $(tail -n1 "$log")"
	GUEST_DIR=$(tail -n1 "$log")
	[[ -x $GUEST_DIR/ptecheck ]] || die "$EXIT_SETUP" "$BUILD_GUEST left no ptecheck in '$GUEST_DIR'"
	GUEST_ID=$(cd "$GUEST_DIR" && find . -type f \( -path ./ptecheck -o -path './workloads/*' \) -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
	GUEST_ID=${GUEST_ID:0:12}
	note "guest binaries $GUEST_ID ($GUEST_DIR)"
}

# ptc_panic VMTEST_LOG: what page_table_check's BUG said when it ended the
# boot of that log (the suite, the BUG line, the caller below the checker
# in the saved console), or false when the boot did not die that way.
ptc_panic() {
	local line suite con caller=''
	line=$(grep -m1 -E '^vmtest: FAIL: the guest kernel crashed.*: kernel BUG at mm/page_table_check\.c' "$1") ||
		return 1
	suite=$(sed -nE 's/.*crashed during suite ([a-z0-9_-]+):.*/\1/p' <<<"$line")
	con=$(sed -nE 's/^vmtest: the console of the boot that died in suite [a-z0-9_-]+: //p' "$1" | head -n1)
	[[ -f $con ]] && caller=$(sed -n '/Call [Tt]race:/,$p' "$con" | grep -vE 'Call [Tt]race|page_table_check|bpf_trampoline|^ *<' |
		sed -nE 's/^ *([A-Za-z_][A-Za-z0-9_.]*)\+0x.*/\1/p' | head -n1)
	line=${line##*: kernel BUG at }
	echo "page_table_check panicked the guest${suite:+ in suite $suite} (BUG at ${line%!}${caller:+, from $caller})"
}

# vm_run IMAGE REPORT OUT K [VMTEST_OPTION...]: one boot running the whole
# suite, its console and stderr in OUT/console-K.log and OUT/vmtest-K.log
# (with an option: console-K-nopt.log, vmtest-K-nopt.log, so the first
# boot's stay); vmtest's exit status.  --skip-known-bugs: the control
# must be clean, and the bug of docs/findings.md is in 7.2 unfixed.
vm_run() {
	local img=$1 rep=$2 out=$3 tag=$4
	shift 4
	(($#)) && tag+=-nopt
	"$VMTEST" --arch "$ARCH" --kernel "$img" "$@" \
		--build-dir "$GUEST_DIR" --format json --output "$rep" --console-log "$out/console-$tag.log" \
		-- run --suite "${SUITE:-all}" --scale "$SCALE" --skip-known-bugs \
		>"$out/vmtest-$tag.log" 2>&1
}

# boot NAME DIR: RUNS boots of DIR's image into DIR/runs/GUEST_ID-scale-N[-SUITE]/
# report.json, report-2.json, ...; a boot that gives no report leaves
# failed there instead.  A mutant whose boot page_table_check panicked
# (its BUG_ON fires on the first bad PTE it sees, maybe before ptecheck
# judges) is booted again without it, and DIR/note says so: the checks
# are then judged as on a kernel without the checker, as users run them.
boot() {
	local name=$1 img out=$2/runs/$GUEST_ID-scale-$SCALE${SUITE:+-$SUITE} k rep rc fd panic tag ev kept why
	img=$2/$(basename "$KIMAGE")
	RUN_DIR=$out
	mkdir -p "$out"
	if [[ -f $2/failed ]]; then
		cp "$2/failed" "$out/failed"
		return 0
	fi
	for ((k = 1; k <= RUNS; k++)); do
		rep=$out/report.json
		((k == 1)) || rep=$out/report-$k.json
		[[ -s $rep || -f $out/failed ]] && continue
		note "booting $name ($ARCH, run $k of $RUNS) ..."
		fd=
		if [[ -n $BOOT_LOCK ]]; then
			take_lock "$BOOT_LOCK" "a guest boot or integration test"
			fd=$LOCK_FD
		fi
		rc=0 tag=$k
		vm_run "$img" "$rep.tmp" "$out" "$k" || rc=$?
		if ((rc == 5)) && [[ $name != control ]] && panic=$(ptc_panic "$out/vmtest-$k.log"); then
			# The panicked boot's report (its suite failed as a crash) stays
			# as evidence; the judge reads the boot without the checker.
			ev=''
			if [[ -s $rep.tmp ]]; then
				mv "$rep.tmp" "$out/report-$k-ptc.json"
				ev=" (the report of the boot that panicked: report-$k-ptc.json)"
			fi
			echo "run $k: $panic; booted again with --no-page-table-check$ev" >>"$out/note"
			note "$name ($ARCH): $panic; booting again without it"
			rc=0 tag=$k-nopt
			vm_run "$img" "$rep.tmp" "$out" "$k" --no-page-table-check || rc=$?
		fi
		[[ -n $fd ]] && exec {fd}>&-
		if ((rc <= 4)) && [[ -s $rep.tmp ]]; then
			mv "$rep.tmp" "$rep"
			note "$name ($ARCH): run $k: ptecheck exit $rc"
		else
			# A kernel that died still has a report (its crash a failed
			# SUITE/kernel-log [console]): kept as evidence, not judged, since
			# a crash is not a check of ptecheck catching the bug.
			kept=''
			if ((rc == 5 || rc == 6)) && [[ -s $rep.tmp ]]; then
				mv "$rep.tmp" "$out/report-$k-died.json"
				kept="; its report: $out/report-$k-died.json"
			fi
			rm -f "$rep.tmp"
			# What vmtest said of the failure, not where it kept its logs.
			why=$(grep -m1 '^vmtest: FAIL' "$out/vmtest-$tag.log" || tail -n1 "$out/vmtest-$tag.log")
			echo "boot failed: vmtest exit $rc ($why); console: $out/console-$tag.log$kept" >"$out/failed"
			note "$name ($ARCH): $(cat "$out/failed")"
		fi
	done
}

# reports_of DIR: the RUNS report files of a boot directory.
reports_of() {
	local k
	echo "$1/report.json"
	for ((k = 2; k <= RUNS; k++)); do echo "$1/report-$k.json"; done
}

# gate NAME DIR CONTROL_DIR: DIR/gate.json, the gate's decision on the
# mutant's reports against the control's.
gate() {
	local name=$1 dir=$2 cdir=$3 base=() cand=() f rc=0
	[[ -f $dir/failed || -f $cdir/failed ]] && return 0
	while read -r f; do base+=(-b "$f"); done < <(reports_of "$cdir")
	mapfile -t cand < <(reports_of "$dir")
	note "gating $name ($ARCH) against the control"
	"$PTECHECK" gate "${base[@]}" --format json --output "$dir/gate.json" "${cand[@]}" 2>"$dir/gate.log" || rc=$?
	((rc <= 1)) || note "$name ($ARCH): the gate could not judge (exit $rc): $(head -n1 "$dir/gate.log")"
}

# mutant_arch PATCH: its Arch header value.
mutant_arch() { sed -n '/^---$/q;s/^Arch: *//p' "$1"; }

run_full() {
	local p name cdir pairs=() rc=0
	if ((DEPS)) && [[ $(id -u) -eq 0 ]]; then
		bash "$SRC/scripts/install-deps" --kernel-build --guest >&2 ||
			die "$EXIT_SETUP" "scripts/install-deps --kernel-build --guest failed"
	elif ((DEPS)); then
		note "not root: skipping scripts/install-deps --kernel-build --guest"
	fi
	[[ -x $PTECHECK ]] || die "$EXIT_SETUP" "$PTECHECK missing: build first"
	if ((${#PATCHES[@]})); then
		"$JUDGE" check "${PATCHES[@]}" || die "$EXIT_SETUP" "the catalogue has bad headers (above)"
	fi
	pick_source
	note "source: $TREE_VERSION; arch $ARCH; scale $SCALE, $RUNS run(s) per kernel"
	kernel_setup
	fragment_write
	guest_ready
	build control
	boot control "$IMAGE_DIR"
	cdir=$RUN_DIR
	for p in "${PATCHES[@]}"; do
		name=$(basename "$p" .patch)
		case $(mutant_arch "$p") in
		all | "$ARCH") ;;
		*)
			note "$name: not for $ARCH, skipped"
			continue
			;;
		esac
		build "$name" "$p"
		boot "$name" "$IMAGE_DIR"
		gate "$name" "$RUN_DIR" "$cdir"
		pairs+=("$p" "$RUN_DIR")
	done
	"$JUDGE" table --format "$FORMAT" --arch "$ARCH" --control "$cdir" "${pairs[@]}" || rc=$?
	((rc <= 1)) || die "$EXIT_SETUP" "mutate-judge failed (exit $rc)"
	return "$rc"
}
