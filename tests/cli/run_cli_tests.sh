#!/usr/bin/env bash
# CLI tests of redist-run: verified runs with JSON and dot output, and every kind of bad input
# (exit status 2, exactly one "redist-run: <argument>: ..." line, no hang), including ranks
# given different command lines (MPMD), sizes that overflow, and unwritable outputs; --help
# (its grammar, options and examples, which are run, and docs/redist-run.md's copy of it)
# and --kokkos-help.
#
#   tests/cli/run_cli_tests.sh BUILD_DIR
#
# Environment: MPIEXEC (default: mpiexec), MPIEXEC_FLAGS (default for Open MPI:
# "--allow-run-as-root --oversubscribe", harness-only flags), REDIST_RUN (default:
# BUILD_DIR/apps/redist-run), CLI_TIMEOUT seconds per run (default 120),
# CLI_FAST_TIMEOUT seconds for a run that must fail at once on every rank (default 30).
set -u

build=${1:?usage: run_cli_tests.sh BUILD_DIR}
exe=${REDIST_RUN:-$build/apps/redist-run}
# shellcheck source=tests/cli/mpiexec.sh
source "$(dirname "$0")/mpiexec.sh"
limit=${CLI_TIMEOUT:-120}
export OMP_NUM_THREADS=1

if [[ ! -x $exe ]]; then
  echo "run_cli_tests: redist-run not found at $exe" >&2
  exit 1
fi
# Absolute: the --help examples run in the scratch directory (they write report.json).
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
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
# Bytes between nodes: the part of sent / recv whose peer is on another node.
inter = j["bytes"]["inter_node"]
assert len(inter["sent"]) == np and len(inter["recv"]) == np
assert sum(inter["sent"]) == sum(inter["recv"])
assert all(0 <= inter["sent"][r] <= j["bytes"]["sent"][r] for r in range(np))
assert all(0 <= inter["recv"][r] <= j["bytes"]["recv"][r] for r in range(np))
assert len(j["node_of_rank"]) == np and j["nodes"] == len(set(j["node_of_rank"]))
if j["nodes"] == 1:
    assert sum(inter["sent"]) == 0
assert j["relabel"]["kind"] in ("off", "flat", "nodes")
assert j["verified"] is True
r = j["region"]
assert j["verified_elements"] > 0
# Kept elements: the region, or its trapezoid (in the target rectangle, C x R when
# transposed), times the matrices moved in one exchange.
rows, cols = (r["cols"], r["rows"]) if j.get("op", "n") != "n" else (r["rows"], r["cols"])
d = 1 if j.get("diag") == "u" else 0
# pxtrmr2d's trapezoid: the diagonal ends in the bottom-right corner of a lower one wider
# than tall and of an upper one taller than wide.
keep = {"all": lambda x, y: True, "l": lambda x, y: x - y >= d - max(cols - rows, 0),
        "u": lambda x, y: y - x >= d - max(rows - cols, 0)}
kept = sum(1 for x in range(rows) for y in range(cols) if keep[j.get("uplo", "all")](x, y))
assert sum(j["bytes"]["recv"]) + sum(j["bytes"]["local"]) == j.get("count", 1) * kept * j["element_bytes"]
assert j["time_s"]["min"] <= j["time_s"]["median"]
for k in ("src", "dst", "type", "batch", "plan_time_s", "bandwidth"):
    assert k in j, k
# The construction's parts (each the slowest rank's): on every rank buffers <= wiring and
# each part <= that rank's whole construction.
s = j["set_up_s"]
assert 0 <= s["buffers"] <= s["wiring"] <= j["plan_time_s"] and 0 < s["plan"] <= j["plan_time_s"], s
# The plan's own memory beside the buffers, per rank.
for k in ("buffer_bytes", "plan_bytes", "schedule_bytes"):
    assert len(j[k]) == np and all(isinstance(b, int) and b >= 0 for b in j[k]), k
if r["rows"] * r["cols"] > 0:
    assert sum(j["plan_bytes"]) > 0 and sum(j["schedule_bytes"]) > 0
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

