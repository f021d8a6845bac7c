#!/usr/bin/env python3
"""cluster_schedules.py OUT.json IN.json... [--plots DIR]: the schedules between nodes (all
at once, the caterpillar, the shift; engine/node_schedule.hpp) side by side. Pools the jobs
of bench/cluster_schedules.sh (redist-run, one schedule a job) and of `redist-bench --suite
cluster` (bench/suites_cluster.cpp: two schedules a job) per (topology, link rate, case):
min and median over every timed run; utilisation = link bound / time; speed-up = all at
once median / shift median. Writes OUT.json (rows, and every job whole), prints the table of bench/README.md's
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
    elif d.get("cluster") or "inter_node_schedule" in d or "tcp_anchor" in d:
        d["file"] = os.path.basename(p)
        d.pop("cluster_relabel", None)  # the relabeling table: bench/results/cluster.json
        jobs.append(d)


def rate_bits(text):
    """tc's units: 1gbit, 2.5gbit, 100mbit."""
    for unit, scale in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    return float(text)


SCHEDULES = ("all_at_once", "caterpillar", "shift")
LABEL = {"all_at_once": "all at once", "caterpillar": "caterpillar", "shift": "shift"}


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
    m, n = d["src"].split("/")[0].split("x")
    # The step orders' 60 KiB pieces a rank receives (used up to the cap in
    # engine/node_schedule.hpp: 1024 before the pool polled with MPI_Testsome, 16384 since).
    pieces = max(d["bytes"]["inter_node"]["recv"]) // (60 << 10)
    return {"suite": "cluster", "name": d["case"], "M": int(m), "N": int(n),
            "pieces_max": pieces,
            "link_bytes_max": busiest, "link_bound_seconds": busiest * 8 / bits,
            "variants": {d["inter_node_schedule"].replace("-", "_"): {
                "times": d["time_s"]["all"], "median": d["time_s"]["median"],
                "mismatches": d["mismatches"]}}}


def suite_case(c):
    """A case of the suite with its variants named by schedule. Since the shift became the
    default the suite times "redist_scalapack" (the default) and "redist_all_at_once";
    before, "redist_scalapack" (all at once) and "redist_caterpillar"."""
    v = c["variants"]
    named = ({"shift": v.get("redist_scalapack"), "all_at_once": v.get("redist_all_at_once")}
             if "redist_all_at_once" in v else
             {"all_at_once": v.get("redist_scalapack"), "caterpillar": v.get("redist_caterpillar")})
    c = dict(c)
    c["variants"] = {k: x for k, x in named.items() if x}
    return c


def topology_label(d):
    mtu = d.get("mtu", 1500)  # jobs on jumbo frames are rows of their own
    return d["topology"] + ("" if mtu == 1500 else " mtu %d" % mtu)


