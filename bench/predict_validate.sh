#!/usr/bin/env bash
# Predicted against measured (issue 45, point 4): the standard cases a-d on N ranks of this
# node, each right after its own redist-calibrate (a shared machine's memory bandwidth moves
# by 2-3x within minutes), with redist-run --machine, through the node window (pack and
# unpack: the machine's shm bandwidth set to 0, no transfer term, pack and unpack within the
# node at the calibrated ring rate) and point to point (pack, MPI, unpack: the measured shm
# bandwidth; the ring rate unused); prints a Markdown table whose ratio is predicted over
# the median of 5 runs (issue 45), and the load average before and after. Each case is
# calibrated again after it (OUT_DIR/after/), so that bench/predict_summary.py can tell the
# rows where the machine held still from those where it moved. Run it alone on the machine:
#
#   flock /work/bench.lock bench/predict_validate.sh BUILD_DIR NP [OUT_DIR]
set -euo pipefail
build=${1:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
np=${2:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
flags=(--allow-run-as-root --oversubscribe)
export OMP_NUM_THREADS=1
calibrate() {  # calibrate NAME: $out/machine-$np-NAME.json and its -window twin
  local m=$out/machine-$np-$1.json
  [[ $1 == *-after ]] && m=$out/after/machine-$np-${1%-after}.json && mkdir -p "$out/after"
  mpirun "${flags[@]}" -np "$np" "$build/apps/redist-calibrate" --json "$m" >&2
  # The node window copies nothing but pack and unpack: no shm transfer term.
  python3 - "$m" "${m%.json}-window.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["shm_bytes_per_s"] = 0
json.dump(j, open(sys.argv[2], "w"))
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
for c in "${cases[@]}"; do
  read -r name src dst <<<"$c"
  calibrate "$name"
  for transport in node-window point-to-point; do
    machine=$out/machine-$np-$name.json
    [[ $transport == node-window ]] && machine=$out/machine-$np-$name-window.json
    json=$out/predict-$name-$np-$transport.json
    mpirun "${flags[@]}" -np "$np" "$build/apps/redist-run" --src "$src" --dst "$dst" \
      --repeat 5 --transport "$transport" --machine "$machine" --json "$json" >/dev/null
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
    m.get("ring_bytes_per_s", 0) * 1e-9 if m["shm_bytes_per_s"] == 0 else 0))
PY
  done
  calibrate "$name-after"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
