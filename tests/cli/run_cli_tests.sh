#!/usr/bin/env bash
# CLI tests of redist-run: verified runs with JSON and dot output, and every kind of bad input
# (exit status 2, exactly one "redist-run: <argument>: ..." line, no hang).
#
#   tests/cli/run_cli_tests.sh BUILD_DIR
#
# Environment: MPIEXEC (default: mpiexec), MPIEXEC_FLAGS (default for Open MPI:
# "--allow-run-as-root --oversubscribe", harness-only flags), REDIST_RUN (default:
# BUILD_DIR/examples/redist-run), CLI_TIMEOUT seconds per run (default 120).
set -u

build=${1:?usage: run_cli_tests.sh BUILD_DIR}
exe=${REDIST_RUN:-$build/examples/redist-run}
mpiexec=${MPIEXEC:-mpiexec}
if [[ -z ${MPIEXEC_FLAGS+x} ]]; then
  if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    MPIEXEC_FLAGS="--allow-run-as-root --oversubscribe"
  else
    MPIEXEC_FLAGS=""
  fi
fi
limit=${CLI_TIMEOUT:-120}
export OMP_NUM_THREADS=1

if [[ ! -x $exe ]]; then
  echo "run_cli_tests: redist-run not found at $exe" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
count=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run NP ARGS...: runs redist-run; sets rc, out (stdout file), err (stderr file).
run() {
  local np=$1
  shift
  out=$work/out.$count
  err=$work/err.$count
  count=$((count + 1))
  # shellcheck disable=SC2086
  timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS -np "$np" "$exe" "$@" >"$out" 2>"$err"
  rc=$?
}

# expect_ok NP ARGS...: exit 0, verification passed, JSON consistent.
expect_ok() {
  local np=$1
  shift
  local json=$work/run.$count.json
  run "$np" "$@" --verify --json "$json"
  if [[ $rc -ne 0 ]]; then
    fail "np=$np $* -> exit $rc (expected 0)"
    sed 's/^/    /' "$err" >&2
    return
  fi
  grep -q "verify   OK" "$out" || fail "np=$np $*: no 'verify OK' line"
  python3 - "$json" "$np" <<'PY' || fail "np=$np $*: JSON check failed"
import json, sys
j = json.load(open(sys.argv[1]))
np = int(sys.argv[2])
assert j["ranks"] == np, j["ranks"]
assert len(j["categories"]) == 9
for k in ("sent", "recv", "local"):
    assert len(j["bytes"][k]) == np, k
assert sum(j["bytes"]["sent"]) == sum(j["bytes"]["recv"])
assert j["verified"] is True
r = j["region"]
assert j["verified_elements"] > 0
assert sum(j["bytes"]["recv"]) + sum(j["bytes"]["local"]) == r["rows"] * r["cols"] * j["element_bytes"]
assert j["time_s"]["min"] <= j["time_s"]["median"]
for k in ("src", "dst", "type", "batch", "plan_time_s", "bandwidth"):
    assert k in j, k
PY
}

# expect_usage NP ARGUMENT ARGS...: exit 2 and exactly one "redist-run: ARGUMENT: " line.
expect_usage() {
  local np=$1 arg=$2
  shift 2
  run "$np" "$@"
  if [[ $rc -eq 124 ]]; then
    fail "np=$np $* -> timed out (hang)"
    return
  fi
  [[ $rc -eq 2 ]] || fail "np=$np $* -> exit $rc (expected 2)"
  local lines
  lines=$(grep -c "^redist-run: " "$err")
  [[ $lines -eq 1 ]] || fail "np=$np $* -> $lines 'redist-run:' lines on stderr (expected 1)"
  grep -q "^redist-run: $arg: " "$err" || {
    fail "np=$np $* -> stderr does not name $arg"
    sed 's/^/    /' "$err" >&2
  }
}

# --- good runs ------------------------------------------------------------------------------
expect_ok 1 --src 300x200/32x32/bc:1x1 --dst 300x200/25x40/bc:1x1/scalapack --repeat 2
expect_ok 2 --src 512x512/64x64/bc:1x2 --dst 512x512/100x100/bc:2x1 --type float
expect_ok 3 --src 300x200/7x9/random:3 --dst 400x300/10x10/band:2:1x3:3x1 \
  --region '200x150@50,10->17,100' --type cdouble --batch 1
expect_ok 4 --src 256x256/32x32/bc:2x2:2x1/scalapack --dst 240x260/30x20/random:5 \
  --region '200x190@17,3->0,60' --type cfloat --batch 2 --repeat 3
expect_ok 4 --src 128x128/8x8/band:1:1x4:2x2 --dst 128x128/1x1/bc:4x1 --type int
expect_ok 4 --src 100x100/10x10/bc:1x1 --dst 100x100/13x7/bc:2x2/scalapack --region '0x50@0,0->0,0'

# --relabel: the chosen target roles keep more bytes local than the identity, still verified.
local_bytes() { python3 -c "import json,sys; print(sum(json.load(open(sys.argv[1]))['bytes']['local']))" "$1"; }
relabel_args=(--src 400x400/20x20/random:1 --dst 400x400/40x40/random:2 --repeat 1)
expect_ok 4 "${relabel_args[@]}"
plain=$(local_bytes "$work/run.$((count - 1)).json")
expect_ok 4 "${relabel_args[@]}" --relabel
relabeled=$(local_bytes "$work/run.$((count - 1)).json")
[[ $relabeled -gt $plain ]] || fail "--relabel: local bytes $relabeled not above $plain"

# --dot writes rank 0's task graph.
dot=$work/graph.dot
run 4 --src 30x30/10x10/bc:2x2 --dst 30x30/30x30/bc:1x1 --dot "$dot"
[[ $rc -eq 0 && -s $dot ]] || fail "--dot: exit $rc or empty file"
grep -q "Receive" "$dot" || fail "--dot: no Receive task in the graph"
grep -q "digraph" "$dot" || fail "--dot: not a Graphviz digraph"

# --- bad input: exit 2 on every rank, one line naming the argument ---------------------------
expect_usage 1 --src --src 8192x8192/256x256 --dst 8x8/2x2/bc:1x1
expect_usage 1 --region --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --region '5x5@6,0->0,0'
for np in 3; do
  expect_usage $np --src --src 8192x8192/256x256 --dst 8x8/2x2/bc:1x1
  expect_usage $np --src --src 10x10/2x2/bc:0x1 --dst 8x8/2x2/bc:1x1
  expect_usage $np --src --src 10x10/2x2/random:1/scalapack --dst 8x8/2x2/bc:1x1
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/nope:1
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:4x4
  expect_usage $np --src --src 10x10/2x2/band:1:1x1:1x8 --dst 10x10/2x2/bc:1x1
  expect_usage $np --region --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --region '5x5@6,0->0,0'
  expect_usage $np --region --src 10x10/2x2/bc:1x1 --dst 8x8/2x2/bc:1x1 --region '9x1@0,0->0,0'
  expect_usage $np --region --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --region '5x5@1,1-2,2'
  expect_usage $np --type --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --type quad
  expect_usage $np --batch --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --batch -1
  expect_usage $np --repeat --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --repeat 0
  expect_usage $np --frobnicate --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --frobnicate
  expect_usage $np --json --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --json
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst
  expect_usage $np --dst --src 10x10/2x2/bc:1x1
  expect_usage $np --relabel --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1/scalapack --relabel
done

echo "run_cli_tests: $count runs, $failures failures"
[[ $failures -eq 0 ]]