groups = {}
anchors = {}  # (topology, rate) -> plain TCP's Gbit/s per direction, every node of every job
for d in jobs:
    if "tcp_anchor" in d:
        anchors.setdefault((topology_label(d), rate_bits(d["link_rate"])), []).extend(
            r["gbit_per_s"] for r in d["tcp_anchor"])
        continue
    if "inter_node_schedule" in d:  # redist-run, one schedule a job: pooled by case
        c = redist_run_case(d)
        topo = topology_label(d)
        groups.setdefault((topo, rate_bits(d["link_rate"]), d["case"]), []).append((d, c, {}))
        continue
    topo = "%dx%d" % (d["cluster"]["nodes"], d["ranks"] // d["cluster"]["nodes"])
    extra = {c["name"]: c for c in d["cluster"]["cases"]}
    for c in d["cases"]:
        if c["suite"] == "cluster" and len(suite_case(c)["variants"]) > 1:
            groups.setdefault((topo, d["cluster"]["link_rate_bits"], c["name"]), []).append(
                (d, suite_case(c), extra.get(c["name"], {})))


def pooled(cases, variant):
    t = [x for c in cases for x in c["variants"].get(variant, {}).get("times", [])]
    return (min(t), statistics.median(t), len(t)) if t else (None, None, 0)


def load(x):
    """A job's 1-minute load: the suite writes all three, cluster_schedules.sh one."""
    return x[0] if isinstance(x, list) else x


def pct(bound, t):
    return 100 * bound / t if bound and t else None


order = {"2x1": 0, "2x2": 1, "3x1": 2, "2x1 mtu 9000": 3, "2x2 mtu 9000": 4, "3x1 mtu 9000": 5}
rows = []
for (topo, rate, name), g in sorted(groups.items(),
                                    key=lambda kv: (order.get(kv[0][0], 9), kv[0][1], kv[0][2])):
    cs = [c for _, c, _ in g]
    bound = cs[0].get("link_bound_seconds")
    row = {"topology": topo, "link_rate_bits": rate, "case": name, "M": cs[0]["M"],
           "N": cs[0]["N"], "jobs": len(cs),
           "loadavg_1min": [load(d["loadavg_start"]) for d, _, _ in g],
           "link_bytes_max": cs[0].get("link_bytes_max"), "link_bound_seconds": bound,
           "pieces_max": cs[0].get("pieces_max", cs[0].get("caterpillar_pieces_max")),
           "mismatches": sum(sum(v["mismatches"] for v in c["variants"].values()) for c in cs)}
    tcp = anchors.get((topo, rate))
    tcp_bits = statistics.median(tcp) * 1e9 if tcp else None
    # The same bytes at what plain TCP carried both ways over these links in the same run.
    tcp_bound = cs[0]["link_bytes_max"] * 8 / tcp_bits if tcp_bits else None
    row.update({"tcp_anchor_gbit_median": tcp_bits / 1e9 if tcp_bits else None,
                "tcp_anchor_gbit_range": [min(tcp), max(tcp)] if tcp else None,
                "tcp_bound_seconds": tcp_bound})
    for v in SCHEDULES:
        t_min, t_med, n = pooled(cs, v)
        row["utilisation_vs_tcp_%s_pct" % v] = pct(tcp_bound, t_med)
        row.update({"runs_" + v: n, v + "_min": t_min, v + "_median": t_med,
                    "utilisation_%s_pct" % v: pct(bound, t_med),
                    "utilisation_%s_best_pct" % v: pct(bound, t_min),
                    "job_medians_" + v: [c["variants"][v]["median"]
                                         for c in cs if v in c["variants"]]})
    a, s_ = row["all_at_once_median"], row["shift_median"]
    row["shift_speedup_median"] = a / s_ if a and s_ else None
    rows.append(row)

loads = [load(x) for d in jobs if "loadavg_start" in d for x in (d["loadavg_start"], d["loadavg_end"])]
text = json.dumps({"benchmark": "redist-bench", "suite": "cluster-schedules",
                   "loadavg_1min_range": [min(loads), max(loads)] if loads else None,
                   "mismatches": sum(r["mismatches"] for r in rows), "rows": rows,
                   "jobs": "JOBS"}, indent=1)
with open(out, "w") as fd:
    fd.write(text.replace('"JOBS"', "[\n" + ",\n".join(json.dumps(d) for d in jobs) + "\n]") +
             "\n")


def f(x, fmt):
    return "-" if x is None else fmt % x


print("| nodes | Gbit/s | case | M x N | bound s | " +
      " | ".join("%s min / med s" % LABEL[v] for v in SCHEDULES) + " | " +
      " | ".join("util. %s med (best)" % LABEL[v] for v in SCHEDULES) +
      " | shift / all at once | plain TCP Gbit/s | shift / TCP bound | pieces a rank | load |")
print("|---" * (10 + 2 * len(SCHEDULES)) + "|")
for r in rows:
    pieces = r["pieces_max"]
    print("| %s | %g | %s | %dx%d | %s | " % (
        r["topology"], r["link_rate_bits"] / 1e9, r["case"].split()[0], r["M"], r["N"],
        f(r["link_bound_seconds"], "%.3f")) +
        " | ".join("%s / %s" % (f(r[v + "_min"], "%.3f"), f(r[v + "_median"], "%.3f"))
                   for v in SCHEDULES) + " | " +
        " | ".join("%s (%s) %%" % (f(r["utilisation_%s_pct" % v], "%.0f"),
                                  f(r["utilisation_%s_best_pct" % v], "%.0f")) for v in SCHEDULES) +
        " | %sx | %s | %s %% | %s | %s |" % (
            f(r["shift_speedup_median"], "%.2f"), f(r["tcp_anchor_gbit_median"], "%.3f"),
            f(r["utilisation_vs_tcp_shift_pct"], "%.0f"), "-" if pieces is None else "%d" % pieces,
            "/".join("%.1f" % x for x in r["loadavg_1min"])))
print("cluster_schedules.py: %d jobs, %d rows -> %s; load (1 min) %s; mismatches %d" % (
    len(jobs), len(rows), out, "%.1f-%.1f" % (min(loads), max(loads)) if loads else "-",
    sum(r["mismatches"] for r in rows)))

if plots and rows:
    os.makedirs(plots, exist_ok=True)
    topos = [t for t in order if any(r["topology"] == t for r in rows)]
    # Only the schedules that ran: gnuplot refuses a histogram column without a point.
    ran = [v for v in SCHEDULES if any(r["utilisation_%s_pct" % v] is not None for r in rows)]
    with tempfile.TemporaryDirectory() as tmp:
        for t in topos:
            with open(os.path.join(tmp, "%s.dat" % t), "w") as fd:
                fd.write("# label " + " ".join("util_" + v for v in ran) + "\n")
                for r in (r for r in rows if r["topology"] == t):
                    fd.write('"%s %g" %s\n' % (
                        r["case"].split()[0], r["link_rate_bits"] / 1e9,
                        " ".join(f(r["utilisation_%s_pct" % v], "%g").replace("-", "NaN")
                                 for v in ran)))
        gp = os.path.join(tmp, "s.gp")
        with open(gp, "w") as fd:
            fd.write(
                "set terminal pngcairo size %d,420 font ',9'\n" % (500 * len(topos)) +
                "set output '%s/cluster_schedules.png'\n" % plots +
                "set termoption noenhanced\n"
                "set multiplot layout 1,%d title 'redist between simulated nodes by schedule "
                "(median utilisation of the link bound); load (1 min) %s'\n" % (
                    len(topos), "%.1f-%.1f" % (min(loads), max(loads)) if loads else "") +
                "set style data histogram\nset style histogram cluster gap 1\n"
                "set style fill solid 0.8 border -1\nset grid ytics\nset yrange [0:120]\n"
                "set xtics rotate by -45 font ',8'\nset key below font ',8'\n"
                "set ylabel 'link bound / median time (%)'\n")
            for t in topos:
                fd.write("set title '%s (nodes x ranks per node); x: case, link Gbit/s'\n" % t)
                fd.write("plot " + ", ".join(
                    "'%s/%s.dat' using %d%s title '%s'" % (
                        tmp, t, k + 2, ":xtic(1)" if k == 0 else "", LABEL[v])
                    for k, v in enumerate(ran)) + "\n")
            fd.write("unset multiplot\n")
        subprocess.run(["gnuplot", gp], check=True)
    print("cluster_schedules.py: %s/cluster_schedules.png" % plots)
