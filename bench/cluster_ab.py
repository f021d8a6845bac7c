#!/usr/bin/env python3
"""Two or more builds of redist-run side by side on simulated nodes (scripts/cluster.sh).

  sudo bench/cluster_ab.py OUT.json "2x1 3x1" "1gbit 2.5gbit" "1500 9000" REPEAT \\
      LABEL=PATH/redist-run [LABEL="PATH/redist-run --tcp-cc=reno" ...]

Per (topology, rate, MTU, case a-d) every build runs once, in the order given, one job after
the other, so that the builds see the same machine; cases and extents are those of
bench/cluster_schedules.sh (read from it), ScaLAPACK storage, the default schedule. The bound
is the busiest rank's bytes to or from other nodes / rate: right for one rank a node (with
several, compare the times). Words after a build's path are options of scripts/cluster.sh for
that build's jobs. Prints one line per row and writes every timed run to OUT.json.
"""
import json
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out, topos, rates, mtus, repeat = sys.argv[1], *(a.split() for a in sys.argv[2:5]), int(sys.argv[5])
builds = [a.split("=", 1) for a in sys.argv[6:]]
cluster_options = {label: spec.split()[1:] for label, spec in builds}
builds = [(label, spec.split()[0]) for label, spec in builds]
if not builds:
    sys.exit("cluster_ab.py: give at least one LABEL=PATH/redist-run")
sizes = dict(re.findall(r"\[([0-9x]+-[0-9.]+[mg]bit-[a-d])\]=([0-9x]+)",
                        open(os.path.join(root, "bench/cluster_schedules.sh")).read()))


def layouts(case, e, p):
    return {"a": (f"{e}/256x256/bc:1x{p}/scalapack", f"{e}/100x100/bc:{p}x1/scalapack"),
            "b": (f"{e}/64x64/bc:{p}x1/scalapack", f"{e}/64x64/bc:1x{p}/scalapack"),
            "c": (f"{e}/1024x1024/bc:{p}x1/scalapack", f"{e}/32x32/bc:{p}x1/scalapack"),
            "d": (f"{e}/128x96/bc:{p}x1/scalapack", f"{e}/100x70/bc:1x{p}/scalapack")}[case]


rows = []
for topo in topos:
    nodes, rpn = map(int, topo.split("x"))
    for rate in rates:
        bytes_per_s = float(re.fullmatch(r"([0-9.]+)gbit", rate).group(1)) * 1e9 / 8
        for mtu in mtus:
            for case in "abcd":
                extent = sizes[f"{topo}-{rate}-{case}"]
                src, dst = layouts(case, extent, nodes * rpn)
                row = {"topology": topo, "link_rate": rate, "mtu": int(mtu), "case": case,
                       "extent": extent}
                for label, binary in builds:
                    report = f"{out}.{topo}-{rate}-{mtu}-{case}-{label}.json"
                    load = float(open("/proc/loadavg").read().split()[0])
                    subprocess.run([os.path.join(root, "scripts/cluster.sh"), "--nodes", str(nodes),
                                    "--ranks-per-node", str(rpn), "--rate", rate, "--mtu", mtu,
                                    *cluster_options[label], "--", binary, "--src", src, "--dst", dst, "--repeat",
                                    str(repeat), "--json", report],
                                   env=dict(os.environ, OMP_NUM_THREADS="1"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                    r = json.load(open(report))
                    os.remove(report)
                    inter = r["bytes"]["inter_node"]
                    row["bound_s"] = max(max(inter["sent"]), max(inter["recv"])) / bytes_per_s
                    t = r["time_s"]
                    row[label] = {"times_s": t["all"], "median_s": t["median"], "min_s": t["min"],
                                  "util_median": row["bound_s"] / t["median"],
                                  "util_best": row["bound_s"] / t["min"], "loadavg_start": load}
                print(f"{topo} {rate} mtu {mtu} {case}: bound {row['bound_s']:.3f} " +
                      " ".join(f"{l} {row[l]['median_s']:.3f} ({100 * row[l]['util_median']:.0f}%)"
                               for l, _ in builds), flush=True)
                rows.append(row)
json.dump({"builds": dict(builds), "cluster_options": cluster_options, "repeat": repeat, "rows": rows}, open(out, "w"), indent=1)
