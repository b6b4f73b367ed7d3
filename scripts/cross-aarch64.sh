#!/usr/bin/env bash
# AArch64: cross-compile the library and its core tests (the folders below) with Debian's cross toolchain and
# run them under qemu-user. `--install` installs the toolchain first (g++-aarch64-linux-gnu, qemu-user);
# without it, a machine that lacks them skips (exit 77, the `cross` test label's skip code).
# Build folder: build/aarch64 (HDF5, the command-line program and the benchmarks are left out; see
# cmake/cross-deps.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--install" ]; then
  missing=()
  for p in g++-aarch64-linux-gnu qemu-user googletest; do
    dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=(); [ "$(id -u)" -eq 0 ] || SUDO=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update
    "${SUDO[@]}" apt-get install -y "${missing[@]}"
  fi
fi
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "cross-aarch64: skipped: $tool is not installed (scripts/cross-aarch64.sh --install, or apt-get install g++-aarch64-linux-gnu qemu-user)"
    exit 77
  fi
done
folders="lie;rigid_body;beam;field;noise;del;ode;smoke"
cmake -S . -B build/aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g0 -DNDEBUG" \
  -DLIEVI_WITH_HDF5=OFF -DLIEVI_BUILD_APPS=OFF -DLIEVI_BUILD_BENCH=OFF "-DLIEVI_TEST_FOLDERS=$folders" \
  -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/aarch64 -j2
echo "cross-aarch64: running the tests of $folders under qemu-aarch64"
ctest --test-dir build/aarch64 -j2 --output-on-failure
