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
        f.write("# case redist_tile redist_scalapack pdgemr2d eq4 redist_shared (median seconds)\n")
        for c in std["cases"]:
            f.write('"%s" %g %g %g %g %g\n' % (c["name"].split()[0], var(c, "redist_tile", "median"),
                    var(c, "redist_scalapack", "median"), var(c, "pdgemr2d", "median"), c["eq4_seconds"],
                    var(c, "redist_shared", "median")))

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
