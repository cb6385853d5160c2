# CMake toolchain file: the library, CLI and C tests for aarch64 Linux, built on an x86-64 Debian
# machine and run there under qemu-aarch64 (`make test-aarch64`, docs/portability.md). Compilers:
# Debian's gcc-aarch64-linux-gnu / g++-aarch64-linux-gnu (the default), or clang with
# --target=aarch64-linux-gnu over the same cross libc (-DNE_CROSS_COMPILER=clang). Libraries: the
# arm64 multiarch packages (dpkg --add-architecture arm64; libinih-dev:arm64, libhiredis-dev:arm64),
# whose loader and libc in /lib and /usr/lib/aarch64-linux-gnu are also what qemu-aarch64 runs the
# binaries with. ctest runs each test executable through CMAKE_CROSSCOMPILING_EMULATOR.
#   cmake -S . -B build-aarch64 --toolchain cmake/aarch64-linux-gnu.cmake -DNE_PYTHON=OFF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(NE_CROSS_COMPILER gcc CACHE STRING "Cross compiler for aarch64: gcc (aarch64-linux-gnu-gcc) or clang")
if(NE_CROSS_COMPILER STREQUAL "clang")
  set(CMAKE_C_COMPILER clang)
  set(CMAKE_CXX_COMPILER clang++)
  set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
  set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
else()
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# Box2D (scripts/build-box2d, cmake/physics.cmake): built by the cross g++ for either compiler
set(NE_BOX2D_CXX aarch64-linux-gnu-g++)
set(NE_BOX2D_AR aarch64-linux-gnu-ar)
# pkg-config: the arm64 packages' .pc files only (never the build machine's x86-64 ones)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
