#!/usr/bin/env bash
# Predicted against measured (issue 45, point 4): the standard cases a-d on N ranks of this
# node, each right after its own redist-calibrate (a shared machine's memory bandwidth moves
# by 2-3x within minutes), with redist-run --machine, through the node window (pack and
# unpack, no transfer term, pack and unpack within the node at the calibrated ring rate) and
# point to point (pack, MPI, unpack: the measured shm bandwidth; the ring rate unused): one
# machine file, redist-run charges each byte by the transport that carried it; prints a Markdown table whose ratio is predicted over
# the median of 5 runs (issue 45), and the load average before and after. Each case is
# calibrated again after it (OUT_DIR/after/), so that bench/predict_summary.py can tell the
# rows where the machine held still from those where it moved. Run it alone on the machine:
#
#   flock /work/bench.lock bench/predict_validate.sh BUILD_DIR NP [OUT_DIR]
#
# With CLUSTER set (scripts/cluster.sh's options, e.g. "--nodes 2 --ranks-per-node 2 --rate
# 1gbit"), every job runs on that cluster of namespaces instead (NP = nodes x ranks a node),
# through the default transports (the node window within a node), one row
# a case named cluster-NODESxRANKS-RATE.
set -euo pipefail
build=${1:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
np=${2:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
flags=(--allow-run-as-root --oversubscribe)
export OMP_NUM_THREADS=1
here=$(cd "$(dirname "$0")/.." && pwd)
# launch PROGRAM ARGS...: NP ranks on this node, or on the cluster of namespaces.
launch() {
  if [[ -n ${CLUSTER:-} ]]; then
    # shellcheck disable=SC2086 # CLUSTER is a list of options
    "$here/scripts/cluster.sh" $CLUSTER -- "$@"
  else
    mpirun "${flags[@]}" -np "$np" "$@"
  fi
}
transports=(node-window point-to-point)
if [[ -n ${CLUSTER:-} ]]; then
  nodes=2 per=1 rate=unshaped
  read -ra words <<<"$CLUSTER"
  for ((k = 0; k + 1 < ${#words[@]}; k++)); do
    case ${words[k]} in
      --nodes) nodes=${words[k + 1]} ;;
      --ranks-per-node) per=${words[k + 1]} ;;
      --rate) rate=${words[k + 1]} ;;
    esac
  done
  if ((nodes * per != np)); then
    echo "predict_validate.sh: NP $np is not CLUSTER's $nodes nodes x $per ranks" >&2
    exit 2
  fi
  transports=("cluster-${nodes}x$per-$rate")
fi
calibrate() {  # calibrate NAME: $out/machine-$np-NAME.json
  local m=$out/machine-$np-$1.json
  [[ $1 == *-after ]] && m=$out/after/machine-$np-${1%-after}.json && mkdir -p "$out/after"
  launch "$build/apps/redist-calibrate" --json "$m" >&2
  # One machine for every transport: redist-run charges the bytes within a node by the
  # transport that carried them (docs/cost-model.md). On the cluster the nodes share this machine's cores: a node has its share of them (not nproc, which
  # follows OMP_NUM_THREADS), and the rates per running rank are rescaled to it (calibrate
  # took the whole machine's); the copy terms, s x bytes / rate, stay what was measured.
  python3 - "$m" "$(getconf _NPROCESSORS_ONLN)" "${nodes:-0}" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cores, nodes = float(sys.argv[2]), int(sys.argv[3])
if nodes > 0:
    share = lambda c: max(1.0, j["node_ranks"] / c)
    f = share(cores / nodes) / share(j["cores_per_node"])
    for k in ("memcpy_bytes_per_s", "shm_bytes_per_s", "ring_bytes_per_s"):
        j[k] = j.get(k, 0) * f
    j["copy_run_s"] = j.get("copy_run_s", 0) / f
    j["cores_per_node"] = cores / nodes
    json.dump(j, open(sys.argv[1], "w"))
PY
}
case $np in
  2) g1=1x2 g2=2x1 ;;
  *) g1=1x$np g2=${np}x1 ;;
esac
cases=(
  "a 8192x8192/256x256/bc:$g1 8192x8192/100x100/bc:$g2"
  "b 8192x8192/64x64/bc:$g2 8192x8192/64x64/bc:$g1"
  "c 8192x8192/1024x1024/bc:$g2 8192x8192/32x32/bc:$g2"
  "d 4000x6000/128x96/bc:$g2 4000x6000/100x70/bc:$g1"
)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| case | ranks | transport | measured median / min s | predicted s | predicted / median | critical rank: largest terms; their runs' part | B_memcpy GB/s, c_run ns, B_shm GB/s, B_ring GB/s |"
echo "|---|---|---|---|---|---|---|---|"
first=""
for c in "${cases[@]}"; do
  read -r name src dst <<<"$c"
  # On the cluster one calibration serves every case (the link dominates, and its 32 MiB
  # ping-pongs take half a minute at 1 Gbit/s); on one node each case has its own.
  if [[ -n ${CLUSTER:-} && -n $first ]]; then
    cp "$out/machine-$np-$first.json" "$out/machine-$np-$name.json"
  else
    calibrate "$name"
  fi
  first=${first:-$name}
  for transport in "${transports[@]}"; do
    machine=$out/machine-$np-$name.json
    json=$out/predict-$name-$np-$transport.json
    how=(--transport "$transport")
    [[ $transport == cluster-* ]] && how=()
    launch "$build/apps/redist-run" --src "$src" --dst "$dst" \
      --repeat 5 "${how[@]}" --machine "$machine" --json "$json" >/dev/null
    python3 - "$json" "$name" "$np" "$transport" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["time_s"]
p = j["predicted_s"]
terms = j["predicted"]["terms"]
top = sorted(((v, k) for k, v in terms.items() if v > 0), reverse=True)[:3]
m = j["predicted"]["machine"]
print("| %s | %s | %s | %.4f / %.4f | %.4f | %.2f | %d: %s; runs %.4f | %.1f, %.1f, %.1f, %.1f |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], t["median"], t["min"], p, p / t["median"],
    j["predicted"]["critical_rank"], ", ".join("%s %.4f" % (k, v) for v, k in top),
    j["predicted"].get("runs_s", 0),
    m["memcpy_bytes_per_s"] * 1e-9, m.get("copy_run_s", 0) * 1e9, m["shm_bytes_per_s"] * 1e-9,
    m.get("ring_bytes_per_s", 0) * 1e-9))
PY
  done
  [[ -n ${CLUSTER:-} ]] || calibrate "$name-after"
done
if [[ -n ${CLUSTER:-} ]]; then
  calibrate "$name-after"
  for c in "${cases[@]}"; do
    read -r other _ <<<"$c"
    [[ $other == "$name" ]] || cp "$out/after/machine-$np-$name.json" "$out/after/machine-$np-$other.json"
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