# expect_line PATTERN: the last run's stdout has a line matching the grep -E PATTERN.
expect_line() {
  grep -qE -- "$1" "$work/out.$((count - 1))" || {
    fail "no line matching '$1' in the output of run $((count - 1))"
    sed 's/^/    /' "$work/out.$((count - 1))" >&2
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

# Transform while moving (--op, --alpha, --beta), triangles (--uplo, --diag), several
# matrices in one exchange (--count): every element of every target checked.
expect_ok 2 --src 300x200/16x16/bc:1x2 --dst 200x300/10x10/bc:2x1 --op t --alpha 2 --beta 0.5
expect_ok 3 --src 120x90/7x5/bc:3x1 --dst 130x140/9x4/bc:1x3/scalapack \
  --region '80x60@3,4->10,20' --op c --type cdouble --uplo l --diag u --count 3 --beta -1
expect_ok 4 --src 100x100/10x10/bc:2x2 --dst 100x100/8x8/bc:4x1 --uplo u --type int --alpha 3
expect_ok 1 --src 64x64/4x4/bc:1x1 --dst 64x64/5x5/bc:1x1/scalapack --count 2 --op t --type float

# --relabel: the chosen target roles keep more bytes local than the identity, still verified.
local_bytes() { python3 -c "import json,sys; print(sum(json.load(open(sys.argv[1]))['bytes']['local']))" "$1"; }
relabel_args=(--src 400x400/20x20/random:1 --dst 400x400/40x40/random:2 --repeat 1)
expect_ok 4 "${relabel_args[@]}"
plain=$(local_bytes "$work/run.$((count - 1)).json")
expect_ok 4 "${relabel_args[@]}" --relabel
relabeled=$(local_bytes "$work/run.$((count - 1)).json")
[[ $relabeled -gt $plain ]] || fail "--relabel: local bytes $relabeled not above $plain"
# The same under --op t, 400x300 into 300x400: the roles are chosen on op(source)'s volumes
# (the untransposed region does not fit the target, and was once refused).
relabel_t_args=(--src 400x300/20x20/random:1 --dst 300x400/40x40/random:2 --op t --repeat 1)
expect_ok 4 "${relabel_t_args[@]}"
plain_t=$(local_bytes "$work/run.$((count - 1)).json")
expect_ok 4 "${relabel_t_args[@]}" --relabel --uplo l
expect_ok 4 "${relabel_t_args[@]}" --relabel
relabeled_t=$(local_bytes "$work/run.$((count - 1)).json")
[[ $relabeled_t -gt $plain_t ]] || fail "--relabel --op t: local bytes $relabeled_t not above $plain_t"

# --relabel nodes on simulated nodes of 2 ranks (topology.hpp): never more bytes between
# nodes than the flat relabeling, the report's before / after are the plan's, and one node
# of all ranks changes nothing.
# inter_node_bytes FILE: "BEFORE AFTER MEASURED NODES" of a relabeled run's JSON.
inter_node_bytes() {
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); r=j['relabel']
print(r['inter_node_bytes']['before'], r['inter_node_bytes']['after'],
      sum(j['bytes']['inter_node']['sent']), j['nodes'])" "$1"
}
export REDIST_RANKS_PER_NODE=2
expect_ok 4 "${relabel_args[@]}" --relabel
read -r flat_before flat_after flat_measured flat_nodes < <(inter_node_bytes "$work/run.$((count - 1)).json")
expect_ok 4 "${relabel_args[@]}" --relabel nodes
expect_line "^  relabel  nodes \(fewest bytes between nodes"
expect_line "^  nodes    2, node of each rank: 0 0 1 1; between nodes shift$"
read -r before after measured nodes < <(inter_node_bytes "$work/run.$((count - 1)).json")
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['inter_node_schedule']
sys.exit(0 if s == 'shift' else 'inter_node_schedule: ' + s + ', not shift (auto on 2 nodes)')" \
  "$work/run.$((count - 1)).json" || fail "--relabel nodes: the JSON's inter_node_schedule"
[[ $nodes -eq 2 && $flat_nodes -eq 2 ]] || fail "REDIST_RANKS_PER_NODE=2: $nodes nodes, not 2"
[[ $before -eq $flat_before ]] || fail "--relabel nodes: before $before, flat's $flat_before"
[[ $after -eq $measured && $flat_after -eq $flat_measured ]] ||
  fail "--relabel: report after $after / $flat_after, plan $measured / $flat_measured"
[[ $after -le $flat_after && $after -le $before ]] ||
  fail "--relabel nodes: $after bytes between nodes, flat $flat_after, as given $before"
expect_ok 3 --src 300x200/7x9/random:3 --dst 300x200/10x10/bc:3x1 --relabel nodes --type float
unset REDIST_RANKS_PER_NODE
expect_ok 4 "${relabel_args[@]}" --relabel nodes
read -r before after measured nodes < <(inter_node_bytes "$work/run.$((count - 1)).json")
[[ $nodes -eq 1 && $before -eq 0 && $after -eq 0 ]] ||
  fail "--relabel nodes on one node: $nodes nodes, $before -> $after bytes between them"
[[ $(local_bytes "$work/run.$((count - 1)).json") -eq $relabeled ]] ||
  fail "--relabel nodes on one node: not the flat relabeling's local bytes"

# --transport: what carried the messages (docs/transports.md), in the report and the JSON.
# transport_of FILE: "PATH POLICY CROSS-MEMORY WINDOW REFUSED?" of a run's JSON.
transport_of() {
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); m=j['transport_messages']
print(j['transport'], j['transport_policy'], m['cross-memory'], m['node-window'],
      'refused' if j['cross_memory_refused'] else 'none')" "$1"
}
transport_args=(--src 512x256/512x64/bc:1x2/scalapack --dst 512x256/128x256/bc:2x1/scalapack --repeat 1)
expect_ok 2 "${transport_args[@]}" --transport cross-memory
read -r path policy cma window refused < <(transport_of "$work/run.$((count - 1)).json")
[[ $path == cross-memory && $policy == cross-memory && $cma -gt 0 && $window -eq 0 &&
  $refused == none ]] || fail "--transport cross-memory: $path $policy $cma $window $refused"
