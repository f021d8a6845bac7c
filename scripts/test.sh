#!/usr/bin/env bash
# setup + build + every test. Extra args -> ctest (e.g. -R unit, -j2).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The benchmarks are compiled for errors only: the tests do not run them (scripts/bench.sh builds
# them), and their -O3 code generation was an eighth of this build (docs/build-speed.md).
REDIST_SETUP_DONE=1 scripts/build.sh -DREDIST_BENCH_CHECK_ONLY=ON
# As many tests at once as there are cores, unless told (CTEST_PARALLEL_LEVEL, or -j in the
# arguments): each MPI entry claims a core a rank (PROCESSORS), so a 4-rank one runs alone on
# 2 cores, and the small entries (compile-fail, examples, packages) fill the gaps.
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure "$@"
