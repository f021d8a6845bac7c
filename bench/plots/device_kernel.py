#!/usr/bin/env python3
"""device_kernel.py [RESULTS_DIR] [--plots DIR]: the device bench through the copy kernel's
rewrite (copy/device_kernel.hpp, 2026-11-26 -> "after") and the separated peer binding with
launch bounds ("final"), one H200: each case's median move time as a percentage of its own
run's bound (1 rank: both matrices once through B_d2d; 2 ranks: the single-copy bound of
that leg's anchor, time-sliced or under MPS). Prints the table of bench/README.md's
"Device copies" sections; with --plots writes DIR/device_kernel.png."""
import json, os, sys

from gnuplot_rows import plot_rows
from pool_args import plots_option

args, plots = plots_option(sys.argv[1:])
results = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "results")
legs = [("1 rank, before", "device-np1-ipc.json", "device_bound"),
        ("1 rank, after", "device-np1-kernel.json", "device_bound"),
        ("1 rank, final", "device-np1-final.json", "device_bound"),
        ("2 ranks time-sliced, before", "device-np2-ipc.json", "single_copy_bound"),
        ("2 ranks time-sliced, after", "device-np2-kernel.json", "single_copy_bound"),
        ("2 ranks time-sliced, final", "device-np2-final.json", "single_copy_bound"),
        ("2 ranks MPS, after", "device-np2-kernel-mps.json", "single_copy_bound"),
        ("2 ranks MPS, final", "device-np2-final-mps.json", "single_copy_bound")]
data = [(label, json.load(open(os.path.join(results, f))), bound) for label, f, bound in legs]
print("| case | " + " | ".join(label for label, _, _ in data) + " |")
print("|---|" + "---|" * len(data))
rows = []
for k, c in enumerate(data[0][1]["cases"]):
    cells, row = [], [c["name"].split()[0]]
    for _, d, bound in data:
        x = d["cases"][k]
        pct = 100 * x[bound] / x["t_move_median"]
        cells.append(f"{x['t_move_median'] * 1e3:.2f} ms, {pct:.0f} %")
        row.append(pct)
    rows.append(row)
    print(f"| {c['name']} | " + " | ".join(cells) + " |")
for label, d, _ in data:
    print(f"{label}: B_d2d {d['b_d2d'] * 1e-9:.0f} GB/s per rank")
if plots:
    def script(data_file):
        titles = ", ".join(f"'' using {k + 2} title '{label}'" if k else
                           f"'{data_file}' using 2:xtic(1) title '{label}'"
                           for k, (label, _, _) in enumerate(data))
        return f"""
set terminal pngcairo size 960,480
set output '{os.path.join(plots, 'device_kernel.png')}'
set title 'Cases a-d on one H200: move time as % of its bound (higher is better)'
set style data histograms
set style histogram cluster gap 1
set style fill solid border -1
set yrange [0:110]
set ylabel '% of bound'
set key top right font ',9'
plot {titles}
"""
    plot_rows(rows, script)