expect_line "^  transport cross-memory: messages point-to-point 0 node-window 0 direct 0 cross-memory $cma push 0$"
REDIST_CROSS_MEMORY_PROBE=fail expect_ok 2 "${transport_args[@]}" --transport cross-memory
read -r path policy cma window refused < <(transport_of "$work/run.$((count - 1)).json")
[[ $path == node-window && $cma -eq 0 && $window -gt 0 && $refused == refused ]] ||
  fail "--transport cross-memory, probe refused: $path $cma $window $refused"
expect_ok 2 "${transport_args[@]}" --transport point-to-point
read -r path policy cma window refused < <(transport_of "$work/run.$((count - 1)).json")
[[ $path == point-to-point && $policy == point-to-point ]] ||
  fail "--transport point-to-point: $path $policy"
expect_ok 1 --src 512x256/512x64/bc:1x1/scalapack --dst 512x256/128x256/bc:1x1 --repeat 1 \
  --transport node-window
read -r path policy cma window refused < <(transport_of "$work/run.$((count - 1)).json")
[[ $path == none ]] || fail "one rank: messages carried by $path"
expect_usage 2 --transport "${transport_args[@]}" --transport shm

# --shared: a side in node-shared memory. Between the ranks of this node a node-shared target
# is written by its senders (push), a node-shared source read in place (direct); with both,
# push. Every element verified; tile storage too, where the short tile columns of a
# 32-row target go through the node window (ExecutionOptions::push_min_run_bytes).
messages_of() {
  python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['transport_messages']
print(m['push'], m['direct'], m['node-window'], m['cross-memory'], m['point-to-point'])" "$1"
}
shared_args=(--src 512x256/64x64/bc:1x2/scalapack --dst 512x256/100x100/bc:2x1/scalapack --repeat 2)
expect_ok 2 "${shared_args[@]}" --shared dst
read -r push direct window cma p2p < <(messages_of "$work/run.$((count - 1)).json")
[[ $push -gt 0 && $direct -eq 0 && $window -eq 0 && $cma -eq 0 && $p2p -eq 0 ]] ||
  fail "--shared dst: push $push direct $direct node-window $window cross-memory $cma p2p $p2p"
expect_line "^  transport auto: messages point-to-point 0 node-window 0 direct 0 cross-memory 0 push $push$"
# The page size of node-shared memory, in the text and the JSON (0: private).
expect_line "^  node-shared src private, dst [0-9]+ (KiB|MiB) pages"
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['node_shared_page_bytes']
sys.exit(0 if p['src'] == 0 and p['dst'] >= 4096 and p['dst'] & (p['dst'] - 1) == 0 else 1)" \
  "$work/run.$((count - 1)).json" || fail "--shared dst: node_shared_page_bytes"
expect_ok 2 "${shared_args[@]}" --shared src
read -r push direct window cma p2p < <(messages_of "$work/run.$((count - 1)).json")
[[ $direct -gt 0 && $push -eq 0 && $window -eq 0 ]] ||
  fail "--shared src: push $push direct $direct node-window $window"
