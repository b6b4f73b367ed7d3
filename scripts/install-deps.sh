#!/usr/bin/env bash
# Install the Debian 12 packages lievi needs to build, test and plot.
# Idempotent: installs only what is missing, runs `apt-get update` first when it has to install,
# works as root without sudo, and does nothing (and needs no network) when everything is present.
set -euo pipefail

packages=(
  cmake g++ make ninja-build pkg-config          # toolchain
  clang libomp-dev libclang-rt-14-dev ccache     # the second compiler (its OpenMP, its sanitizers); the compile cache
  libeigen3-dev                                  # fixed-size linear algebra
  libhwy-dev                                     # Highway: portable SIMD of the batched beam kernels (headers)
  libcli11-dev                                   # command line
  libtomlplusplus-dev                            # scenario files
  nlohmann-json3-dev                             # summary.json writing (and reading in tests)
  librandom123-dev                               # counter-based Philox noise
  libhdf5-dev                                    # fields.h5 output (HDF5 C library)
  libboost-dev                                   # Boost.Math (Jacobi elliptic reference), odeint
  libgtest-dev libgmock-dev                      # unit tests
  libbenchmark-dev                               # bench/
  python3-numpy python3-scipy python3-matplotlib # plots and SciPy reference checks (/usr/bin/python3)
  python3-h5py                                   # reading fields.h5 in plots and tests
  pybind11-dev python3-pybind11 python3-dev      # the Python module (python/)
  python3-pytest python3-sympy                   # its tests; user Lagrangians from SymPy expressions
  python3-distributed                            # Dask: the sharded-ensemble example (examples/python)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y "${missing[@]}"
