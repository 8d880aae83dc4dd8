# shellcheck shell=bash
# A kernel build and boot without a kernel, for the tests of mutate/mutate
# and gate/gate-patch (mutate/lib/kernel.sh's machinery):
#   fake_tree DIR              a tree whose mm/mremap.c holds the lines the
#                              fixtures' hunks need; its Makefile
#                              "configures" by copying the fragment
#                              (dropping $FAKE_DROP) and "builds" by copying
#                              mm/mremap.c into both images
#   fake_vmtest FILE REPORTS [BENCH]
#                              a vmtest that writes the recorded report the
#                              image's content stands for ("(fixture: X)");
#                              for '-- bench', BENCH/bench-slow.json for an
#                              image with "(fixture: slow)", else
#                              BENCH/bench-fast.json
#   fake_build_guest FILE      a build-guest whose ptecheck is a stamp
#                              ($FAKE_GUEST_STAMP: results are cached per
#                              hash of it)

fake_tree() {
	mkdir -p "$1/mm" "$1/arch"
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '/*' ' *	mm/mremap.c' ' *' \
		' *	(C) Copyright 1996 Linus Torvalds' ' *' ' * (the rest of a fake tree)' ' */' \
		>"$1/mm/mremap.c"
	cat >"$1/Makefile" <<'EOF'
kernelversion:
	@echo 7.2.0-fake
allnoconfig:
	mkdir -p $(O)
	grep '^CONFIG_' $(KCONFIG_ALLCONFIG) | grep -v "^$(or $(FAKE_DROP),NONE)=" >$(O)/.config
Image bzImage:
	mkdir -p $(O)/arch/arm64/boot $(O)/arch/x86/boot
	cat mm/mremap.c >$(O)/arch/arm64/boot/Image
	cat mm/mremap.c >$(O)/arch/x86/boot/bzImage
	echo built >>$(O)/builds
EOF
}

fake_vmtest() {
	cat >"$1" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do
	case \$1 in
	--kernel) img=\$2; shift ;;
	--output) out=\$2; shift ;;
	--no-page-table-check) noptc=1 ;;
	--) shift; break ;;
	esac
	shift
done
if [ "\${1:-}" = bench ]; then
	if grep -q "(fixture: slow)" "\$img"; then cp "${3:-}/bench-slow.json" "\$out"
	else cp "${3:-}/bench-fast.json" "\$out"; fi
	echo "fake vmtest: bench"
	exit 0
fi
# The panic vmtest prints when page_table_check's BUG ends a suite.
if grep -q "(fixture: ptc)" "\$img" && [ -z "\${noptc:-}" ]; then
	printf 'vmtest: FAIL: the guest kernel crashed during suite mremap: %s\\n' \\
		'kernel BUG at mm/page_table_check.c:118!' >&2
	exit 5
fi
case \$(cat "\$img") in
*"(fixture: ptc)"*) r=mutant-caught ;;
*"(fixture: caught)"*) r=mutant-caught ;;
*"(fixture: missed)"*) r=mutant-missed ;;
*"(fixture: perf)"*) r=mutant-perf ;;
*) r=control-clean ;;
esac
cp "$2/\$r.json" "\$out"
echo "fake vmtest: \$r"
EOF
	chmod +x "$1"
}

fake_build_guest() {
	cat >"$1" <<EOF
#!/bin/bash
while [ \$# -gt 1 ]; do
	case \$1 in
	--dir) dir=\$2; shift ;;
	esac
	shift
done
mkdir -p "\$dir"
printf '#!/bin/sh\\n# %s\\n' "\${FAKE_GUEST_STAMP:-one}" >"\$dir/ptecheck"
chmod +x "\$dir/ptecheck"
echo "\$dir"
EOF
	chmod +x "$1"
}
