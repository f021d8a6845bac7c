#!/usr/bin/env bash
# Builds redist-bench (Release) and runs the standard suite on 2 ranks; writes
# bench/results/standard.json and the plots. Other suites: SUITES="standard categories ...".
# Env: BUILD_DIR (build), NP (2), REPEAT (10), SUITES (standard), EXTRA (more bench flags).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
np=${NP:-2}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" --target redist-bench --parallel "$(nproc)"
exe=$(find "$build_dir" -type f -name redist-bench -perm -u+x | head -n 1)
[ -n "$exe" ] || { echo "bench.sh: redist-bench not built" >&2; exit 1; }

mpi_flags=()
if [ "$(id -u)" = 0 ]; then mpi_flags+=(--allow-run-as-root); fi
# More ranks than cores needs --oversubscribe.
if [ "$np" -gt "$(nproc)" ] || [ "$(id -u)" = 0 ]; then mpi_flags+=(--oversubscribe); fi

mkdir -p bench/results
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for suite in ${SUITES:-standard}; do
  # shellcheck disable=SC2086
  mpirun "${mpi_flags[@]}" -np "$np" "$exe" --suite "$suite" --repeat "${REPEAT:-10}" \
    --json "bench/results/$suite.json" ${EXTRA:-}
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

if command -v gnuplot >/dev/null && command -v python3 >/dev/null; then
  bench/plots/plot.sh bench/results bench/plots
fi
