#!/usr/bin/env bash
# Installs the system packages redist needs (Debian/Ubuntu). Idempotent: apt runs only when
# something is missing.
set -euo pipefail

packages=(
  cmake g++ make ninja-build
  libboost-mpi-dev libboost-graph-dev libopenmpi-dev openmpi-bin
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  doctest-dev libscalapack-openmpi-dev gnuplot-nox
  libblas-dev liblapack-dev  # Kokkos Kernels' CMake config names libblas.so, liblapack.so
  gfortran     # Fortran drivers of the ScaLAPACK drop-in library
  liblemon-dev  # relabel.hpp's min-cost flow (LEMON's NetworkSimplex, headers only)
  libglpk-dev  # the phase-power linear program (optional component)
  ccache       # rebuilds and CI legs reuse what was compiled before (docs/build-speed.md)
  python3-dev pybind11-dev python3-mpi4py python3-numpy python3-pytest  # the Python module (python/)
)
# Extra tools for CI's fuzzing run: scripts/setup.sh --fuzz
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev)
fi
# Extra tools for unpacking Debian source packages: the OpenMP Kokkos built from trilinos'
# (scripts/setup.sh --kokkos-openmp, scripts/build-kokkos-openmp.sh) and ScaLAPACK's testers
# (--source-packages, scripts/scalapack-testers.sh)
if [ "${1:-}" = "--kokkos-openmp" ] || [ "${1:-}" = "--source-packages" ]; then
  packages+=(dpkg-dev xz-utils)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: missing ${missing[*]}; run as root or install sudo" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
  "${missing[@]}"
