#!/usr/bin/env python3
"""cluster_ab.py IN.json... [--plots DIR]: builds side by side on simulated nodes, from one
or more runs of bench/cluster_ab.py with the same build labels. Pools every timed run per
(topology, link rate, MTU, case) and build: median time, utilisation = link bound / median
(the busiest rank's bytes between nodes / rate: meaningful with one rank a node; with
several, read the time ratio) and the ratio of the first build's median to each other's.
Prints a markdown table per (topology, rate, MTU) with the range over cases a-d, and with
--plots writes DIR/cluster_ab.png (gnuplot): utilisation per case, one bar per build, for
the topologies of one rank a node."""
import json, os, statistics, subprocess, sys, tempfile
from collections import defaultdict

args, plots = sys.argv[1:], None
if "--plots" in args:
    k = args.index("--plots")
    plots = args[k + 1]
    del args[k:k + 2]
if not args:
    sys.exit(__doc__)

labels, times, bounds = [], defaultdict(lambda: defaultdict(list)), {}
for path in args:
    d = json.load(open(path))
    for label in d["builds"]:
        if label not in labels:
            labels.append(label)
    for r in d["rows"]:
        key = (r["topology"], r["link_rate"], r["mtu"], r["case"])
        bounds[key] = r["bound_s"]
        for label in d["builds"]:
            times[key][label] += r[label]["times_s"]

keys = sorted(times, key=lambda k: (k[0], float(k[1][:-4]), k[2], k[3]))
median = {k: {l: statistics.median(times[k][l]) for l in labels if times[k][l]} for k in keys}
util = {k: {l: 100 * bounds[k] / m for l, m in median[k].items()} for k in keys}

first = labels[0]
print("| nodes | Gbit/s | MTU | " + " | ".join("%s: util. a-d" % l for l in labels) +
      " | " + " | ".join("%s / %s (time)" % (first, l) for l in labels[1:]) + " |")
print("|---" * (3 + 2 * len(labels) - 1) + "|")
groups = defaultdict(list)
for k in keys:
    groups[k[:3]].append(k)
span = lambda xs, fmt: (fmt % min(xs)) + "-" + (fmt % max(xs)) if xs else "-"
for g, ks in groups.items():
    cells = [span([util[k][l] for k in ks if l in util[k]], "%.0f") + " %" for l in labels]
    cells += [span([median[k][first] / median[k][l] for k in ks if l in median[k]], "%.2f")
              for l in labels[1:]]
    print("| %s | %s | %d | %s |" % (g[0], g[1][:-4], g[2], " | ".join(cells)))
runs = sum(len(v) for t in times.values() for v in t.values())
print("cluster_ab.py: %d files, %d rows, %d timed runs" % (len(args), len(keys), runs))

one_rank = [g for g in groups if g[0].endswith("x1")]
if plots and one_rank:
    os.makedirs(plots, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "ab.dat")
        with open(dat, "w") as fd:
            for g in one_rank:
                for k in groups[g]:
                    fd.write('"%s %s %d %s" %s\n' % (g[0], g[1][:-4], g[2], k[3], " ".join(
                        "%.1f" % util[k].get(l, float("nan")) for l in labels)))
        gp = os.path.join(tmp, "ab.gp")
        with open(gp, "w") as fd:
            fd.write(
                "set terminal pngcairo size %d,440 font ',9'\n" % max(700, 26 * len(keys)) +
                "set output '%s/cluster_ab.png'\nset termoption noenhanced\n" % plots +
                "set title 'One rank a node: link bound / median time, builds side by side "
                "(x: nodes, Gbit/s, MTU, case)'\n"
                "set style data histogram\nset style histogram cluster gap 1\n"
                "set style fill solid 0.8 border -1\nset grid ytics\nset yrange [60:105]\n"
                "set xtics rotate by -60 font ',7'\nset key below\n"
                "set ylabel 'utilisation (%)'\n"
                "plot " + ", ".join("'%s' using %d%s title '%s'" % (
                    dat, i + 2, ":xtic(1)" if i == 0 else "", l)
                    for i, l in enumerate(labels)) + "\n")
        subprocess.run(["gnuplot", gp], check=True)
    print("cluster_ab.py: %s/cluster_ab.png" % plots)
