#!/usr/bin/env bash
# setup + build of the one program it runs, then the main job: redistribute an 8192 x 8192
# matrix from 256 x 256 tiles, 1 x 4 block-cyclic, to 100 x 100 tiles, 2 x 2 block-cyclic, on
# 4 ranks; verify; JSON report. The tests are scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
start=$SECONDS
REDIST_SETUP_DONE=1 BUILD_TARGETS=redist-run scripts/build.sh
echo "main: redist-run built in $((SECONDS - start)) s"

np=4
mpirun=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  # Open MPI refuses to run as root (containers, CI) without --allow-run-as-root, and refuses
  # more ranks than cores without --oversubscribe. A normal user on >= 4 cores needs neither.
  if [ "$(id -u)" -eq 0 ]; then
    mpirun+=(--allow-run-as-root --oversubscribe)
  elif [ "$(nproc)" -lt "$np" ]; then
    mpirun+=(--oversubscribe)
  fi
fi

cmd=("${mpirun[@]}" -np "$np" build/apps/redist-run
     --src 8192x8192/256x256/bc:1x4 --dst 8192x8192/100x100/bc:2x2
     --verify --json build/main-report.json)

echo "main: ${cmd[*]}"
"${cmd[@]}"
