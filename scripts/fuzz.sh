#!/usr/bin/env bash
# Fuzz the planner with libFuzzer for a bounded time, then fold new coverage into the
# committed corpus (minimised with -merge=1).
#   scripts/fuzz.sh [seconds]            default 60
# Env: FUZZ_CXX (default clang++-14, else clang++), BUILD_DIR (default build-fuzz),
#      FUZZ_JOBS (parallel fuzzing jobs, default 1), FUZZ_MERGE=0 to leave the corpus alone.
# Needs clang with libFuzzer: apt-get install -y clang-14 libfuzzer-14-dev libclang-rt-14-dev
# Exits non-zero if the fuzzer finds a crash or an oracle failure; the reproducer is left
# in $BUILD_DIR/artifacts/ (replay it: $BUILD_DIR/redist-fuzz-plan <file>).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
build="${BUILD_DIR:-build-fuzz}"
cxx="${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}"
if [[ -z "$cxx" ]]; then
  echo "fuzz.sh: no clang++ found (apt-get install -y clang-14 libfuzzer-14-dev libclang-rt-14-dev)" >&2
  exit 1
fi
corpus="tests/fuzz/corpus"

cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DREDIST_BUILD_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" --target redist-fuzz-plan -j"${FUZZ_JOBS:-1}"

# New inputs go to a scratch corpus; the committed one is read-only input here.
scratch="$build/corpus-new"
mkdir -p "$scratch" "$build/artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
"$build/redist-fuzz-plan" -max_total_time="$seconds" -max_len=256 -timeout=10 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} \
  "$scratch" "$corpus"

if [[ "${FUZZ_MERGE:-1}" != 0 ]]; then
  "$build/redist-fuzz-plan" -merge=1 "$corpus" "$scratch" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new" || true
  echo "fuzz.sh: corpus: $(ls "$corpus" | wc -l) files in $corpus"
fi
