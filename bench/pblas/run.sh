#!/usr/bin/env bash
# The PBLAS drop-in bench: redist-dropin-pblas, an unmodified Fortran ScaLAPACK program,
# run as it is (PBLAS's pdtran and pdgeadd) and with LD_PRELOAD=libredist_scalapack.so,
# alternately ROUNDS times so that both see the same load; combine.py pools the rounds into
# $RESULTS/dropin-pblas.json and prints the table of bench/README.md.
# Env: BUILD_DIR (build), NP (2), REPEAT (10), ROUNDS (3), RESULTS (bench/results).
set -euo pipefail
cd "$(dirname "$0")/../.."

build_dir=${BUILD_DIR:-build}
np=${NP:-2}
rounds=${ROUNDS:-3}
results=${RESULTS:-bench/results}
cmake --build "$build_dir" --target redist-dropin-pblas >&2
bin=$(find "$build_dir" -type f -name redist-dropin-pblas -perm -u+x | head -n 1)
lib=$(find "$build_dir" -name libredist_scalapack.so | head -n 1)
[ -n "$bin" ] && [ -n "$lib" ] || { echo "run.sh: not built in $build_dir" >&2; exit 1; }
lib=$(realpath "$lib")

mpi_flags=()
if [ "$(id -u)" = 0 ]; then mpi_flags+=(--allow-run-as-root); fi
if [ "$np" -gt "$(nproc)" ]; then mpi_flags+=(--oversubscribe); fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq -w 1 "$rounds"); do  # 01, 02, ...: the runs pair up in name order
  mpirun "${mpi_flags[@]}" -np "$np" "$bin" --repeat "${REPEAT:-10}" \
    --json "$work/pblas-$r.json"
  mpirun "${mpi_flags[@]}" -np "$np" -x LD_PRELOAD="$lib" "$bin" --repeat "${REPEAT:-10}" \
    --json "$work/redist-$r.json"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$results"
python3 bench/pblas/combine.py "$results/dropin-pblas.json" "$work"/pblas-*.json \
  "$work"/redist-*.json