expect_ok 2 "${shared_args[@]}" --shared both
read -r push direct window cma p2p < <(messages_of "$work/run.$((count - 1)).json")
[[ $push -gt 0 && $direct -eq 0 ]] || fail "--shared both: push $push direct $direct"
expect_ok 2 --src 512x256/128x64/bc:2x1 --dst 512x256/32x32/bc:2x1 --repeat 1 --shared dst
read -r push direct window cma p2p < <(messages_of "$work/run.$((count - 1)).json")
[[ $push -eq 0 && $window -gt 0 ]] || fail "--shared dst, 32-row tiles: push $push node-window $window"
expect_usage 2 --shared "${shared_args[@]}" --shared target

# --dot writes rank 0's task graph.
dot=$work/graph.dot
run 4 --src 30x30/10x10/bc:2x2 --dst 30x30/30x30/bc:1x1 --dot "$dot"
[[ $rc -eq 0 && -s $dot ]] || fail "--dot: exit $rc or empty file"
grep -q "Receive" "$dot" || fail "--dot: no Receive task in the graph"
grep -q "digraph" "$dot" || fail "--dot: not a Graphviz digraph"

# --- bad input: exit 2 on every rank, one line naming the argument ---------------------------
expect_usage 2 --region --src 100x50/10x10/bc:2x1 --dst 100x40/10x10/bc:1x2 --op t --region 100x50
expect_usage 1 --op --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --op x
expect_usage 1 --diag --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --diag u
expect_usage 1 --uplo --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --uplo lower
expect_usage 1 --alpha --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --type int --alpha 1.5
expect_usage 1 --beta --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --beta nan
expect_usage 1 --count --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --count 0
# --count has no cap but memory: more matrices than the node holds are refused before any is
# built, with the count, the bytes and how many would fit; a count overflowing 64 bits too.
expect_usage 2 --count --src 10x10/2x2/bc:1x2 --dst 10x10/2x2/bc:2x1 --count 1000000000000
grep -qE "^redist-run: --count: 1000000000000 matrices of each side need [0-9]+ bytes on one node \([0-9]+ per matrix pair\), more than its memory \+ swap \([0-9]+\); at most [0-9]+ fit$" "$err" ||
  fail "--count 10^12: message: $(cat "$err")"
expect_usage 1 --count --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --count 9223372036854775807
grep -q "need more than 2^63 bytes" "$err" || fail "--count 2^63-1: message: $(cat "$err")"
expect_usage 1 --count --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --count 99999999999999999999
# Above the 2^20 that --count was once cut to, silently: all moved and checked (3.4 GB peak,
# 10 s on the 2-core VM of bench/README.md), where the memory is there.
avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null)
if [[ ${avail_kib:-0} -ge $((8 * 1024 * 1024)) ]]; then
  expect_ok 1 --src 1x1/1x1/bc:1x1 --dst 1x1/1x1/bc:1x1 --count 1048577 --repeat 1
  python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['count'] == 1048577" \
    "$work/run.$((count - 1)).json" || fail "--count 1048577: not the count asked for"
else
  echo "run_cli_tests: --count 1048577 skipped: MemAvailable $((${avail_kib:-0} / 1024)) MiB < 8 GiB"
fi
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
  expect_usage $np --relabel --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc:1x1 --relabel node
  grep -q "expected flat or nodes (or no value), got 'node'" "$err" || fail "--relabel node: message"
done

# --- heterogeneous layouts, Algorithm 2 targets, two-level placement (issue 13) --------------
expect_ok 4 --src 1000x1000/50x50/hetero:2x2:1,1,5,5 --dst 1000x1000/50x50/synth:100,100,100,100
expect_line "^  tiles    per rank: src 30 30 170 170, dst 100 100 100 100$"
expect_line "^  moved    140 of 400 tiles change owner \(lower bound 140\)$"
expect_ok 4 --src 400x400/20x20/hetero:2x2:0.5,1,2,4 --dst 400x400/20x20/synth:100,100,100,100 \
  --region '200x180@40,20->40,20' --type cdouble --batch 2
