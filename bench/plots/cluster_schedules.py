#!/usr/bin/env python3
"""cluster_schedules.py OUT.json IN.json... [--plots DIR]: the two schedules between nodes
side by side. Pools the jobs of `redist-bench --suite cluster` (each job times redist all at
once, "redist_scalapack", and with the caterpillar, "redist_caterpillar", one after the
other; bench/suites_cluster.cpp) per (topology, link rate, case): min and median over every
timed run; utilisation = link bound / time; speed-up = all-at-once median / caterpillar
median. Writes OUT.json (rows, and every job whole), prints the table of bench/README.md's
cluster section, and with --plots writes DIR/cluster_schedules.png (gnuplot). An IN.json may
be an earlier OUT.json: its jobs are pooled again."""
import json, os, statistics, subprocess, sys, tempfile

from pool_args import pool_args

out, inputs, plots = pool_args(sys.argv[1:])

jobs = []
for p in inputs:
    d = json.load(open(p))
    if d.get("suite") == "cluster-schedules":
        jobs += d["jobs"]
    elif d.get("cluster") or "inter_node_schedule" in d:
        d["file"] = os.path.basename(p)
        d.pop("cluster_relabel", None)  # the relabeling table: bench/results/cluster.json
        jobs.append(d)


def rate_bits(text):
    """tc's units: 1gbit, 2.5gbit, 100mbit."""
    for unit, scale in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    return float(text)


def redist_run_case(d):
    """A redist-run job of bench/cluster_schedules.sh as a case of the suite's format: its
    link bound from the bytes each node sends and receives over its link."""
    nodes = d["nodes"]
    out, inn = [0.0] * nodes, [0.0] * nodes
    for r, n in enumerate(d["node_of_rank"]):
        out[n] += d["bytes"]["inter_node"]["sent"][r]
        inn[n] += d["bytes"]["inter_node"]["recv"][r]
    bits = rate_bits(d["link_rate"])
    busiest = max(out + inn)
    variant = {"all-at-once": "redist_scalapack", "caterpillar": "redist_caterpillar"}
    m, n = d["src"].split("/")[0].split("x")
    # The caterpillar's 60 KiB pieces: used while no rank receives more than 1024 of them.
    pieces = max(d["bytes"]["inter_node"]["recv"]) // (60 << 10)
    return {"suite": "cluster", "name": d["case"], "M": int(m), "N": int(n),
            "caterpillar_pieces_max": pieces,
            "link_bytes_max": busiest, "link_bound_seconds": busiest * 8 / bits,
            "variants": {variant[d["inter_node_schedule"]]: {
                "times": d["time_s"]["all"], "median": d["time_s"]["median"],
                "mismatches": d["mismatches"]}}}


