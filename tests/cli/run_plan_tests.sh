#!/usr/bin/env bash
# CLI tests of redist-plan and redist-calibrate, with real runs whose outputs are checked:
#   - redist-plan --help lists every option, and docs/redist-plan.md's copy matches it;
#   - at P = 4, 2 ranks a node, the simulated per-rank plan statistics (bytes sent, received,
#     local and between nodes, buffers, plan bytes, messages) equal what redist-run reports
#     at 4 ranks for the same layouts (REDIST_RANKS_PER_NODE=2, point to point, so that its
#     buffers are the plan's), and redist-plan's prediction over every rank equals
#     redist-run's predicted_s for the same machine;
#   - the sample: evenly spread, rank 0 and P-1 among them;
#   - --relabel nodes at P = 256: every row planned, bytes between nodes not more after;
#   - a job of 65536 ranks, 64 a node, simulated: exit 0, per-rank memory within 64 MB;
#   - redist-calibrate on 2 ranks as 2 nodes writes a machine that redist-run --machine reads;
#   - bad input: exit 2 and exactly one line naming the option and the value.
#
#   tests/cli/run_plan_tests.sh BUILD_DIR
#
# Environment: MPIEXEC, MPIEXEC_FLAGS as tests/cli/run_cli_tests.sh; REDIST_PLAN,
# REDIST_RUN, REDIST_CALIBRATE (default: BUILD_DIR/apps/...); CLI_TIMEOUT seconds per run
# (default 120).
set -u

build=${1:?usage: run_plan_tests.sh BUILD_DIR}
plan=${REDIST_PLAN:-$build/apps/redist-plan}
redist_run=${REDIST_RUN:-$build/apps/redist-run}
calibrate=${REDIST_CALIBRATE:-$build/apps/redist-calibrate}
# shellcheck source=tests/cli/mpiexec.sh
source "$(dirname "$0")/mpiexec.sh"
limit=${CLI_TIMEOUT:-120}
export OMP_NUM_THREADS=1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for exe in "$plan" "$redist_run" "$calibrate"; do
  [[ -x $exe ]] || { echo "run_plan_tests: $exe not found" >&2; exit 1; }
done

failures=0
checks=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() {
  checks=$((checks + 1))
  if [[ $1 -eq 0 ]]; then echo "PASS: ${*:2}"; else fail "${*:2}"; fi
}

machine=memcpy_bytes_per_s=5e9,link_bytes_per_s=1.25e9,link_latency_s=2e-5,shm_latency_s=1e-6
src=2048x2048/256x256/bc:1x4
dst=2048x2048/100x100/bc:2x2

# --- help ----------------------------------------------------------------------------------
"$plan" --help >"$work/help" 2>&1
rc=$?
missing=""
for o in --src --dst --region --ranks --ranks-per-node --type --batch --sample --relabel \
  --inter-node-schedule --machine --json --help; do
  grep -q -- "^  $o" "$work/help" || missing+=" $o"
done
[[ $rc -eq 0 && -z $missing ]]
ok $? "redist-plan --help exits 0 and lists every option${missing:+ (missing:$missing)}"
# docs/redist-plan.md's copy, between the marker and the closing fence.
sed -n '/<!-- redist-plan --help -->/,/^```$/p' "$source_dir/docs/redist-plan.md" |
  sed '1,2d;$d' >"$work/help.doc"
diff -u "$work/help.doc" "$work/help" >"$work/help.diff"
ok $? "docs/redist-plan.md's copy of --help matches the binary$(head -c 400 "$work/help.diff")"

# --- P = 4: simulated against run ----------------------------------------------------------
timeout "$limit" "$plan" --ranks 4 --ranks-per-node 2 --src "$src" --dst "$dst" --sample 0 \
  --machine "$machine" --json "$work/plan.json" >"$work/plan.out" 2>&1
ok $? "redist-plan at P = 4, 2 a node"
# shellcheck disable=SC2086
REDIST_RANKS_PER_NODE=2 timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS \
  -np 4 "$redist_run" --src "$src" --dst "$dst" --repeat 1 --transport point-to-point \
  --machine "$machine" --json "$work/run.json" >"$work/run.out" 2>&1
ok $? "redist-run at 4 ranks, 2 a node, --machine"
python3 - "$work/plan.json" "$work/run.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert r["nodes"] == 2 and p["nodes"] == 2, (r["nodes"], p["nodes"])
ranks = {s["rank"]: s for s in p["sampled"]}
assert sorted(ranks) == [0, 1, 2, 3], sorted(ranks)
for k in range(4):
    s = ranks[k]
    assert s["sent"] == r["bytes"]["sent"][k], ("sent", k)
    assert s["recv"] == r["bytes"]["recv"][k], ("recv", k)
    assert s["local"] == r["bytes"]["local"][k], ("local", k)
    assert s["inter_node_sent"] == r["bytes"]["inter_node"]["sent"][k], ("inter sent", k)
    assert s["inter_node_recv"] == r["bytes"]["inter_node"]["recv"][k], ("inter recv", k)
    assert s["buffer_bytes"] == r["buffer_bytes"][k], ("buffers", k, s["buffer_bytes"], r["buffer_bytes"][k])
    assert s["plan_bytes"] == r["plan_bytes"][k], ("plan bytes", k, s["plan_bytes"], r["plan_bytes"][k])
