#!/usr/bin/env bash
# Developer script, not part of CI: the device suite (tests/device) and the device bench
# (bench/device_bench.cpp) on a GPU.
#
#   scripts/device-tests.sh bundle   on a build machine with nvcc and a CUDA Kokkos: builds
#                                    both programs in $BUILD_DIR and gathers them with the MPI
#                                    runtime they need into $BUILD_DIR/device-bundle
#   scripts/device-tests.sh run      on the GPU machine, from the repository root: puts the
#                                    bundle's MPI runtime in place, runs the suite at 1-4
#                                    ranks, then the bench (its JSON to $OUT or build dir),
#                                    and the suite at 2 and 4 ranks and the 2-rank bench
#                                    again under MPS where nvidia-cuda-mps-control is found
#   scripts/device-tests.sh exec CMD...  on the GPU machine: CMD with the bundle's MPI in
#                                    place (mpirun, its plug-ins, PATH, LD_LIBRARY_PATH);
#                                    the bundle's lib/libredist-timeline.so traces a run
#                                    (bench/timeline/kokkos_mpi_timeline.cpp)
#   scripts/device-tests.sh host-bundle  on a build machine: the host programs (redist-run,
#                                    redist-calibrate, the drop-in pdgemr2d timer linked to
#                                    ScaLAPACK and to redist) built in $HOST_BUILD_DIR and
#                                    gathered with their MPI runtime and bench/floor_ab.py
#                                    into $HOST_BUILD_DIR/host-bundle
#   scripts/device-tests.sh host     on the GPU machine's host (issue 44, point 5), from the
#                                    repository root: checks that every rank runs on this
#                                    host, then at each of $NPS ranks (2 4 8 16) cases a-d
#                                    (1xR -> Rx1 grids) against the single-copy floor
#                                    (bench/floor_ab.py, memcpy calibrated each round) and
#                                    pdgemr2d against redist in the drop-in timer; JSON to $OUT
#
# The GPU machine needs a CUDA driver, nothing else: Open MPI (Debian's 4.1, its plug-ins,
# PMIx and help files), Boost.MPI and their libraries travel in the bundle. Debian's Open
# MPI is not CUDA-aware, so messages that do not go device-ipc are staged through host
# memory; REDIST_TEST_GPU_AWARE_MPI=1
# adds the GPU-aware case for an MPI that is.
# Env: KOKKOS_CUDA_ROOT (/work/kokkos4-cuda), BUILD_DIR (build-cuda), HOST_BUILD_DIR
# (build-host), JOBS (2), LEG_TIMEOUT (seconds per mpirun of run; 300 for the suite, 240 for
# the bench), NPS (host: rank counts, "2 4 8 16"), ROUNDS (host: floor_ab rounds, 3).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-cuda}
bundle="$build/device-bundle"
host_build=${HOST_BUILD_DIR:-build-host}
mode=${1:-}
if [ "$mode" = host ] || [ "$mode" = host-bundle ]; then bundle="$host_build/host-bundle"; fi

# The bundle's copy of a system path, and back.
libdir=/usr/lib/x86_64-linux-gnu
mpi_trees=("$libdir/openmpi" "$libdir/pmix2" /usr/share/openmpi /usr/share/pmix)

