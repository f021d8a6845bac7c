#!/usr/bin/env python3
"""cluster.py OUT.json IN.json... [--plots DIR]: pools the jobs of `redist-bench --suite
cluster` (one JSON per topology, link rate and repetition, each run through
scripts/cluster.sh) into OUT.json, prints the table of bench/README.md's cluster section,
and with --plots writes DIR/cluster.png and DIR/cluster_relabel.png (gnuplot, cluster.gp).

An IN.json may also be an earlier OUT.json: its jobs are pooled again, so runs made at
different times can be merged. Every timed run of every job of one (topology, rate, case)
is pooled: min and median over all of them; utilisation = link bound / time; ratio =
pdgemr2d / redist. OUT.json keeps every job whole ("jobs"), the pooled rows ("rows") and,
per topology, the relabeling of every pair of grids ("relabel")."""
import json, os, statistics, subprocess, sys, tempfile

from pool_args import pool_args

out, inputs, plots = pool_args(sys.argv[1:])

TARGET_RATIO = 2.0


def target_utilisation(topology, bits):
    """Issue 25's targets, % of the link bound."""
    if bits in (1e9, 2.5e9):
        return 95
    if bits == 10e9 and topology in ("2x1", "2x2"):
        return 85
    return None


jobs, relabel = [], {}
for p in inputs:
    d = json.load(open(p))
    if d.get("suite") == "cluster" and "jobs" in d and "cluster" not in d:
        jobs += d["jobs"]  # an earlier pooled file
        for topo, table in d.get("relabel", {}).items():
            relabel.setdefault(topo, table)
    elif d.get("cluster"):
        d["file"] = os.path.basename(p)
        jobs.append(d)