groups = {}
for d in jobs:
    if "inter_node_schedule" in d:  # redist-run, one schedule a job: pooled by case
        c = redist_run_case(d)
        groups.setdefault((d["topology"], rate_bits(d["link_rate"]), d["case"]), []).append(
            (d, c, {}))
        continue
    topo = "%dx%d" % (d["cluster"]["nodes"], d["ranks"] // d["cluster"]["nodes"])
    extra = {c["name"]: c for c in d["cluster"]["cases"]}
    for c in d["cases"]:
        if c["suite"] == "cluster" and "redist_caterpillar" in c["variants"]:
            groups.setdefault((topo, d["cluster"]["link_rate_bits"], c["name"]), []).append(
                (d, c, extra.get(c["name"], {})))


def pooled(cases, variant):
    t = [x for c in cases for x in c["variants"].get(variant, {}).get("times", [])]
    return (min(t), statistics.median(t), len(t)) if t else (None, None, 0)


def load(x):
    """A job's 1-minute load: the suite writes all three, cluster_schedules.sh one."""
    return x[0] if isinstance(x, list) else x


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pct(bound, t):
    return 100 * bound / t if bound and t else None


order = {"2x1": 0, "2x2": 1, "3x1": 2}
rows = []
for (topo, rate, name), g in sorted(groups.items(),
                                    key=lambda kv: (order.get(kv[0][0], 9), kv[0][1], kv[0][2])):
    cs = [c for _, c, _ in g]
    bound = cs[0].get("link_bound_seconds")
    a_min, a_med, a_n = pooled(cs, "redist_scalapack")
    c_min, c_med, c_n = pooled(cs, "redist_caterpillar")
    row = {"topology": topo, "link_rate_bits": rate, "case": name, "M": cs[0]["M"],
           "N": cs[0]["N"], "jobs": len(cs), "runs": [a_n, c_n],
           "loadavg_1min": [load(d["loadavg_start"]) for d, _, _ in g],
           "link_bytes_max": cs[0].get("link_bytes_max"), "link_bound_seconds": bound,
           "caterpillar_pieces_max": cs[0].get("caterpillar_pieces_max"),
           "all_at_once_min": a_min, "all_at_once_median": a_med,
           "caterpillar_min": c_min, "caterpillar_median": c_med,
           "utilisation_all_at_once_pct": pct(bound, a_med),
           "utilisation_all_at_once_best_pct": pct(bound, a_min),
           "utilisation_caterpillar_pct": pct(bound, c_med),
           "utilisation_caterpillar_best_pct": pct(bound, c_min),
           "speedup_median": a_med / c_med if a_med and c_med else None,
           "job_medians_all_at_once": [c["variants"]["redist_scalapack"]["median"]
                                       for c in cs if "redist_scalapack" in c["variants"]],
           "job_medians_caterpillar": [c["variants"]["redist_caterpillar"]["median"]
                                       for c in cs if "redist_caterpillar" in c["variants"]],
           "mismatches": sum(sum(v["mismatches"] for v in c["variants"].values()) for c in cs)}
    for v, key in (("all_at_once", "redist"), ("caterpillar", "caterpillar")):
        for share in ("send_only", "receive_only", "both", "idle"):
            row["link0_%s_%s_pct" % (share, v)] = med(
                [c.get("link0_%s_%s_pct" % (share, key)) for c in cs])
    rows.append(row)

loads = [load(x) for d in jobs for x in (d["loadavg_start"], d["loadavg_end"])]
text = json.dumps({"benchmark": "redist-bench", "suite": "cluster-schedules",
                   "loadavg_1min_range": [min(loads), max(loads)] if loads else None,
                   "mismatches": sum(r["mismatches"] for r in rows), "rows": rows,
                   "jobs": "JOBS"}, indent=1)
with open(out, "w") as fd:
    fd.write(text.replace('"JOBS"', "[\n" + ",\n".join(json.dumps(d) for d in jobs) + "\n]") +
             "\n")


def f(x, fmt):
    return "-" if x is None else fmt % x


def shares(r, v):
    one = r["link0_send_only_%s_pct" % v]
    if one is None:
        return "-"
    one += r["link0_receive_only_%s_pct" % v]
    return "%.0f / %.0f / %.0f" % (one, r["link0_both_%s_pct" % v], r["link0_idle_%s_pct" % v])


print("| nodes | Gbit/s | case | M x N | bound s | all at once min / med s | caterpillar min / med s "
      "| util. all at once med (best) | util. caterpillar med (best) | speed-up | link 0 "
      "1-way / both / idle, all at once | caterpillar | pieces a rank | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    pieces = r["caterpillar_pieces_max"]
    print("| %s | %g | %s | %dx%d | %s | %s / %s | %s / %s | %s (%s) %% | %s (%s) %% | %sx | %s %% | %s %% | %s | %s |" % (
        r["topology"], r["link_rate_bits"] / 1e9, r["case"].split()[0], r["M"], r["N"],
        f(r["link_bound_seconds"], "%.3f"), f(r["all_at_once_min"], "%.3f"),
        f(r["all_at_once_median"], "%.3f"), f(r["caterpillar_min"], "%.3f"),
        f(r["caterpillar_median"], "%.3f"), f(r["utilisation_all_at_once_pct"], "%.0f"),
        f(r["utilisation_all_at_once_best_pct"], "%.0f"), f(r["utilisation_caterpillar_pct"], "%.0f"),
        f(r["utilisation_caterpillar_best_pct"], "%.0f"), f(r["speedup_median"], "%.2f"),
        shares(r, "all_at_once"), shares(r, "caterpillar"),
        "-" if pieces is None else "%d (%s)" % (pieces, "on" if pieces <= 1024 else "off"),
        "/".join("%.1f" % x for x in r["loadavg_1min"])))
print("cluster_schedules.py: %d jobs, %d rows -> %s; load (1 min) %s; mismatches %d" % (
    len(jobs), len(rows), out, "%.1f-%.1f" % (min(loads), max(loads)) if loads else "-",
    sum(r["mismatches"] for r in rows)))

if plots and rows:
    os.makedirs(plots, exist_ok=True)
    topos = [t for t in ("2x1", "2x2", "3x1") if any(r["topology"] == t for r in rows)]
    with tempfile.TemporaryDirectory() as tmp:
        for t in topos:
            with open(os.path.join(tmp, "%s.dat" % t), "w") as fd:
                fd.write("# label util_all_at_once util_caterpillar\n")
                for r in (r for r in rows if r["topology"] == t):
                    fd.write('"%s %g" %s %s\n' % (
                        r["case"].split()[0], r["link_rate_bits"] / 1e9,
                        f(r["utilisation_all_at_once_pct"], "%g").replace("-", "NaN"),
                        f(r["utilisation_caterpillar_pct"], "%g").replace("-", "NaN")))
        gp = os.path.join(tmp, "s.gp")
        with open(gp, "w") as fd:
            fd.write(
                "set terminal pngcairo size %d,420 font ',9'\n" % (500 * len(topos)) +
                "set output '%s/cluster_schedules.png'\n" % plots +
                "set termoption noenhanced\n"
                "set multiplot layout 1,%d title 'redist between simulated nodes: all at once vs "
                "the caterpillar (median utilisation of the link bound); load (1 min) %s'\n" % (
                    len(topos), "%.1f-%.1f" % (min(loads), max(loads)) if loads else "") +
                "set style data histogram\nset style histogram cluster gap 1\n"
                "set style fill solid 0.8 border -1\nset grid ytics\nset yrange [0:120]\n"
                "set xtics rotate by -45 font ',8'\nset key below font ',8'\n"
                "set ylabel 'link bound / median time (%)'\n")
            for t in topos:
                fd.write("set title '%s (nodes x ranks per node); x: case, link Gbit/s'\n" % t)
                fd.write("plot '%s/%s.dat' using 2:xtic(1) title 'all at once', '' using 3 title "
                         "'caterpillar'\n" % (tmp, t))
            fd.write("unset multiplot\n")
        subprocess.run(["gnuplot", gp], check=True)
    print("cluster_schedules.py: %s/cluster_schedules.png" % plots)
