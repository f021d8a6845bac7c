#!/usr/bin/env bash
# Set-up simulated at scale (issue 45, point 2): redist-plan on 65536² doubles, 256² -> 100²
# tiles, R = 64 ranks a node, for 1xP -> Px1 and square grids at P = 1024 .. 65536, 64 ranks
# sampled; prints a Markdown table of the per-rank set-up (max and median over the sampled
# ranks) and memory, and keeps each run's JSON in OUT_DIR. Run it alone on the machine
# (flock /work/bench.lock bench/plan_sim_scale.sh BUILD_DIR OUT_DIR).
#
#   bench/plan_sim_scale.sh BUILD_DIR [OUT_DIR] [--relabel]
set -euo pipefail
build=${1:?usage: plan_sim_scale.sh BUILD_DIR [OUT_DIR] [--relabel]}
out=${2:-$(mktemp -d)}
relabel=${3:-}
plan=$build/apps/redist-plan
mkdir -p "$out"
echo "| move | P | plan ms max / median | node traffic ms max | node schedule ms max | set-up ms max / median | memory KB max / median | messages max | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for move in 1d square; do
  for p in 1024 4096 16384 65536; do
    case $move in
      1d) src=bc:1x$p dst=bc:${p}x1 ;;
      square)
        q=$(awk -v p="$p" 'BEGIN { printf "%d", sqrt(p) }')
        src=bc:${q}x$q dst=bc:${q}x$q ;;
    esac
    json=$out/plan-sim-$move-$p.json
    # shellcheck disable=SC2086
    "$plan" --ranks "$p" --ranks-per-node 64 --src "65536x65536/256x256/$src" \
      --dst "65536x65536/100x100/$dst" --sample 64 ${relabel:+--relabel nodes} \
      --json "$json" >/dev/null
    python3 - "$json" "$move" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["per_rank"]
ms = lambda k, w: "%.2f" % (r[k][w] * 1e3)
kb = lambda w: "%.0f" % (r["memory"][w] / 1e3)
name = "1xP -> Px1" if sys.argv[2] == "1d" else "square -> square"
extra = ""
if j["relabel"]:
    extra = " (rows %.1f s, solve %.1f s)" % (j["relabel"]["rows_s"], j["relabel"]["solve_s"])
print("| %s | %d | %s / %s | %s | %s | %s / %s | %s / %s | %d | %.0f%s |" % (
    name, j["ranks"], ms("plan_s", "max"), ms("plan_s", "median"), ms("node_traffic_s", "max"),
    ms("node_schedule_s", "max"), ms("setup_s", "max"), ms("setup_s", "median"), kb("max"),
    kb("median"), r["messages"]["max"], j["peak_resident_bytes"] / 1e6, extra))
PY
  done
done
