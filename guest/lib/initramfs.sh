# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# guest/vmtest's initramfs: busybox and /init staged in a directory, the
# guest binaries, the kernel modules with what they depend on, the
# settings /init reads (/etc/vmtest.{conf,args,modules}), packed as a cpio.
# Sourced by guest/vmtest: reads its globals (root, busybox, build_dir,
# config, ptc, modules, kmods, without_mods, scratch_mb, scratch_fs, fs_arg,
# guest_cmd, resume_suite,
# ptecheck_args, work), uses its log, die and sh_quote.
# shellcheck disable=SC2154,SC2034

# Applets /init uses; busybox itself is /bin/busybox, /bin/sh runs /init.
applets=(sh mount mkdir cat echo grep sed tr cut ls dmesg insmod ip ifconfig
	poweroff tee mkfifo awk uname head sleep rm zcat losetup)

# stage DIR: busybox, its applet links, /init and the empty mount points.
stage() {
	local d=$1 a
	mkdir -p "$d"/{bin,sbin,etc,proc,sys,dev,tmp,lib/modules}
	cp -- "$busybox" "$d/bin/busybox"
	chmod 0755 "$d/bin/busybox"
	for a in "${applets[@]}"; do
		ln -sf busybox "$d/bin/$a"
	done
	install -m 0755 "$root/guest/init" "$d/init"
}

# mkcpio DIR OUT: an uncompressed newc cpio (every kernel unpacks that; no
# root needed: cpio records the staging files' owner, the kernel ignores it).
mkcpio() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) >"$2"
}

