#!/usr/bin/env bash
# Builds the unit and MPI tests with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan and runs them: unit tests in one process, MPI tests at 2 ranks, the device suite
# (host memory) at 3, and the fuzz corpus replay. Fails on any sanitizer report (every report aborts the process).
#   scripts/sanitize.sh            (env: BUILD_DIR=build-asan, JOBS=2, CXX)
# Open MPI keeps allocations until exit, so the MPI run uses detect_leaks=0; the unit tests
# and the fuzz replay run with LeakSanitizer (tests/sanitizers/lsan.supp).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${BUILD_DIR:-build-asan}"
jobs="${JOBS:-2}"
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

# -O0: under ASan the heaviest test translation unit compiles in 64 s at -O0 and 233 s at -O1
# (docs/build-speed.md), and the suites still run in seconds.
opt="-O0 -g"
# generator DIR: Ninja for a fresh build dir when installed; an existing one keeps its own.
generator() {
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then echo "-GNinja"; fi
}
cmake -S . -B "$build" $(generator "$build") -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="$opt" \
  -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DREDIST_BUILD_EXAMPLES=OFF -DREDIST_BUILD_APPS=OFF -DREDIST_BUILD_BENCH=OFF -DREDIST_INSTALL=OFF >/dev/null
cmake --build "$build" --target redist-unit-tests redist-mpi-tests redist-device-tests -j"$jobs"
cmake -S tests/fuzz -B "$build/fuzz" $(generator "$build/fuzz") -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="$opt" \
  -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$build/fuzz" --target redist-fuzz-replay -j"$jobs"

common="abort_on_error=1:halt_on_error=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
log="$build/sanitize.log"
: >"$log"

suites=0
run() {  # run <label> <command...>: fails on a non-zero exit or any sanitizer report
  echo "sanitize.sh: $1"
  shift
  set +e
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  if [[ $rc -ne 0 ]]; then
    echo "sanitize.sh: FAILED (exit $rc)" >&2
    exit 1
  fi
  suites=$((suites + 1))
}

ASAN_OPTIONS="$common:detect_leaks=1" run "unit tests" "$build/tests/redist-unit-tests"
ASAN_OPTIONS="$common:detect_leaks=1" run "fuzz corpus replay" \
  "$build/fuzz/redist-fuzz-replay" tests/fuzz/corpus
mpi_flags=()
if mpiexec --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  mpi_flags=(--allow-run-as-root --oversubscribe -x ASAN_OPTIONS -x UBSAN_OPTIONS -x OMP_NUM_THREADS)
fi
# Kokkos host threads off, one thread per rank: two ranks on two cores.
export OMP_NUM_THREADS=1
ASAN_OPTIONS="$common:detect_leaks=0" run "MPI tests, 2 ranks" \
  mpiexec "${mpi_flags[@]}" -np 2 "$build/tests/redist-mpi-tests"
# The cross-memory transport forced: the kernel writes into the targets and the bounce
# buffer, the sanitizers check everything around it (docs/transports.md).
REDIST_TRANSPORT=cross-memory ASAN_OPTIONS="$common:detect_leaks=0" \
  run "MPI tests, 2 ranks, cross-memory forced" \
  mpiexec "${mpi_flags[@]}" -np 2 "$build/tests/redist-mpi-tests"
ASAN_OPTIONS="$common:detect_leaks=0" run "device suite (host memory), 3 ranks" \
  mpiexec "${mpi_flags[@]}" -np 3 "$build/tests/redist-device-tests"

if grep -qE "ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:" "$log"; then
  echo "sanitize.sh: FAILED: sanitizer report in $log" >&2
  exit 1
fi
echo "sanitize.sh: $suites suites clean"
