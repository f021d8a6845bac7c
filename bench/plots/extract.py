#!/usr/bin/env python3
"""Turns bench/results/*.json into gnuplot data files (one block per line of a plot)."""
import json, os, sys

res, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)

def load(name):
    p = os.path.join(res, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None

def var(c, name, key):
    v = c["variants"].get(name)
    return v[key] if v and v[key] is not None else float("nan")

std = load("standard")
if std:
    with open(os.path.join(out, "standard.dat"), "w") as f:
        f.write("# case redist_tile redist_scalapack pdgemr2d eq4 redist_shared redist_push (median seconds)\n")
        for c in std["cases"]:
            f.write('"%s" %g %g %g %g %g %g\n' % (c["name"].split()[0], var(c, "redist_tile", "median"),
                    var(c, "redist_scalapack", "median"), var(c, "pdgemr2d", "median"), c["eq4_seconds"],
                    var(c, "redist_shared", "median"), var(c, "redist_push", "median")))

cat = load("categories")
if cat:
    for key, fn in (("bandwidth_gbs", "categories_bw.dat"), ("efficiency_pct", "categories_eff.dat")):
        with open(os.path.join(out, fn), "w") as f:
            for cid in range(9):
                f.write("# category %d: message_bytes tile scalapack pdgemr2d\n" % cid)
                for c in sorted((c for c in cat["cases"] if c["category"] == cid), key=lambda c: c["message_bytes"]):
                    f.write("%g %g %g %g\n" % (c["message_bytes"], var(c, "redist_tile", key),
                            var(c, "redist_scalapack", key), var(c, "pdgemr2d", key)))
                f.write("\n\n")

for suite, fn, kinds in (("scatter-gather", "scatter_gather.dat", ("scatter", "gather")),
                         ("random", "random.dat", ("2dbc", "random"))):
    d = load(suite)
    if not d:
        continue
    with open(os.path.join(out, fn), "w") as f:
        for k in kinds:
            f.write("# %s: message_bytes bw_tile eff_tile bw_pdgemr2d time_tile time_pdgemr2d\n" % k)
            for c in sorted((c for c in d["cases"] if c["name"].startswith(k + " ")), key=lambda c: c["message_bytes"]):
                f.write("%g %g %g %g %g %g\n" % (c["message_bytes"], var(c, "redist_tile", "bandwidth_gbs"),
                        var(c, "redist_tile", "efficiency_pct"), var(c, "pdgemr2d", "bandwidth_gbs"),
                        var(c, "redist_tile", "median"), var(c, "pdgemr2d", "median")))
            f.write("\n\n")

def mib(x):
    return float("nan") if x is None or x < 0 else x / 1048576.0

def num(x):
    return float("nan") if x is None else x

sb = load("small-blocks")
if sb:
    cases = [c for c in sb["cases"] if c["suite"] == "small-blocks"]
    extent = {s: max([c["M"] for c in cases if c.get("series") == s] or [0]) for s in ("sweep", "4000")}
    with open(os.path.join(out, "small_blocks_vars.gp"), "w") as f:
        f.write("n1 = %d; n2 = %d\n" % (extent["sweep"], extent["4000"]))
    for series, fn in (("sweep", "small_blocks_sweep.dat"), ("4000", "small_blocks_4000.dat")):
        with open(os.path.join(out, fn), "w") as f:
            f.write("# label src_block redist_median pdgemr2d_median speedup plan_s plan_MiB "
                    "setup_peak_MiB run_peak_MiB process_peak_MiB pd_peak_MiB pd_process_peak_MiB\n")
            for c in sorted((c for c in cases if c.get("series") == series), key=lambda c: c["src_tile"][0]):
                pd = c["variants"].get("pdgemr2d", {})
                f.write('"%s" %d %g %g %g %g %g %g %g %g %g %g\n' % (
                    "%d->%d" % (c["src_tile"][0], c["dst_tile"][0]), c["src_tile"][0],
                    var(c, "redist_scalapack", "median"), var(c, "pdgemr2d", "median"), num(c.get("speedup")),
                    c["setup_seconds"], mib(c["plan_memory_bytes"]), mib(c["setup_peak_bytes"]),
                    mib(c["measured_peak_bytes"]), mib(c["process_peak_bytes"]),
                    mib(pd.get("peak_growth_bytes")), mib(pd.get("process_peak_bytes"))))

net = load("network")
if net:
    with open(os.path.join(out, "network.dat"), "w") as f:
        f.write("# case tile scalapack pdgemr2d network_bound memory_bound eff_tile eff_scalapack eff_pdgemr2d\n")
        for c in (c for c in net["cases"] if c["suite"] == "network"):
            f.write('"%s" %g %g %g %g %g %g %g %g\n' % (
                c["name"].split()[0], var(c, "redist_tile", "median"), var(c, "redist_scalapack", "median"),
                var(c, "pdgemr2d", "median"), num(c.get("network_bound_seconds")),
                num(c.get("memory_bound_seconds")), num(c.get("efficiency_tile_pct")),
                num(c.get("efficiency_scalapack_pct")), num(c.get("efficiency_pdgemr2d_pct"))))

ov = load("overlap")
if ov:
    with open(os.path.join(out, "overlap.dat"), "w") as f:
        f.write("# case t_move t_compute t_total ratio\n")
        for c in (c for c in ov["cases"] if c["suite"] == "overlap"):
            f.write('"%s, window %s" %g %g %g %g\n' % (
                c["name"].split()[0], c.get("window", "?"), var(c, "move", "median"),
                var(c, "compute", "median"), var(c, "total", "median"), num(c.get("ratio"))))

th = load("threads")
if th and "runs" in th:
    with open(os.path.join(out, "threads.dat"), "w") as f:
        f.write("# run tile scalapack pdgemr2d (median s) copy_anchor_GBs\n")
        for r in th["runs"]:
            m = r["medians"]
            f.write('"%s" %g %g %g %g\n' % (r["label"], num(m.get("redist_tile")), num(m.get("redist_scalapack")),
                    num(m.get("pdgemr2d")), num(r.get("b_copy_space")) / 1e9))
    s = th.get("speedup_2_over_1") or {}
    with open(os.path.join(out, "threads_title.txt"), "w") as f:
        f.write("%s; " % (th["runs"][0]["case"] if th["runs"] else "?"))
        if s:
            f.write("%s, 2 threads vs 1: tile %.2fx, ScaLAPACK storage %.2fx, parallel copy %.2fx" % (
                s.get("execution_space", "?"), num(s.get("redist_tile")), num(s.get("redist_scalapack")),
                num(s.get("copy_anchor"))))
        else:
            f.write("no 1- and 2-thread runs of one execution space")