assert sum(s["messages_sent"] for s in ranks.values()) == r["messages"]
assert p["predicted"]["over"] == "every rank"
assert r["predicted_s"] > 0
assert abs(p["predicted"]["seconds"] - r["predicted_s"]) <= 1e-9 * r["predicted_s"], \
    (p["predicted"]["seconds"], r["predicted_s"])
assert p["predicted"]["critical_rank"] == r["predicted"]["critical_rank"]
PY
ok $? "P = 4: every rank's simulated stats and the prediction equal redist-run's"

# --- redist-run charges bytes within a node by the transport that carried them ------------
# One machine with both MPI's bandwidth within a node and the rings' rate: a move through the
# node window has no shm term; point to point has it. Both pack and unpack through chunks
# that stay in the cache (ring slots, MPI's chunks), alike.
# redist-plan predicts each alike from the plans with --transport, the node window by default.
both=memcpy_bytes_per_s=5e9,shm_bytes_per_s=2e9,ring_bytes_per_s=8e9,shm_latency_s=1e-6
for how in node-window point-to-point; do
  # shellcheck disable=SC2086
  REDIST_RANKS_PER_NODE=2 timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS -np 2 "$redist_run" \
    --src 512x512/64x64/bc:1x2 --dst 512x512/50x50/bc:2x1 --repeat 1 --transport "$how" \
    --machine "$both" --json "$work/route-$how.json" >"$work/route-$how.out" 2>&1
  ok $? "redist-run --transport $how --machine (shm and ring rates)"
done
for how in auto point-to-point; do
  timeout "$limit" "$plan" --ranks 2 --ranks-per-node 2 --src 512x512/64x64/bc:1x2 \
    --dst 512x512/50x50/bc:2x1 --sample 0 --transport "$how" --machine "$both" \
    --json "$work/route-plan-$how.json" >"$work/route-plan-$how.out" 2>&1
  ok $? "redist-plan at P = 2, one node, --transport $how, the same machine"
done
python3 - "$work/route-node-window.json" "$work/route-point-to-point.json" \
  "$work/route-plan-auto.json" "$work/route-plan-point-to-point.json" <<'PY'
import json, sys
w, p, plan_w, plan_p = (json.load(open(f)) for f in sys.argv[1:5])
assert plan_w["transport_within_node"] == "node-window", plan_w["transport_within_node"]
assert plan_p["transport_within_node"] == "point-to-point", plan_p["transport_within_node"]
assert w["nodes"] == 1 and p["nodes"] == 1, (w["nodes"], p["nodes"])
tw, tp = w["predicted"]["terms"], p["predicted"]["terms"]
k = p["predicted"]["critical_rank"]
assert tw["shm"] == 0, tw
want = max(p["bytes"]["sent"][k], p["bytes"]["recv"][k]) / 2e9
assert abs(tp["shm"] - want) <= 1e-9 * want, (tp["shm"], want)
for term in ("pack", "unpack", "local"):
    assert abs(tw[term] - tp[term]) <= 1e-9 * tp[term], (term, tw, tp)
assert w["predicted_s"] < p["predicted_s"], (w["predicted_s"], p["predicted_s"])
for plan, run in ((plan_w, w), (plan_p, p)):
    assert abs(plan["predicted"]["seconds"] - run["predicted_s"]) <= 1e-9 * run["predicted_s"], \
        (plan["transport_within_node"], plan["predicted"]["seconds"], run["predicted_s"])
PY
ok $? "one machine, two transports: the node window without the shm term, MPI with it; redist-plan predicts each as redist-run"

# --- sample --------------------------------------------------------------------------------
timeout "$limit" "$plan" --ranks 1000 --src 1000x1000/10x10/bc:1x1000 \
  --dst 1000x1000/10x10/bc:1000x1 --sample 5 --json "$work/sample.json" >/dev/null 2>&1
python3 - "$work/sample.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ranks = [s["rank"] for s in j["sampled"]]
assert ranks == [0, 250, 500, 749, 999], ranks
PY
ok $? "--sample 5 of 1000: ranks 0, 250, 500, 749, 999"

# --- relabeling ----------------------------------------------------------------------------
timeout "$limit" "$plan" --ranks 256 --ranks-per-node 16 --src 4096x4096/256x256/bc:16x16 \
  --dst 4096x4096/100x100/bc:16x16 --relabel nodes --machine "$machine" \
  --json "$work/relabel.json" >/dev/null 2>&1
python3 - "$work/relabel.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rl = j["relabel"]
assert rl["kind"] == "nodes" and rl["nonzeros"] > 0
assert rl["inter_node_bytes"]["after"] <= rl["inter_node_bytes"]["before"], rl
assert j["predicted"]["over"] == "every rank" and not j["predicted"]["link_estimated"]
assert not j["job"]["estimated"] and j["job"]["inter_node_bytes"] == rl["inter_node_bytes"]["before"]
PY
ok $? "--relabel nodes at P = 256: rows and solve timed, bytes between nodes not more after"

