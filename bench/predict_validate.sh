#!/usr/bin/env bash
# Predicted against measured (issue 45, point 4): redist-calibrate on N ranks of this node,
# then the standard cases a-d with redist-run --machine, through the node window (pack and
# unpack: the machine's shm bandwidth set to 0, no transfer term) and point to point (pack, MPI,
# unpack: the measured shm bandwidth); prints a Markdown table. Run it alone on the machine:
#
#   flock /work/bench.lock bench/predict_validate.sh BUILD_DIR NP [OUT_DIR]
set -euo pipefail
build=${1:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
np=${2:?usage: predict_validate.sh BUILD_DIR NP [OUT_DIR]}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
flags=(--allow-run-as-root --oversubscribe)
export OMP_NUM_THREADS=1
mpirun "${flags[@]}" -np "$np" "$build/apps/redist-calibrate" --json "$out/machine-$np.json" >&2
# The node window copies nothing but pack and unpack: no shm transfer term.
python3 - "$out/machine-$np.json" "$out/machine-$np-window.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["shm_bytes_per_s"] = 0
json.dump(j, open(sys.argv[2], "w"))
PY
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
echo "| case | ranks | transport | measured min / median s | predicted s | predicted / min | critical rank: largest terms |"
echo "|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  read -r name src dst <<<"$c"
  for transport in node-window point-to-point; do
    machine=$out/machine-$np.json
    [[ $transport == node-window ]] && machine=$out/machine-$np-window.json
    json=$out/predict-$name-$np-$transport.json
    mpirun "${flags[@]}" -np "$np" "$build/apps/redist-run" --src "$src" --dst "$dst" \
      --repeat 7 --transport "$transport" --machine "$machine" --json "$json" >/dev/null
    python3 - "$json" "$name" "$np" "$transport" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["time_s"]
p = j["predicted_s"]
terms = j["predicted"]["terms"]
top = sorted(((v, k) for k, v in terms.items() if v > 0), reverse=True)[:3]
print("| %s | %s | %s | %.4f / %.4f | %.4f | %.2f | %d: %s |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], t["min"], t["median"], p, p / t["min"],
    j["predicted"]["critical_rank"], ", ".join("%s %.4f" % (k, v) for v, k in top)))
PY
  done
done
