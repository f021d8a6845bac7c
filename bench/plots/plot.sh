#!/usr/bin/env bash
# bench/plots/plot.sh RESULTS_DIR OUT_DIR: PNGs from the JSON of redist-bench.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-$here/../results}
out=${2:-$here}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/extract.py" "$res" "$tmp"
[ -f "$tmp/standard.dat" ] && gnuplot -e "dat='$tmp'; out='$out'" "$here/standard.gp"
[ -f "$tmp/categories_bw.dat" ] && gnuplot -e "dat='$tmp'; out='$out'" "$here/categories.gp"
args="dat='$tmp'; out='$out'"
[ -f "$tmp/scatter_gather.dat" ] && args="$args; sg=1"
[ -f "$tmp/random.dat" ] && args="$args; rnd=1"
gnuplot -e "$args" "$here/sweeps.gp"
[ -f "$tmp/small_blocks_sweep.dat" ] && gnuplot -e "dat='$tmp'; out='$out'" "$here/small_blocks.gp"
[ -f "$tmp/network.dat" ] && gnuplot -e "dat='$tmp'; out='$out'" "$here/network.gp"
[ -f "$tmp/overlap.dat" ] && gnuplot -e "dat='$tmp'; out='$out'" "$here/overlap.gp"
[ -f "$tmp/threads.dat" ] &&
  gnuplot -e "dat='$tmp'; out='$out'; ttl='$(cat "$tmp/threads_title.txt")'" "$here/threads.gp"
ls "$out"/*.png