expect_line "^  moved    ([0-9]+) of 90 tiles change owner \\(lower bound \\1\\)$"
expect_ok 3 --src 300x200/20x20/hetero1d:cols:1,2,3 --dst 300x200/25x25/bc2:1x3:2x2 --type float
expect_line "^  tiles    per rank: src 30 45 75, dst 36 36 24$"
expect_ok 2 --src 120x120/10x10/bc2:1x2:3 --dst 120x120/10x10/synth:30,48:lower --relabel --type int
expect_ok 1 --src 64x64/8x8/hetero1d:rows:2 --dst 64x64/8x8/synth:64
for np in 3; do
  expect_usage $np --src --src 10x10/2x2/hetero:1x3:1,-2,3 --dst 10x10/2x2/bc:1x1
  grep -q "power w1 must be non-negative, got '-2'" "$err" || fail "negative power: message"
  expect_usage $np --src --src 10x10/2x2/hetero:2x2:1,2,3 --dst 10x10/2x2/bc:1x1
  grep -q "expected 4 powers (one per rank of the 2x2 grid), got 3" "$err" || fail "power count"
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/hetero1d:rows:0,0
  expect_usage $np --dst --src 10x10/2x2/bc:1x3 --dst 10x10/2x2/synth:5,5,5
  grep -q "tile counts sum to 15 but the tile grid has 25 tiles: 'synth:5,5,5'" "$err" ||
    fail "count sum: message"
  expect_usage $np --dst --src 10x10/2x2/bc:1x3 --dst 10x10/2x2/synth:20,5
  grep -q "expected at least 3 tile counts (one per rank of the source), got 2" "$err" ||
    fail "count number: message"
  expect_usage $np --dst --src 10x10/2x2/bc:1x3 --dst 10x10/2x2/synth:10,-5,20
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/synth:5,5,5,5,5
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 12x10/2x2/synth:30
  expect_usage $np --src --src 10x10/2x2/synth:25 --dst 10x10/2x2/bc:1x1
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc2:1x1:0
  expect_usage $np --dst --src 10x10/2x2/bc:1x1 --dst 10x10/2x2/bc2:1x1:2/scalapack
done

# --- every rank exits 2, promptly (issue 10) --------------------------------------------------
# Each rank runs through a wrapper that records its own exit status in $work/rc/<rank> and
# exits 0 itself, so mpiexec never kills the other ranks first: a rank that hangs shows up
# as a timeout, a rank that exits otherwise as a wrong status.
fast=${CLI_FAST_TIMEOUT:-30}
cat >"$work/wrap.sh" <<WRAP
#!/bin/sh
"\$@"
echo \$? >"$work/rc/\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}"
exit 0
WRAP
chmod +x "$work/wrap.sh"
W=("$work/wrap.sh" "$exe")

