# Cross toolchain for arm64 (aarch64) Linux guests, Debian multiarch:
#   scripts/install-deps --cross
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DPTECHECK_STATIC=ON
# (guest/build-guest arm64 does both.)  Only the userspace C code is
# cross-compiled: the BPF objects and skeletons are built with the host's
# clang and bpftool (CMakeLists.txt), with -D__TARGET_ARCH_arm64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PTECHECK_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${PTECHECK_CROSS_TRIPLE}-gcc)
find_program(PTECHECK_CROSS_AR NAMES ${PTECHECK_CROSS_TRIPLE}-ar)
if(PTECHECK_CROSS_AR)
  set(CMAKE_AR ${PTECHECK_CROSS_AR} CACHE FILEPATH "cross ar")
endif()

# Libraries and headers come from Debian's arm64 multiarch packages
# (libbpf-dev:arm64 ...) under /usr/lib/aarch64-linux-gnu and
# /usr/include; programs (clang, bpftool, pkg-config) from the host.
set(CMAKE_LIBRARY_ARCHITECTURE ${PTECHECK_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config sees the arm64 .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/${PTECHECK_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# Binaries built for the target cannot run here (unless through qemu-user).
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(PTECHECK_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
  if(PTECHECK_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${PTECHECK_QEMU_AARCH64})
  endif()
endif()