# Into the bundle: Open MPI's launcher, its plug-in and help trees, and every library that
# the bundle's programs and those plug-ins load, but glibc's, the C++ runtime's (the GPU
# machine's are as new or newer) and the CUDA driver's.
gather_mpi_runtime() {
  cp -L /usr/bin/orterun "$bundle/bin/mpirun"
  cp -L /usr/bin/orted "$bundle/bin/orted"
  for tree in "${mpi_trees[@]}"; do
    [ -d "$tree" ] || continue
    mkdir -p "$bundle/root$(dirname "$tree")"
    cp -a "$tree" "$bundle/root$(dirname "$tree")/"
  done
  objects=("$bundle"/bin/*)
  mapfile -t plugins < <(find "$bundle/root" -name '*.so' -type f)
  for f in "${objects[@]}" "${plugins[@]}"; do ldd "$f" 2>/dev/null || true; done |
    awk '/=> \//{print $3}' | sort -u |
    grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda)\.so' |
    while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
}

# The bundle's MPI runtime in place: its plug-ins and help files where Debian's Open MPI looks
# for them (left alone where the machine has them), PATH and LD_LIBRARY_PATH, and the
# component paths pointed at the bundle even where the machine has an MPI of its own.
use_bundle_mpi() {
  root=$(cd "$bundle" && pwd)
  for tree in "${mpi_trees[@]}"; do
    if [ -e "$tree" ]; then
      echo "device-tests: $tree exists on this machine; using it" >&2
    elif [ -d "$root/root$tree" ]; then
      mkdir -p "$(dirname "$tree")"
      cp -a "$root/root$tree" "$(dirname "$tree")/"
    fi
  done
  export PATH="$root/bin:$PATH" LD_LIBRARY_PATH="$root/lib:$libdir/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OMPI_MCA_mca_base_component_path="$root/root$libdir/openmpi/lib/openmpi3"
  export PMIX_MCA_mca_base_component_path="$root/root$libdir/pmix2/lib/pmix"
  export OPAL_PKGDATADIR="$root/root/usr/share/openmpi" OPAL_BINDIR="$root/bin"
  # One node, shared memory between ranks; no InfiniBand or UCX probing.
  export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mtl=^ofi,psm,psm2 OMPI_MCA_osc=sm,pt2pt
}

case "$mode" in
bundle)
  kokkos=${KOKKOS_CUDA_ROOT:-/work/kokkos4-cuda}
  command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
  if ! grep -qs '#define KOKKOS_ENABLE_CUDA' "$kokkos/include/KokkosCore_config.h"; then
    echo "device-tests: no CUDA Kokkos in $kokkos (KOKKOS_CUDA_ROOT)" >&2
    exit 2
  fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" \
    -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" -DREDIST_BUILD_EXAMPLES=OFF -DREDIST_BUILD_APPS=OFF \
    -DREDIST_BUILD_BENCH=ON -DREDIST_BENCH_CHECK_ONLY=OFF >/dev/null
  cmake --build "$build" -j "${JOBS:-2}" --target redist-device-tests redist-device-bench \
    redist-timeline
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/root"
  cp "$build/tests/redist-device-tests" "$build/bench/redist-device-bench" "$bundle/bin/"
  cp "$build/bench/timeline/libredist-timeline.so" "$bundle/lib/"  # bench/timeline
  gather_mpi_runtime
  du -sh "$bundle"
  ;;
run | exec)
  [ -x "$bundle/bin/redist-device-tests" ] || {
    echo "device-tests: no bundle in $bundle (run 'bundle' first)" >&2
    exit 2
  }
  use_bundle_mpi
  export REDIST_TEST_EXPECT_DEVICE=1
  if [ "$mode" = exec ]; then  # a command under the bundle's MPI, e.g. mpirun -np 2 PROGRAM
    shift
    exec "$@"
  fi
  out=${OUT:-$build}
  status=0
  # One leg of the suite: suite NP WHAT [mpirun options...]
  suite() {
    local np=$1 what=$2
    shift 2
    echo "=== device suite, $np ranks, $what"
    if ! timeout "${LEG_TIMEOUT:-300}" mpirun --allow-run-as-root --oversubscribe -np "$np" \
      "$@" "$root/bin/redist-device-tests"; then
      echo "device-tests: FAILED at $np ranks, $what"
      status=1
    fi
  }
  # Ranks of one node read each other's device tiles (device IPC) by default; the last
  # leg forces the host-staged path the other legs no longer take.
  # (REDIST_TRANSPORT, when set, overrides the transport that test cases choose.)
  for np in 1 2 3 4; do suite "$np" "transport auto"; done
  suite 3 "transport point-to-point" -x REDIST_TRANSPORT=point-to-point
  echo "=== device bench"
  for leg in 1 2 2:point-to-point; do
    np=${leg%%:*}
    transport=auto
    [ "$leg" = "$np" ] || transport=${leg#*:}
    REDIST_TRANSPORT=$transport timeout "${LEG_TIMEOUT:-240}" mpirun --allow-run-as-root --oversubscribe \
      -np "$np" -x REDIST_TRANSPORT "$root/bin/redist-device-bench" \
      --json "$out/device-bench-np$np-$transport.json" || status=1
  done
  # Under MPS the two ranks' kernels share the GPU instead of taking turns.
  if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    mps=$(mktemp -d)
    export CUDA_MPS_PIPE_DIRECTORY="$mps/pipe" CUDA_MPS_LOG_DIRECTORY="$mps/log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
      # Under MPS the ranks' kernels overlap, so a read of a peer's tiles that raced its
      # writes would show here first.
      for np in 2 4; do
        suite "$np" "under MPS" -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY
      done
      echo "=== device bench, 2 ranks under MPS"
      timeout "${LEG_TIMEOUT:-240}" mpirun --allow-run-as-root --oversubscribe -np 2 \
        -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY "$root/bin/redist-device-bench" \
        --json "$out/device-bench-np2-auto-mps.json" || status=1
      echo quit | nvidia-cuda-mps-control
    fi
    rm -rf "$mps"
  else
    echo "=== no nvidia-cuda-mps-control here: no MPS leg"
  fi
  exit "$status"
  ;;
host-bundle)
  # Release host programs; libredist_scalapack comes with the drop-in timer (REDIST_SCALAPACK_ABI).
  cmake -S . -B "$host_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREDIST_BUILD_BENCH=ON \
    -DREDIST_BENCH_CHECK_ONLY=OFF -DREDIST_SCALAPACK_ABI=ON -DREDIST_BUILD_PYTHON=OFF >/dev/null
  cmake --build "$host_build" -j "${JOBS:-2}" --target redist-run redist-calibrate \
    redist-dropin redist-dropin-ref
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/root" "$bundle/bench"
  cp "$host_build/apps/redist-run" "$host_build/apps/redist-calibrate" \
    "$host_build/scalapack_abi/dropin/redist-dropin" "$host_build/scalapack_abi/dropin/redist-dropin-ref" \
    "$bundle/bin/"
  cp bench/floor_ab.py bench/dropin/combine.py "$bundle/bench/"
  gather_mpi_runtime
  du -sh "$bundle"
  ;;
host)
  [ -x "$bundle/bin/redist-run" ] || {
    echo "device-tests: no host bundle in $bundle (run 'host-bundle' first)" >&2
    exit 2
  }
  use_bundle_mpi
  out=${OUT:-$host_build}
  mkdir -p "$out"
  status=0
  flags=(--allow-run-as-root --oversubscribe)
  # Where the ranks landed: every rank must run on this host, each on the cores it was bound
  # to (an MPI of the machine's own once started every rank elsewhere than asked).
  for np in ${NPS:-2 4 8 16}; do
    placed=$(mpirun "${flags[@]}" -np "$np" --report-bindings sh -c 'hostname' 2>"$out/bindings-np$np.txt" |
      sort | uniq -c)
    echo "=== $np ranks: $(echo "$placed" | tr -s ' ' | tr '\n' ';') bindings in $out/bindings-np$np.txt"
    if [ "$(echo "$placed" | wc -l)" != 1 ] || [ "$(echo "$placed" | awk '{print $2}')" != "$(hostname)" ]; then
      echo "device-tests: at $np ranks, ranks ran on other hosts than $(hostname): $placed" >&2
      exit 2
    fi
  done
  command -v python3 >/dev/null 2>&1 || echo "device-tests: no python3 here: no floors, no tables" >&2
  for np in ${NPS:-2 4 8 16}; do
    g1=1x$np g2=${np}x1
    echo "=== cases a-d at $np ranks against the single-copy floor"
    if command -v python3 >/dev/null 2>&1; then
      timeout "${LEG_TIMEOUT:-900}" python3 "$root/bench/floor_ab.py" --build "redist=$root/bin/redist-run" \
        --calibrate "$root/bin/redist-calibrate" \
        --case a "8192x8192/256x256/bc:$g1/scalapack" "8192x8192/100x100/bc:$g2/scalapack" "" \
        --case b "8192x8192/64x64/bc:$g2/scalapack" "8192x8192/64x64/bc:$g1/scalapack" "" \
        --case c "8192x8192/1024x1024/bc:$g2/scalapack" "8192x8192/32x32/bc:$g2/scalapack" "" \
        --case d "4000x6000/128x96/bc:$g2/scalapack" "4000x6000/100x70/bc:$g1/scalapack" "" \
        --case a-16384 "16384x16384/256x256/bc:$g1/scalapack" "16384x16384/100x100/bc:$g2/scalapack" "" \
        --np "$np" --rounds "${ROUNDS:-3}" --repeat 5 --json "$out/host-floor-np$np.json" || status=1
    fi
    echo "=== pdgemr2d (ScaLAPACK) against redist (libredist_scalapack) at $np ranks"
    for who in ref redist; do
      prog=redist-dropin
      [ "$who" = ref ] && prog=redist-dropin-ref
      timeout "${LEG_TIMEOUT:-900}" mpirun "${flags[@]}" -np "$np" "$root/bin/$prog" \
        --json "$out/host-dropin-$who-np$np.json" >/dev/null || status=1
    done
    if command -v python3 >/dev/null 2>&1; then
      python3 "$root/bench/combine.py" "$out/host-dropin-np$np.json" "$out/host-dropin-ref-np$np.json" \
        "$out/host-dropin-redist-np$np.json" || status=1
    fi
  done
  exit "$status"
  ;;
*)
  echo "usage: scripts/device-tests.sh bundle|run|exec CMD...|host-bundle|host" >&2
  exit 2
  ;;
esac