# expect_exit2 NP PATTERN MPIEXEC_ARGS...: the MPIEXEC_ARGS (which run "${W[@]}", possibly as
# several app contexts, NP ranks in all) end within $fast seconds with status 2 on every rank,
# exactly one "redist-run: " line on stderr matching the grep -E PATTERN, and no report.
expect_exit2() {
  local np=$1 pattern=$2
  shift 2
  out=$work/out.$count
  err=$work/err.$count
  count=$((count + 1))
  rm -rf "$work/rc"
  mkdir "$work/rc"
  # shellcheck disable=SC2086
  timeout "$fast" "$mpiexec" $MPIEXEC_FLAGS "$@" >"$out" 2>"$err"
  rc=$?
  local what="$*"
  what=${what//$work\/wrap.sh $exe/redist-run}
  if [[ $rc -eq 124 ]]; then
    fail "$what -> timed out after ${fast}s (hang)"
    return
  fi
  local r
  for ((r = 0; r < np; ++r)); do
    if [[ ! -f $work/rc/$r ]]; then
      fail "$what -> rank $r left no exit status (killed?)"
    elif [[ $(cat "$work/rc/$r") != 2 ]]; then
      fail "$what -> rank $r exited $(cat "$work/rc/$r") (expected 2)"
    fi
  done
  local lines
  lines=$(grep -c "^redist-run: " "$err")
  [[ $lines -eq 1 ]] || fail "$what -> $lines 'redist-run:' lines on stderr (expected 1)"
  grep -qE -- "$pattern" "$err" || {
    fail "$what -> stderr does not match '$pattern'"
    sed 's/^/    /' "$err" >&2
  }
  if grep -q "^redist-run: [0-9]* ranks" "$out"; then fail "$what -> it ran anyway"; fi
}

good_src=64x64/8x8/bc:1x2
good=(--src "$good_src" --dst 64x64/10x10/bc:2x1)
# MPMD: one rank fails to parse; the others must not wait for it.
expect_exit2 2 "^redist-run: --src: expected MxN/MBxNB/DIST\[/STORAGE\], got 'bad' \(on rank 1 only\)$" \
  -np 1 "${W[@]}" "${good[@]}" : -np 1 "${W[@]}" --src bad --dst 64x64/10x10/bc:2x1
expect_exit2 3 "^redist-run: --type: unknown type 'quad'.*\(on rank 0 only\)$" \
  -np 1 "${W[@]}" "${good[@]}" --type quad : -np 2 "${W[@]}" "${good[@]}"
# MPMD: valid but different settings.
expect_exit2 2 "^redist-run: ranks disagree on --repeat: rank 1 differs from rank 0 \(--repeat = 3 on rank 1, 2 on rank 0\)$" \
  -np 1 "${W[@]}" "${good[@]}" --repeat 2 : -np 1 "${W[@]}" "${good[@]}" --repeat 3
expect_exit2 3 "^redist-run: ranks disagree on --batch: rank 2 differs from ranks 0,1 " \
  -np 2 "${W[@]}" "${good[@]}" : -np 1 "${W[@]}" "${good[@]}" --batch 1
expect_exit2 2 "^redist-run: ranks disagree on --type: rank 1 differs from rank 0$" \
  -np 1 "${W[@]}" "${good[@]}" : -np 1 "${W[@]}" "${good[@]}" --type float
expect_exit2 2 "^redist-run: ranks disagree on --src: rank 1 differs from rank 0$" \
  -np 1 "${W[@]}" --src 64x64/8x8/random:1 --dst 64x64/10x10/bc:2x1 \
  : -np 1 "${W[@]}" --src 64x64/8x8/random:2 --dst 64x64/10x10/bc:2x1
expect_exit2 2 "^redist-run: ranks disagree on --region: rank 1 differs from rank 0$" \
  -np 1 "${W[@]}" "${good[@]}" --region 10x10 : -np 1 "${W[@]}" "${good[@]}" --region '10x10@1,0->0,0'
expect_exit2 2 "^redist-run: ranks disagree on --verify: " \
  -np 1 "${W[@]}" "${good[@]}" --verify : -np 1 "${W[@]}" "${good[@]}"

# Sizes that overflow, grids too large for an int, a matrix larger than memory.
small_dst=(--dst 10x10/1x1/bc:1x1 --region 10x10)
expect_exit2 1 "^redist-run: --src: size overflows 64 bits: matrix elements = 4294967296 \* 4294967296 " \
  -np 1 "${W[@]}" --src 4294967296x4294967296/4294967296x4294967296/bc:1x1 "${small_dst[@]}"
expect_exit2 1 "^redist-run: --src: size overflows 64 bits: matrix elements = 1152921504606846976 \* 16 " \
  -np 1 "${W[@]}" --src 1152921504606846976x16/1152921504606846976x16/bc:1x1 "${small_dst[@]}" \
  --type cdouble
expect_exit2 1 "^redist-run: --src: size overflows 64 bits: matrix bytes = 1152921504606846976 \* 16 " \
  -np 1 "${W[@]}" --src 1152921504606846976x1/1x1/bc:1x1 "${small_dst[@]}" --type cdouble
expect_exit2 1 "^redist-run: --src: size overflows 64 bits: matrix elements = 2305843009213693951 \* 2305843009213693951 " \
  -np 1 "${W[@]}" --src 2305843009213693951x2305843009213693951/1x1/bc:1x1 "${small_dst[@]}"
expect_exit2 2 "^redist-run: --src: distribution needs 4294967296 ranks but the communicator has 2 " \
  -np 2 "${W[@]}" --src 100x100/10x10/bc:65536x65536 "${small_dst[@]}"
expect_exit2 2 "^redist-run: --src: distribution needs 3221225472 ranks but the communicator has 2 " \
  -np 2 "${W[@]}" --src 100x100/10x10/bc:3x1073741824 "${small_dst[@]}"
# 80 GB (40 GB a rank) where a rank cannot have that much, else 8 TB: a storage_error naming
# the bytes on every rank, not an abort.
mem_kb=$(awk '/^(MemTotal|SwapTotal):/ {s += $2} END {print s}' /proc/meminfo 2>/dev/null)
if [[ -n $mem_kb && $mem_kb -lt 39000000 ]]; then
  huge=100000x100000/1000x1000/bc:1x2
  huge_bytes=40000000000
else
  huge=1000000x1000000/1000x1000/bc:1x2
  huge_bytes=4000000000000
fi
expect_exit2 2 "^redist-run: tile storage larger than this node's memory: bytes = $huge_bytes " \
  -np 2 "${W[@]}" --src "$huge" --dst 100x100/10x10/bc:1x1

# Output paths are checked before the run; a repeated option is an error; raw bytes are
# escaped.
expect_exit2 2 "^redist-run: --json: cannot write '/nonexistent/x.json': directory '/nonexistent': " \
  -np 2 "${W[@]}" "${good[@]}" --json /nonexistent/x.json
expect_exit2 2 "^redist-run: --dot: cannot write '/nonexistent/x.dot': " \
  -np 2 "${W[@]}" "${good[@]}" --dot /nonexistent/x.dot
expect_exit2 2 "^redist-run: --json: cannot write '$work': is a directory" \
  -np 2 "${W[@]}" "${good[@]}" --json "$work"
expect_exit2 2 "^redist-run: --src: given more than once" \
  -np 2 "${W[@]}" "${good[@]}" --src "$good_src"
expect_exit2 2 "^redist-run: --verify: given more than once" \
  -np 2 "${W[@]}" "${good[@]}" --verify --verify
expect_exit2 2 "^redist-run: --src: expected a non-negative integer for process grid columns Q, got '2\\\\xFF' " \
  -np 2 "${W[@]}" --src $'64x64/8x8/bc:1x2\xff' --dst 64x64/10x10/bc:2x1
if grep -q $'\xff' "$err"; then fail "a raw 0xFF byte on stderr"; fi
expect_exit2 2 "^redist-run: --frob\\\\x09\\\\xFF: unknown option" \
  -np 2 "${W[@]}" "${good[@]}" $'--frob\t\xff'
# An empty argument is named too (it was once reported as a bare "unknown option").
expect_exit2 2 "^redist-run: '': unknown option$" -np 2 "${W[@]}" "${good[@]}" ''
# A good run after all this still works, and writes its outputs.
expect_ok 2 "${good[@]}" --dot "$work/after.dot"
[[ -s $work/after.dot ]] || fail "--dot after the checks: no file"

# --- --help and --kokkos-help -----------------------------------------------------------------
# --help: exit 0, redist-run's own help once (rank 0), no Kokkos help in it.
kokkos_help_line="Kokkos command line arguments"
run 2 --help
help_out=$out
[[ $rc -eq 0 ]] || fail "--help -> exit $rc (expected 0)"
[[ ! -s $err ]] || fail "--help: stderr not empty: $(head -n 1 "$err")"
[[ $(grep -c "^LAYOUT := EXTENT/TILE/DIST\[/STORAGE\]" "$help_out") -eq 1 ]] ||
  fail "--help: not one LAYOUT grammar line (printed on every rank?)"
if grep -q -e "$kokkos_help_line" -e "kokkos-threads=INT" "$help_out"; then
  fail "--help: Kokkos' help in the output"
fi
# The grammar: every part, every distribution kind and storage of tools/layout_spec.hpp.
for word in EXTENT TILE DIST STORAGE "REGION := RxC[@I,J->K,L]" "bc:PxQ " "bc:PxQ:KPxKQ" \
  "random:SEED" "band:B:PBxQB:PxQ" "hetero:PxQ:W0,...,W(PQ-1)" "hetero1d:rows:" \
  "hetero1d:cols:" "synth:C0,...,C(R-1)[:full|lower|upper]" "bc2:PxQ:G " "bc2:PxQ:GPxGQ" \
  " tile " " scalapack "; do
  grep -qF -- "$word" "$help_out" || fail "--help: no '$word'"
done
# Every option, each with its default (or required); the two help options with none.
for opt in --src --dst --region --type --batch --repeat --relabel --op --alpha --beta --uplo \
  --diag --count --verify --json --dot; do
  entry=$(awk -v o="$opt" '$1 == o {p = 1; print; next} p && /^      / {print; next} {p = 0}' \
    "$help_out")
  [[ -n $entry ]] || { fail "--help: no option $opt"; continue; }
  entry=$(tr -s ' \n' '  ' <<<"$entry")  # one line: a default may wrap
  grep -qE "\((default: [^)]*|required)\)" <<<"$entry" || fail "--help: $opt has no default"
done
grep -qE "^  --help, -h " "$help_out" || fail "--help: no --help, -h line"
grep -qE "^  --kokkos-help " "$help_out" || fail "--help: no --kokkos-help line"
run 1 -h
cmp -s "$out" "$help_out" || fail "-h: not the same output as --help"
# MPMD: a help request on one rank is one on every rank, and no rank hangs.
run_args=(-np 1 "$exe" "${good[@]}" : -np 1 "$exe" --help)
# shellcheck disable=SC2086
if ! timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS "${run_args[@]}" >"$work/mpmd-help" \
  2>"$work/mpmd-help.err"; then
  fail "--help on rank 1 only -> exit not 0"
fi
cmp -s "$work/mpmd-help" "$help_out" || fail "--help on rank 1 only: not the help"

# --kokkos-help: Kokkos' own help, once, and exit 0.
run 2 --kokkos-help
[[ $rc -eq 0 ]] || fail "--kokkos-help -> exit $rc (expected 0)"
[[ $(grep -c "$kokkos_help_line" "$out") -eq 1 ]] || fail "--kokkos-help: not Kokkos' help once"
grep -q -- "--kokkos-threads=INT" "$out" || fail "--kokkos-help: no --kokkos-threads"
if grep -q "^LAYOUT := " "$out"; then fail "--kokkos-help: redist-run's help too"; fi
# Kokkos' options still reach Kokkos; an unknown one is bad input.
run 1 --src 64x64/8x8/bc:1x1 --kokkos-threads=1 --dst 64x64/10x10/bc:1x1
[[ $rc -eq 0 ]] || fail "--kokkos-threads=1 -> exit $rc (expected 0)"

# Malformed arguments: still one line and exit 2, with no help of either kind.
expect_usage 2 --src --src --help --dst 64x64/10x10/bc:2x1
grep -q "^redist-run: --src: expected MxN/MBxNB/DIST\[/STORAGE\], got '--help'$" "$err" ||
  fail "--src --help: message"
expect_usage 2 --helpx "${good[@]}" --helpx
expect_usage 2 --kokkos-frob "${good[@]}" --kokkos-frob
expect_usage 2 --dst --src 10x10/2x2/bc:1x1 --dst -h
for k in 1 2 3 4; do
  if grep -q -e "$kokkos_help_line" -e "^LAYOUT := " "$work/out.$((count - k))"; then
    fail "bad input run $((count - k)) printed a help"
  fi
done

# The three examples of --help run as printed (from the scratch directory) and verify.
mapfile -t examples < <(python3 - "$help_out" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("Examples:", 1)[1].splitlines()
cmd = None
for line in lines:
    s = line.strip()
    if cmd is not None:
        cmd += " " + s.rstrip("\\").strip()
    elif s.startswith("mpirun "):
        cmd = s.rstrip("\\").strip()
    if cmd is not None and not s.endswith("\\"):
        print(cmd)
        cmd = None
PY
)
[[ ${#examples[@]} -eq 3 ]] || fail "--help: ${#examples[@]} examples (expected 3)"
for example in "${examples[@]}"; do
  words=()
  eval "words=($example)"  # the help's own quoting, as a shell would read it
  if [[ ${words[0]} != mpirun || ${words[1]} != -np || ${words[3]} != redist-run ]]; then
    fail "--help example not 'mpirun -np N redist-run ...': $example"
    continue
  fi
  rm -f "$work/example.rc"
  (cd "$work" && run "${words[2]}" "${words[@]:4}" && echo "$rc" >"$work/example.rc")
  out=$work/out.$count
  count=$((count + 1))
  if [[ $(cat "$work/example.rc" 2>/dev/null) != 0 ]] || ! grep -q "verify   OK" "$out"; then
    fail "--help example failed: $example"
    sed 's/^/    /' "$work/err.$((count - 1))" >&2
  fi
done
[[ -s $work/report.json ]] || fail "--help example: no report.json"

# docs/redist-run.md shows the help exactly as printed.
if [[ -f $source_dir/docs/redist-run.md ]]; then
  awk '/^<!-- redist-run --help -->$/ {p = 1; next} p && /^```/ {if (++f == 2) exit; next}
       p && f == 1' "$source_dir/docs/redist-run.md" >"$work/help.md"
  diff -u "$work/help.md" "$help_out" >"$work/help.diff" ||
    fail "docs/redist-run.md: the help differs from 'redist-run --help': $(head -n 20 "$work/help.diff")"
fi

echo "run_cli_tests: $count runs, $failures failures"
[[ $failures -eq 0 ]]
