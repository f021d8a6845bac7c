#!/usr/bin/env bash
# setup + build, then the main job: redistribute an 8192 x 8192 matrix from 256 x 256 tiles,
# 1 x 4 block-cyclic, to 100 x 100 tiles, 2 x 2 block-cyclic, on 4 ranks; verify; JSON report.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
REDIST_SETUP_DONE=1 scripts/build.sh

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

if [ -x build/examples/redist-run ]; then
  cmd=("${mpirun[@]}" -np "$np" build/examples/redist-run
       --src 8192x8192/256x256/bc:1x4 --dst 8192x8192/100x100/bc:2x2
       --verify --json build/main-report.json)
elif [ -x build/examples/geometry ]; then
  echo "main: build/examples/redist-run not built yet; running build/examples/geometry instead"
  cmd=(build/examples/geometry)
else
  echo "main: neither build/examples/redist-run nor build/examples/geometry exists yet" >&2
  exit 1
fi

echo "main: ${cmd[*]}"
"${cmd[@]}"
