#!/usr/bin/env python3
"""cluster.py OUT.json RUN.json... [--plots DIR]: merges the jobs of `redist-bench --suite
cluster` (one JSON per topology, link rate and repetition, each run through
scripts/cluster.sh) into OUT.json, prints the table of bench/README.md's cluster section,
and with --plots writes DIR/cluster.png and DIR/cluster_relabel.png (gnuplot, cluster.gp).

Every timed run of every job of one (topology, rate, case) is pooled: min and median over
all of them; utilisation = link bound / time; ratio = pdgemr2d / redist. Per job, the
medians are kept too ("jobs"), to show how far repetitions of the job agree."""
import json, os, statistics, subprocess, sys, tempfile

args = sys.argv[1:]
plots = None
if "--plots" in args:
    k = args.index("--plots")
    plots = args[k + 1]
    del args[k:k + 2]
out, inputs = args[0], args[1:]

TARGET_UTIL = {1e9: 95, 2.5e9: 95, 10e9: 85}  # issue 25's targets, % of the link bound
TARGET_RATIO = 2.0


def topology(d):
    sec = d["cluster"]
    nodes = sec["nodes"]
    return "%dx%d" % (nodes, d["ranks"] // nodes)


def rate_label(bits):
    g = bits / 1e9
    return ("%g Gbit/s" % g) if g >= 1 else ("%g Mbit/s" % (bits / 1e6))


jobs, groups = [], {}
for p in inputs:
    d = json.load(open(p))
    sec = d.get("cluster")
    if not sec:
        continue
    topo, rate = topology(d), sec["link_rate_bits"]
    jobs.append({"file": os.path.basename(p), "topology": topo, "link_rate_bits": rate,
                 "loadavg_start": d["loadavg_start"], "loadavg_end": d["loadavg_end"],
                 "repeat": d["repeat"], "mpi_link_bytes_per_s": sec["mpi_link_bytes_per_s"],
                 "mismatches": d["mismatches"]})
    extra = {c["name"]: c for c in sec["cases"]}
    for c in d["cases"]:
        if c["suite"] != "cluster":
            continue
        key = (topo, rate, c["name"])
        g = groups.setdefault(key, {"cases": [], "extra": []})
        g["cases"].append(c)
        g["extra"].append(extra.get(c["name"], {}))


def pooled(cases, variant):
    t = [x for c in cases for x in c["variants"].get(variant, {}).get("times", [])]
    return (min(t), statistics.median(t), len(t)) if t else (None, None, 0)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pct(a, b):
    return 100 * a / b if a is not None and b else None


rows = []
order = {"2x1": 0, "2x2": 1, "3x1": 2}
for (topo, rate, name), g in sorted(groups.items(),
                                    key=lambda kv: (order.get(kv[0][0], 9), kv[0][1], kv[0][2])):
    cs, c0 = g["cases"], g["cases"][0]
    bound = c0.get("link_bound_seconds")
    r_min, r_med, r_n = pooled(cs, "redist_scalapack")
    p_min, p_med, p_n = pooled(cs, "pdgemr2d")
    target = TARGET_UTIL.get(rate)
    if rate == 10e9 and topo == "3x1":
        target = None  # the issue asks 85 % at 10 Gbit/s on 2x1 and 2x2 only
    row = {
        "topology": topo, "link_rate_bits": rate, "case": name, "M": c0["M"], "N": c0["N"],
        "jobs": len(cs), "runs_redist": r_n, "runs_pdgemr2d": p_n,
        "link_bytes_max": c0.get("link_bytes_max"), "link_bound_seconds": bound,
        "redist_min": r_min, "redist_median": r_med, "pdgemr2d_min": p_min,
        "pdgemr2d_median": p_med,
        "utilisation_median_pct": pct(bound, r_med), "utilisation_best_pct": pct(bound, r_min),
        "utilisation_pdgemr2d_median_pct": pct(bound, p_med),
        "ratio_median": p_med / r_med if p_med and r_med else None,
        "ratio_best": p_min / r_min if p_min and r_min else None,
        "target_utilisation_pct": target, "target_ratio": TARGET_RATIO,
        "job_medians_redist": [c["variants"]["redist_scalapack"]["median"] for c in cs],
        "job_medians_pdgemr2d": [c["variants"].get("pdgemr2d", {}).get("median") for c in cs],
        "inter_node_bytes": c0.get("inter_node_bytes"),
        "inter_node_bytes_flat": c0.get("inter_node_bytes_flat"),
        "inter_node_bytes_node_aware": c0.get("inter_node_bytes_node_aware"),
        "link_bytes_max_flat": c0.get("link_bytes_max_flat"),
        "link_bytes_max_node_aware": c0.get("link_bytes_max_node_aware"),
        "cpu_per_run_sum_redist": med([c.get("cpu_per_run_sum_redist") for c in cs]),
        "cpu_per_run_sum_pdgemr2d": med([c.get("cpu_per_run_sum_pdgemr2d") for c in cs]),
        "machine_busy_redist_pct": med([c.get("machine_busy_redist_pct") for c in cs]),
        "machine_busy_pdgemr2d_pct": med([c.get("machine_busy_pdgemr2d_pct") for c in cs]),
        "cpu_per_rank_redist": g["extra"][0].get("cpu_per_run_redist"),
        "link_bytes_out": g["extra"][0].get("link_bytes_out"),
        "link_bytes_in": g["extra"][0].get("link_bytes_in"),
        "mismatches": sum(sum(v["mismatches"] for v in c["variants"].values()) for c in cs),
    }
    row["meets_utilisation"] = (None if target is None or row["utilisation_median_pct"] is None
                                else row["utilisation_median_pct"] >= target)
    row["meets_ratio"] = (None if row["ratio_median"] is None
                          else row["ratio_median"] >= TARGET_RATIO)
    rows.append(row)

loads = [x for j in jobs for x in (j["loadavg_start"][0], j["loadavg_end"][0])]
json.dump({"benchmark": "redist-bench", "suite": "cluster", "jobs": jobs, "rows": rows,
           "loadavg_1min_range": [min(loads), max(loads)] if loads else None,
           "targets": {"utilisation_pct": {"1gbit": 95, "2.5gbit": 95, "10gbit (2x1, 2x2)": 85},
                       "ratio_vs_pdgemr2d": TARGET_RATIO},
           "mismatches": sum(r["mismatches"] for r in rows)}, open(out, "w"), indent=1)


def f(x, fmt):
    return "-" if x is None else fmt % x


print("| nodes | link | case | M x N | link MB | bound s | redist min / med s | pdgemr2d min / med s "
      "| util. med (best) | ratio med | CPU/run s redist / pd | busy % | inter-node MB as run / flat / node-aware |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %s | %dx%d | %s | %s | %s / %s | %s / %s | %s (%s) %% | %sx | %s / %s | %s | %s / %s / %s |" % (
        r["topology"], rate_label(r["link_rate_bits"]), r["case"].split()[0], r["M"], r["N"],
        f(r["link_bytes_max"] and r["link_bytes_max"] / 1e6, "%.0f"),
        f(r["link_bound_seconds"], "%.3f"), f(r["redist_min"], "%.3f"), f(r["redist_median"], "%.3f"),
        f(r["pdgemr2d_min"], "%.2f"), f(r["pdgemr2d_median"], "%.2f"),
        f(r["utilisation_median_pct"], "%.0f"), f(r["utilisation_best_pct"], "%.0f"),
        f(r["ratio_median"], "%.1f"), f(r["cpu_per_run_sum_redist"], "%.2f"),
        f(r["cpu_per_run_sum_pdgemr2d"], "%.2f"), f(r["machine_busy_redist_pct"], "%.0f"),
        f(r["inter_node_bytes"] and r["inter_node_bytes"] / 1e6, "%.0f"),
        f(r["inter_node_bytes_flat"] and r["inter_node_bytes_flat"] / 1e6, "%.0f"),
        f(r["inter_node_bytes_node_aware"] and r["inter_node_bytes_node_aware"] / 1e6, "%.0f")))
print("cluster.py: %d jobs, %d rows -> %s; load (1 min) %s" % (
    len(jobs), len(rows), out, json.dumps([round(x, 2) for x in [min(loads), max(loads)]]) if loads else "-"))

if plots:
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        for topo in ("2x1", "2x2", "3x1"):
            with open(os.path.join(tmp, "cluster_%s.dat" % topo), "w") as fd:
                fd.write("# label util_redist util_pdgemr2d ratio bound_s redist_med pd_med "
                         "inter_MB flat_MB node_MB\n")
                for r in (r for r in rows if r["topology"] == topo):
                    mb = lambda x: x and x / 1e6
                    cols = (r["utilisation_median_pct"], r["utilisation_pdgemr2d_median_pct"],
                            r["ratio_median"], r["link_bound_seconds"], r["redist_median"],
                            r["pdgemr2d_median"], mb(r["inter_node_bytes"]),
                            mb(r["inter_node_bytes_flat"]), mb(r["inter_node_bytes_node_aware"]))
                    fd.write('"%s %g" %s\n' % (r["case"].split()[0], r["link_rate_bits"] / 1e9,
                                               " ".join("NaN" if x is None else "%g" % x
                                                        for x in cols)))
        title = "load (1 min) %.1f-%.1f" % (min(loads), max(loads)) if loads else ""
        subprocess.run(["gnuplot", "-e", "dat='%s'; out='%s'; ttl='%s'" % (tmp, plots, title),
                        os.path.join(here, "cluster.gp")], check=True)
    print("cluster.py: %s/cluster.png, %s/cluster_relabel.png" % (plots, plots))
