#!/usr/bin/env python3
"""set_up_parts.py [RESULTS.json] [--plots DIR]: a Redistributor's set-up part by part
(Redistributor::set_up_times(), redist-run's "set_up_s") from bench/setup_ab.py's JSON
(default results/set-up-split.json): planning, wiring without the buffers, and the buffers
(allocated, pages made present), each the slowest rank's, as ranges over the rounds per case
and size. Prints the table of bench/README.md's "Set-up, part by part"; with --plots writes
DIR/set_up_parts.png (gnuplot, medians, log scale)."""
import json, os, statistics, sys

from gnuplot_rows import plot_rows
from pool_args import plots_option

args, plots = plots_option(sys.argv[1:])
path = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "results",
                                         "set-up-split.json")
rows = json.load(open(path))["rows"]
groups = {}
for r in rows:
    s = r["set_up_s"]
    groups.setdefault((r["case"], r["n"]), []).append(
        {"plan": s["plan"], "wiring": s["wiring"] - s["buffers"], "buffers": s["buffers"],
         "total": r["plan_time_s"], "MiB": r["buffer_bytes"] / 2**20, "move": r["median_s"]})


def span(runs, key, scale=1e3):
    v = [x[key] * scale for x in runs]
    return f"{min(v):.3g}-{max(v):.3g}" if len(v) > 1 else f"{v[0]:.3g}"


print("| case | n | planning ms | wiring without buffers ms | buffers ms | buffer MiB | "
      "set-up ms | move ms |")
print("|---|---|---|---|---|---|---|---|")
lines = []
for (case, n), runs in groups.items():
    print(f"| {case} | {n} | {span(runs, 'plan')} | {span(runs, 'wiring')} | "
          f"{span(runs, 'buffers')} | {runs[0]['MiB']:.0f} | {span(runs, 'total')} | "
          f"{span(runs, 'move')} |")
    med = [statistics.median(x[k] for x in runs) * 1e3 for k in ("plan", "wiring", "buffers")]
    lines.append((f'"{case} {n}"', *med))
if plots:
    def script(data_file):
        return f"""
set terminal pngcairo size 1000,480
set output '{os.path.join(plots, 'set_up_parts.png')}'
set title 'Set-up part by part, 2 ranks, 1x2 -> 2x1, ScaLAPACK storage (medians, slowest rank)'
set style data histograms
set style histogram cluster gap 1
set style fill solid border -1
set logscale y
set ylabel 'milliseconds (log)'
set xtics rotate by -20
set key top left
plot '{data_file}' using 2:xtic(1) title 'planning', '' using 3 title 'wiring without buffers', \\
     '' using 4 title 'buffers (allocated, pages present)'
"""
    plot_rows(lines, script)