def topology(d):
    return "%dx%d" % (d["cluster"]["nodes"], d["ranks"] // d["cluster"]["nodes"])


groups = {}
for d in jobs:
    topo, rate = topology(d), d["cluster"]["link_rate_bits"]
    # The same table in every job of a topology: kept once, in "relabel".
    table = d.pop("cluster_relabel", None)
    if table and topo not in relabel:
        relabel[topo] = table
    extra = {c["name"]: c for c in d["cluster"]["cases"]}
    for c in d["cases"]:
        if c["suite"] == "cluster":
            g = groups.setdefault((topo, rate, c["name"]), [])
            g.append((d, c, extra.get(c["name"], {})))


def pooled(cases, variant):
    t = [x for c in cases for x in c["variants"].get(variant, {}).get("times", [])]
    return (min(t), statistics.median(t), len(t)) if t else (None, None, 0)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    return a / b if a is not None and b else None


order = {"2x1": 0, "2x2": 1, "3x1": 2}
rows = []
for (topo, rate, name), g in sorted(groups.items(),
                                    key=lambda kv: (order.get(kv[0][0], 9), kv[0][1], kv[0][2])):
    cs = [c for _, c, _ in g]
    c0, x0 = cs[0], g[0][2]
    bound, link = c0.get("link_bound_seconds"), c0.get("link_bytes_max")
    r_min, r_med, r_n = pooled(cs, "redist_scalapack")
    p_min, p_med, p_n = pooled(cs, "pdgemr2d")
    b_mpi = med([d["cluster"].get("mpi_link_bytes_per_s") for d, _, _ in g])
    target = target_utilisation(topo, rate)

    def each(key):
        return med([c.get(key) for c in cs])

    row = {
        "topology": topo, "link_rate_bits": rate, "case": name, "M": c0["M"], "N": c0["N"],
        "jobs": len(cs), "runs_redist": r_n, "runs_pdgemr2d": p_n,
        "loadavg_1min": [d["loadavg_start"][0] for d, _, _ in g],
        "link_bytes_max": link, "link_bound_seconds": bound,
        "redist_min": r_min, "redist_median": r_med, "pdgemr2d_min": p_min, "pdgemr2d_median": p_med,
        "utilisation_median_pct": ratio(100 * bound, r_med) if bound else None,
        "utilisation_best_pct": ratio(100 * bound, r_min) if bound else None,
        "utilisation_pdgemr2d_median_pct": ratio(100 * bound, p_med) if bound else None,
        "mpi_link_bytes_per_s": b_mpi,
        "utilisation_vs_mpi_pct": ratio(100 * link / b_mpi, r_med) if link and b_mpi else None,
        "ratio_median": ratio(p_med, r_med), "ratio_best": ratio(p_min, r_min),
        "target_utilisation_pct": target, "target_ratio": TARGET_RATIO,
        "job_medians_redist": [c["variants"]["redist_scalapack"]["median"] for c in cs],
        "job_medians_pdgemr2d": [c["variants"].get("pdgemr2d", {}).get("median") for c in cs],
        "link_bytes_out": x0.get("link_bytes_out"), "link_bytes_in": x0.get("link_bytes_in"),
        "cpu_per_run_per_rank_redist": x0.get("cpu_per_run_redist"),
        "mismatches": sum(sum(v["mismatches"] for v in c["variants"].values()) for c in cs),
    }
    for key in ("inter_node_bytes", "inter_node_bytes_flat", "inter_node_bytes_node_aware",
                "link_bytes_max_flat", "link_bytes_max_node_aware"):
        row[key] = c0.get(key)
    for key in ("cpu_per_run_sum_redist", "system_per_run_sum_redist", "cpu_per_run_sum_pdgemr2d",
                "system_per_run_sum_pdgemr2d", "machine_busy_redist_pct",
                "machine_busy_pdgemr2d_pct"):
        row[key] = each(key)
    for v in ("redist", "pdgemr2d"):
        for share in ("send_only", "receive_only", "both", "idle"):
            key = "link0_%s_%s_pct" % (share, v)
            row[key] = each(key)
    row["meets_utilisation"] = (None if target is None or row["utilisation_median_pct"] is None
                                else row["utilisation_median_pct"] >= target)
    row["meets_ratio"] = None if row["ratio_median"] is None else row["ratio_median"] >= TARGET_RATIO
    rows.append(row)

loads = [x for d in jobs for x in (d["loadavg_start"][0], d["loadavg_end"][0])]
pooled_json = json.dumps({
    "benchmark": "redist-bench", "suite": "cluster",
    "loadavg_1min_range": [min(loads), max(loads)] if loads else None,
    "targets": {"utilisation_pct": {"1gbit": 95, "2.5gbit": 95, "10gbit (2x1, 2x2)": 85},
                "ratio_vs_pdgemr2d": TARGET_RATIO},
    "mismatches": sum(r["mismatches"] for r in rows), "rows": rows, "relabel": relabel,
    "jobs": "JOBS"}, indent=1)
# Every job whole, one a line.
with open(out, "w") as fd:
    fd.write(pooled_json.replace('"JOBS"', "[\n" + ",\n".join(json.dumps(d) for d in jobs) + "\n]")
             + "\n")


def f(x, fmt, scale=1.0):
    return "-" if x is None else fmt % (x * scale)


def gbit(bits):
    return "%g" % (bits / 1e9)


print("| nodes | Gbit/s | case | M x N | link MB | bound s | redist min / med s | pdgemr2d min / med s "
      "| util. med (best) | vs MPI | ratio | link 0: 1-way / both / idle | CPU s/run |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    one_way = (None if r["link0_send_only_redist_pct"] is None
               else r["link0_send_only_redist_pct"] + r["link0_receive_only_redist_pct"])
    print("| %s | %s | %s | %dx%d | %s | %s | %s / %s | %s / %s | %s (%s) %% | %s %% | %sx | %s / %s / %s %% | %s |" % (
        r["topology"], gbit(r["link_rate_bits"]), r["case"].split()[0], r["M"], r["N"],
        f(r["link_bytes_max"], "%.0f", 1e-6), f(r["link_bound_seconds"], "%.3f"),
        f(r["redist_min"], "%.3f"), f(r["redist_median"], "%.3f"),
        f(r["pdgemr2d_min"], "%.2f"), f(r["pdgemr2d_median"], "%.2f"),
        f(r["utilisation_median_pct"], "%.0f"), f(r["utilisation_best_pct"], "%.0f"),
        f(r["utilisation_vs_mpi_pct"], "%.0f"), f(r["ratio_median"], "%.1f"), f(one_way, "%.0f"),
        f(r["link0_both_redist_pct"], "%.0f"), f(r["link0_idle_redist_pct"], "%.0f"),
        f(r["cpu_per_run_sum_redist"], "%.2f")))
print()
print("| nodes | Gbit/s | case | inter-node MB as run / flat / node-aware | busiest link MB as run / flat / node-aware |")
print("|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %s | %s / %s / %s | %s / %s / %s |" % (
        r["topology"], gbit(r["link_rate_bits"]), r["case"].split()[0],
        f(r["inter_node_bytes"], "%.1f", 1e-6), f(r["inter_node_bytes_flat"], "%.1f", 1e-6),
        f(r["inter_node_bytes_node_aware"], "%.1f", 1e-6), f(r["link_bytes_max"], "%.1f", 1e-6),
        f(r["link_bytes_max_flat"], "%.1f", 1e-6), f(r["link_bytes_max_node_aware"], "%.1f", 1e-6)))
print()
print("relabeling, every pair of grids (standard extents), MB between nodes as given / flat / "
      "node-aware, where they differ:")
for topo, table in sorted(relabel.items(), key=lambda kv: order.get(kv[0], 9)):
    diff = ["%s %.1f / %.1f / %.1f" % (t["case"], t["inter_node_bytes"] / 1e6,
                                       t["inter_node_bytes_flat"] / 1e6,
                                       t["inter_node_bytes_node_aware"] / 1e6)
            for t in table if len({round(t[k] / 1e5) for k in ("inter_node_bytes", "inter_node_bytes_flat",
                                                          "inter_node_bytes_node_aware")}) > 1]
    print("  %s (%d pairs): %s" % (topo, len(table), "; ".join(diff) or "none"))
print("cluster.py: %d jobs, %d rows -> %s; load (1 min) %s" % (
    len(jobs), len(rows), out, "%.1f-%.1f" % (min(loads), max(loads)) if loads else "-"))

if plots:
    os.makedirs(plots, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        for topo in ("2x1", "2x2", "3x1"):
            with open(os.path.join(tmp, "cluster_%s.dat" % topo), "w") as fd:
                fd.write("# label util_redist util_pdgemr2d ratio bound_s redist_med pd_med "
                         "inter_MB flat_MB node_MB\n")
                for r in (r for r in rows if r["topology"] == topo):
                    mb = lambda x: None if x is None else x / 1e6
                    cols = (r["utilisation_median_pct"], r["utilisation_pdgemr2d_median_pct"],
                            r["ratio_median"], r["link_bound_seconds"], r["redist_median"],
                            r["pdgemr2d_median"], mb(r["inter_node_bytes"]),
                            mb(r["inter_node_bytes_flat"]), mb(r["inter_node_bytes_node_aware"]))
                    fd.write('"%s %s" %s\n' % (r["case"].split()[0], gbit(r["link_rate_bits"]),
                                               " ".join("NaN" if x is None else "%g" % x
                                                        for x in cols)))
            with open(os.path.join(tmp, "relabel_%s.dat" % topo), "w") as fd:
                fd.write("# pair as_given_MB flat_MB node_aware_MB (pairs where they differ)\n")
                n = 0
                for t in relabel.get(topo, []):
                    v = [t[k] / 1e6 for k in ("inter_node_bytes", "inter_node_bytes_flat",
                                              "inter_node_bytes_node_aware")]
                    if len({round(x, 1) for x in v}) > 1:
                        fd.write('"%s" %g %g %g\n' % (t["case"], *v))
                        n += 1
                if n == 0:
                    fd.write('"all equal" 0 0 0\n')
        title = "load (1 min) %.1f-%.1f" % (min(loads), max(loads)) if loads else ""
        subprocess.run(["gnuplot", "-e", "dat='%s'; out='%s'; ttl='%s'" % (tmp, plots, title),
                        os.path.join(here, "cluster.gp")], check=True)
    print("cluster.py: %s/cluster.png, %s/cluster_relabel.png" % (plots, plots))