# Kernel modules: find each by name, add what modules.dep (or the module's
# own depends= when the tree has no modules.dep, as Debian's packages
# do not) says it needs, in load order.
declare -A mod_seen=()
mod_order=()
mod_file() {
	local n=${1//-/_} f
	f=$(find "$modules/kernel" -type f \( -name "$n.ko*" -o -name "${n//_/-}.ko*" \) -print -quit 2>/dev/null)
	[[ -n $f ]] && echo "$f"
}
mod_deps() {
	local f=$1 rel
	if [[ -f $modules/modules.dep ]]; then
		rel=${f#"$modules"/}
		sed -n "s|^$rel: *||p" "$modules/modules.dep" | tr ' ' '\n' | sed -n 's|.*/||; s|\.ko.*||p'
	else
		ko_cat "$f" | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' '\n'
	fi
}
ko_cat() {
	case $1 in
	*.ko.xz) xz -dc -- "$1" ;;
	*.ko.zst) zstd -qdc -- "$1" ;;
	*.ko.gz) gzip -dc -- "$1" ;;
	*) cat -- "$1" ;;
	esac
}
mod_add() {
	local name=${1//-/_} f d
	[[ -n ${mod_seen[$name]:-} ]] && return 0
	mod_seen[$name]=1
	f=$(mod_file "$name") || f=
	if [[ -z $f ]]; then
		if grep -qE "/${name//_/[-_]}\.ko" "$modules/modules.builtin" 2>/dev/null; then
			log "module $name is built into this kernel"
			return 0
		fi
		die "$EXIT_SETUP" "module $name not found under $modules/kernel"
	fi
	for d in $(mod_deps "$f"); do
		[[ -n $d ]] && mod_add "$d"
	done
	mod_order+=("$f")
}

# add_harness_modules: puts in front of kmods what the harness itself
# needs as modules in this kernel: virtio_pci and virtio_console for the
# results over virtio-serial (Debian's 6.1 cloud kernels), virtio_blk,
# loop and the scratch filesystem for the scratch disk (some kernels).
# --without-module NAME leaves NAME out (a test of the loop fallback).
add_harness_modules() {
	local sym mod w
	local syms=(VIRTIO_PCI:virtio_pci VIRTIO_CONSOLE:virtio_console)
	[[ $scratch_mb -gt 0 ]] && syms+=(VIRTIO_BLK:virtio_blk BLK_DEV_LOOP:loop)
	[[ $scratch_mb -gt 0 && $scratch_fs == ext4 ]] && syms+=(EXT4_FS:ext4)
	[[ $scratch_mb -gt 0 && $scratch_fs == xfs ]] && syms+=(XFS_FS:xfs)
	for sym in "${syms[@]}"; do
		mod=${sym#*:}
		for w in "${without_mods[@]}"; do
			[[ ${w//-/_} == "$mod" ]] && continue 2
		done
		if [[ -n $config ]]; then
			grep -q "^CONFIG_${sym%:*}=m" "$config" || continue
			[[ -n $modules ]] || die "$EXIT_SETUP" "this kernel has $mod as a module (config $config), which needs --modules DIR"
			kmods=("$mod" "${kmods[@]}")
		elif [[ -n $modules ]] && [[ -n $(mod_file "$mod") ]]; then
			kmods=("$mod" "${kmods[@]}")
		fi
	done
}

# stage_modules DIR: kmods and their dependencies, decompressed into
# DIR/lib/modules, listed in load order in DIR/etc/vmtest.modules.
stage_modules() {
	local d=$1 n f
	: >"$d/etc/vmtest.modules"
	[[ ${#kmods[@]} -gt 0 ]] || return 0
	[[ -n $modules ]] || die "$EXIT_SETUP" "--module needs a modules tree (--modules DIR or a --package)"
	for n in "${kmods[@]}"; do
		mod_add "$n"
	done
	for f in "${mod_order[@]}"; do
		n=$(basename -- "$f")
		n=${n%%.ko*}.ko
		# Decompressed here: the guest's busybox insmod may lack xz/zstd.
		ko_cat "$f" >"$d/lib/modules/$n" || die "$EXIT_SETUP" "cannot decompress $f"
		echo "/lib/modules/$n" >>"$d/etc/vmtest.modules"
	done
	log "modules: $(sed 's|.*/||' "$d/etc/vmtest.modules" | tr '\n' ' ')"
}

# write_settings DIR: /etc/vmtest.conf and /etc/vmtest.args for /init.
write_settings() {
	local d=$1 a
	{
		echo "VMTEST_MODE=run"
		echo "VMTEST_CMD=$(sh_quote "$guest_cmd")"
		echo "VMTEST_RESUME=$(sh_quote "$resume_suite")"
		echo "VMTEST_SCRATCH=$([[ $scratch_mb -gt 0 ]] && echo 1 || echo 0)"
		echo "VMTEST_SCRATCH_FS=$scratch_fs"
		echo "VMTEST_FS_ARG=$fs_arg"
		echo "VMTEST_PTC=$ptc"
		echo "VMTEST_PTC_FROM=$(sh_quote "$ptc_from")"
	} >"$d/etc/vmtest.conf"
	{
		printf 'set --'
		for a in "${ptecheck_args[@]}"; do
			printf ' %s' "$(sh_quote "$a")"
		done
		echo
	} >"$d/etc/vmtest.args"
}

# build_initramfs: $work/initramfs.cpio for one boot.
build_initramfs() {
	local d=$work/root f
	stage "$d"
	if [[ -n $build_dir ]]; then
		cp -- "$build_dir/ptecheck" "$d/ptecheck"
		if [[ -d $build_dir/workloads ]]; then
			mkdir -p "$d/workloads"
			for f in "$build_dir"/workloads/*; do
				[[ -f $f && -x $f ]] && cp -- "$f" "$d/workloads/"
			done
		fi
	fi
	# The loop fallback's copy of the scratch image (zeros pack to little).
	[[ $scratch_mb -gt 0 ]] && cp -- "$work/scratch.img.gz" "$d/scratch.img.gz"
	stage_modules "$d"
	write_settings "$d"
	mkcpio "$d" "$work/initramfs.cpio"
}
