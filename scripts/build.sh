#!/usr/bin/env bash
# setup + configure + build. Env: BUILD_DIR (build), BUILD_TYPE (Release), BUILD_TARGETS
# (space-separated; default: everything), extra args -> cmake.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${REDIST_SETUP_DONE:-}" ]; then
  scripts/setup.sh
fi

build_dir=${BUILD_DIR:-build}
configure=(cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}")
# Pick Ninja for a fresh build dir only; an existing one keeps its generator.
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  configure+=(-G Ninja)
fi
"${configure[@]}" "$@"
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
