#!/usr/bin/env bash
# Install the Debian 12 packages lievi needs to build, test and plot.
# Idempotent: installs only what is missing, runs `apt-get update` first when it has to install,
# works as root without sudo, and does nothing (and needs no network) when everything is present.
#   --paraview   also ParaView with its Python (pvpython) and Xvfb, without their recommended packages
#                (about 1 GB): the `paraview` test label (scripts/check_paraview.py) runs when pvpython is
#                found at configure time. The default install does not pull ParaView.
set -euo pipefail

paraview=0
for arg in "$@"; do
  case "$arg" in
    --paraview) paraview=1 ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown option $arg (known: --paraview)" >&2; exit 2 ;;
  esac
done

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
  libopenmpi-dev openmpi-bin                     # MPI: ensembles across ranks (liblievi_mpi.so), the mpi tests
)
# ParaView's own packages: installed without recommends (its documentation, MPI launcher); python3-paraview
# is one of those recommends and is what pvpython imports, so it is named here.
paraview_packages=(paraview python3-paraview xvfb)

is_installed() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed; }

missing=()
for p in "${packages[@]}"; do
  is_installed "$p" || missing+=("$p")
done
missing_pv=()
if [ "$paraview" -eq 1 ]; then
  for p in "${paraview_packages[@]}"; do
    is_installed "$p" || missing_pv+=("$p")
  done
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_pv[@]} -eq 0 ]; then
  total=${#packages[@]}
  [ "$paraview" -eq 1 ] && total=$((total + ${#paraview_packages[@]}))
  echo "install-deps: all $total packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]} ${missing_pv[*]}"
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
if [ ${#missing[@]} -gt 0 ]; then
  "${SUDO[@]}" apt-get install -y "${missing[@]}"
fi
if [ ${#missing_pv[@]} -gt 0 ]; then
  "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing_pv[@]}"
fi