# --- 65536 ranks ---------------------------------------------------------------------------
timeout "$limit" "$plan" --ranks 65536 --ranks-per-node 64 --src 65536x65536/256x256/bc:256x256 \
  --dst 65536x65536/100x100/bc:256x256 --sample 16 --machine "$machine" \
  --json "$work/big.json" >/dev/null 2>&1
python3 - "$work/big.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] == 65536 and j["nodes"] == 1024
assert j["per_rank"]["memory"]["max"] <= 64e6, j["per_rank"]["memory"]
assert j["predicted"]["link_estimated"] and j["predicted"]["seconds"] > 0
assert j["job"]["estimated"] and j["job"]["messages"] > 0
PY
ok $? "65536 ranks, 64 a node: simulated, memory per rank within 64 MB, predicted"

# --- redist-calibrate ----------------------------------------------------------------------
# shellcheck disable=SC2086
REDIST_RANKS_PER_NODE=1 timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS \
  -np 2 "$calibrate" --bytes 1048576 --repeat 2 --json "$work/machine.json" >"$work/cal.out" 2>&1
python3 - "$work/machine.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["nodes"] == 2
for k in ("memcpy_bytes_per_s", "link_bytes_per_s", "link_latency_s"):
    assert j[k] > 0, k
assert j["shm_bytes_per_s"] == 0  # no second rank on rank 0's node
PY
ok $? "redist-calibrate on 2 ranks as 2 nodes: memcpy and link measured$(head -c 300 "$work/cal.out")"
# shellcheck disable=SC2086
timeout "$limit" "$mpiexec" $MPIEXEC_FLAGS -np 2 "$redist_run" --src 512x512/64x64/bc:1x2 \
  --dst 512x512/50x50/bc:2x1 --repeat 1 --machine "$work/machine.json" >"$work/m.out" 2>&1 &&
  grep -q "^  predicted [0-9.]* s (measured min / [0-9.]*), critical rank [01]" "$work/m.out"
ok $? "redist-run --machine reads redist-calibrate's file"

# --- bad input -----------------------------------------------------------------------------
# bad NEEDLE ARGS...: exit 2 and exactly one line on stderr, which contains NEEDLE.
bad() {
  local needle=$1
  shift
  timeout "$limit" "$plan" "$@" >"$work/bad.out" 2>"$work/bad.err"
  local rc=$?
  [[ $rc -eq 2 && $(wc -l <"$work/bad.err") -eq 1 ]] && grep -qF -- "$needle" "$work/bad.err"
  ok $? "exit 2, one line naming '$needle': $* ($(cat "$work/bad.err"))"
}
l="--src $src --dst $dst"
# shellcheck disable=SC2086
{
  bad "redist-plan: --ranks: missing (required)" $l
  bad "redist-plan: --ranks: expected an integer >= 1, got '0'" --ranks 0 $l
  bad "redist-plan: --ranks: expected at most 2147483647 ranks, got '4294967296'" \
    --ranks 4294967296 $l
  bad "redist-plan: --src: distribution needs 4 ranks but --ranks is 2 ('$src')" --ranks 2 $l
  bad "redist-plan: --ranks-per-node: expected an integer >= 1, got 'x'" \
    --ranks 4 --ranks-per-node x $l
  bad "redist-plan: --sample: expected an integer >= 0, got '-1'" --ranks 4 --sample -1 $l
  bad "redist-plan: --machine: unknown key 'bw'" --ranks 4 --machine bw=1 $l
  bad "redist-plan: --machine: cannot read '/nonexistent.json'" \
    --ranks 4 --machine /nonexistent.json $l
  bad "redist-plan: --machine: must be a finite number > 0: Machine::memcpy_bytes_per_s = 0" \
    --ranks 4 \
    --machine link_bytes_per_s=1e9 $l
  bad "redist-plan: --relabel: expected off, flat or nodes" --ranks 4 --relabel x $l
  bad "redist-plan: --transport: expected auto, point-to-point, node-window or cross-memory, got 'fast'" \
    --ranks 4 --transport fast $l
  bad "redist-plan: --src: expected MxN/MBxNB/DIST[/STORAGE], got 'bad'" --ranks 4 \
    --src bad --dst "$dst"
  bad "redist-plan: --region: 9000x1@0,0->0,0: region does not fit" --ranks 4 \
    --region 9000x1 $l
  bad "redist-plan: --ranks: given more than once" --ranks 4 --ranks 4 $l
  bad "redist-plan: --frob: unknown option" --ranks 4 --frob $l
  bad "redist-plan: --json: cannot write '/nonexistent/x.json'" --ranks 4 \
    --json /nonexistent/x.json $l
}

echo "run_plan_tests: $checks checks, $failures failed"
[[ $failures -eq 0 ]]
