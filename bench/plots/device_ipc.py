#!/usr/bin/env python3
"""device_ipc.py [RESULTS_DIR] [--plots DIR]: the device bench at 2 ranks on one GPU, the
data paths side by side (bench/redist-device-bench.cpp): staged through host memory
(REDIST_TRANSPORT=point-to-point), device IPC in 2 MiB chunks (before messages read in
place were re-cut whole), device IPC whole, against the single-copy bound of the same run.
Prints the table of bench/README.md's "Device IPC" section; with --plots writes
DIR/device_ipc.png (gnuplot, log scale)."""
import json, os, sys

from gnuplot_rows import plot_rows
from pool_args import plots_option

args, plots = plots_option(sys.argv[1:])
results = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "results")
runs = [("staged", "device-np2-staged.json"), ("ipc, 2 MiB chunks", "device-np2-ipc-2mib-chunks.json"),
        ("ipc", "device-np2-ipc.json")]
data = {label: json.load(open(os.path.join(results, f))) for label, f in runs}
ipc = data["ipc"]
print("| case | staged s | ipc, 2 MiB chunks s | ipc s | single-copy bound s | ipc / bound | staged / ipc |")
print("|---|---|---|---|---|---|---|")
rows = []
for k, c in enumerate(ipc["cases"]):
    t = {label: d["cases"][k]["t_move_median"] for label, d in data.items()}
    bound = c["single_copy_bound"]
    rows.append((c["name"].split()[0], t["staged"], t["ipc, 2 MiB chunks"], t["ipc"], bound))
    print(f"| {c['name']} | {t['staged']:.4f} | {t['ipc, 2 MiB chunks']:.5f} | {t['ipc']:.5f} | "
          f"{bound:.5f} | {100 * bound / t['ipc']:.0f} % | {t['staged'] / t['ipc']:.0f}x |")
print(f"B_d2d {ipc['b_d2d'] * 1e-9:.0f} GB/s per rank with 2 ranks copying; "
      f"B_d2h {ipc['b_d2h'] * 1e-9:.1f}, B_h2d {ipc['b_h2d'] * 1e-9:.1f} GB/s")
if plots:
    def script(data_file):
        return f"""
set terminal pngcairo size 900,480
set output '{os.path.join(plots, 'device_ipc.png')}'
set title 'Cases a-d, 2 ranks on one H200: median move time by data path'
set style data histograms
set style histogram cluster gap 1
set style fill solid border -1
set logscale y
set ylabel 'seconds (log)'
set key top right
plot '{data_file}' using 2:xtic(1) title 'staged (host, MPI)', '' using 3 title 'device IPC, 2 MiB chunks', \\
     '' using 4 title 'device IPC, whole messages', '' using 5 title 'single-copy bound'
"""
    plot_rows(rows, script)
