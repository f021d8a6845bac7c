#!/usr/bin/env bash
# setup + build + every test. Extra args -> ctest (e.g. -R unit, -j2).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
REDIST_SETUP_DONE=1 scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure "$@"
