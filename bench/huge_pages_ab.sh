#!/usr/bin/env bash
# redist-run's matrices with and without transparent huge pages, one build, same run: the
# kernel's mode switched between madvise (TiledMatrix's advice takes: 2 MiB pages) and never
# (4 KiB pages), cases a-d of bench/README.md at 2 ranks in both storages, ROUNDS rounds
# (default 3) of --repeat 10, each mode first in turn; the mode is restored at the end.
# Needs root (the sysfs switch). Usage: bench/huge_pages_ab.sh BUILD_DIR OUT.json
set -euo pipefail
build=${1:?build directory}
out=${2:?output JSON}
rounds=${ROUNDS:-3}
thp=/sys/kernel/mm/transparent_hugepage/enabled
before=$(sed -E 's/.*\[([a-z]+)\].*/\1/' "$thp")
trap 'echo "$before" > "$thp"' EXIT
launch=(mpiexec -np 2)
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
# The standard cases a-d, as bench/python/compare.py lists them: "name src dst" a line.
mapfile -t cases < <(cd "$(dirname "$0")/python" &&
  python3 -c 'from compare import CASES; [print(*c) for c in CASES]')
tmp=$(mktemp -d)
rows=()
for storage in scalapack tile; do
  for c in "${cases[@]}"; do
    read -r name src dst <<<"$c"
    for k in $(seq 1 "$rounds"); do
      modes=(madvise never)
      [ $((k % 2)) -eq 0 ] && modes=(never madvise)
      for mode in "${modes[@]}"; do
        echo "$mode" >"$thp"
        "${launch[@]}" "$build/apps/redist-run" --src "$src/$storage" --dst "$dst/$storage" \
          --repeat 10 --json "$tmp/run.json" >/dev/null
        t=$(python3 -c "import json,statistics,sys; print(statistics.median(json.load(open(sys.argv[1]))['time_s']['all']))" "$tmp/run.json")
        rows+=("{\"case\": \"$name\", \"storage\": \"$storage\", \"mode\": \"$mode\", \"round\": $k, \"median_s\": $t}")
        echo "$name $storage $mode round $k: $t s"
      done
    done
  done
done
{
  echo "{\"what\": \"redist-run cases a-d, 2 ranks, --repeat 10 (moves on data), median move per run; transparent huge pages madvise (advised: 2 MiB pages) against never (4 KiB pages), $rounds rounds each mode first in turn\", \"runs\": ["
  (IFS=,; echo "${rows[*]}")
  echo "]}"
} >"$out"
python3 - "$out" <<'PY'
import json, statistics, sys
runs = json.load(open(sys.argv[1]))["runs"]
print("| case | storage | 4 KiB pages s | huge pages s | ratio |\n|---|---|---|---|---|")
for st in ("scalapack", "tile"):
    for c in "abcd":
        m = {mode: statistics.median(r["median_s"] for r in runs
                                     if r["case"] == c and r["storage"] == st and r["mode"] == mode)
             for mode in ("never", "madvise")}
        print(f"| {c} | {st} | {m['never']:.4f} | {m['madvise']:.4f} | {m['madvise'] / m['never']:.2f} |")
PY
rm -rf "$tmp"
