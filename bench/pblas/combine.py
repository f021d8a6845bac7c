#!/usr/bin/env python3
"""Pools the rounds of the PBLAS drop-in bench (bench/pblas/run.sh): each JSON is one run of
redist-dropin-pblas, PBLAS's own ("implementation": "scalapack") or libredist_scalapack's
under LD_PRELOAD. Per case and implementation: the median of every timed call of every
round, each round's median, and the first call's median over rounds; the speedup is
PBLAS's pooled median over redist's, and each round (PBLAS's run and redist's next to it,
under the same load) gives one more, whose range the table shows. Runs pair up in the order
given. The floor is the median over every run of the case's memcpy of A (every process
copying; runs from before it was measured have none), and each implementation's share of
it is floor / its median; for PDGEADD also the scaled-add floor (C := 0.5 C + 2 A on each
process's arrays: A and C read, C written), and the drop-in's share of it. Writes OUT.json
and prints a Markdown table.

usage: combine.py OUT.json RUN.json...
"""
import json
import statistics
import sys


def main(out_path, *run_paths):
    runs = []
    for path in run_paths:
        with open(path) as f:
            runs.append(json.load(f))
    ours = [r for r in runs if r["implementation"].startswith("redist")]
    theirs = [r for r in runs if not r["implementation"].startswith("redist")]
    if not ours or not theirs:
        sys.exit("combine.py: need runs of both implementations")

    def pooled(rs, name):
        cs = [c for r in rs for c in r["cases"] if c["name"] == name]
        return {
            "median_seconds": statistics.median(t for c in cs for t in c["times"]),
            "round_medians": [c["median_seconds"] for c in cs],
            "first_seconds": statistics.median(c["first_seconds"] for c in cs),
            "mismatches": sum(c["mismatches"] for c in cs),
        }

    rows = []
    for c in ours[0]["cases"]:
        p, q = pooled(theirs, c["name"]), pooled(ours, c["name"])
        rounds = [x / y for x, y in zip(p["round_medians"], q["round_medians"])]
        floors = [x["memcpy_seconds"] for r in runs for x in r["cases"]
                  if x["name"] == c["name"] and "memcpy_seconds" in x]
        floor = statistics.median(floors) if floors else None
        adds = [x["scaled_add_seconds"] for r in runs for x in r["cases"]
                if x["name"] == c["name"] and "scaled_add_seconds" in x]
        add = statistics.median(adds) if adds else None
        rows.append({"name": c["name"], "what": c["what"], "pblas": p, "redist": q,
                     "floor_seconds": floor, "scaled_add_floor_seconds": add,
                     "redist_of_scaled_add_floor": add / q["median_seconds"] if add else None,
                     "pblas_of_floor": floor / p["median_seconds"] if floor else None,
                     "redist_of_floor": floor / q["median_seconds"] if floor else None,
                     "speedup": p["median_seconds"] / q["median_seconds"],
                     "round_speedups": rounds,
                     "speedup_first_call": p["first_seconds"] / q["first_seconds"]})
    loads = [r[k] for r in runs for k in ("loadavg_start", "loadavg_end")]
    merged = {"suite": "dropin-pblas", "ranks": ours[0]["ranks"], "repeat": ours[0]["repeat"],
              "rounds": len(ours), "loadavg_min": min(loads), "loadavg_max": max(loads),
              "startup_seconds": {"pblas": [r["startup_seconds"] for r in theirs],
                                  "redist": [r["startup_seconds"] for r in ours]},
              "cases": rows, "runs": runs}
    with open(out_path, "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    print("| case | PBLAS median s | drop-in median s | speedup | per round | PBLAS first s | "
          "drop-in first s | floor s | drop-in of floor | scaled-add floor s | drop-in of it | "
          "check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def share(x):
        return "-" if x is None else "%.0f %%" % (100 * x)

    for r in rows:
        ok = r["pblas"]["mismatches"] + r["redist"]["mismatches"] == 0
        floor = "-" if r["floor_seconds"] is None else "%.4f" % r["floor_seconds"]
        add = r["scaled_add_floor_seconds"]
        print("| %s %s | %.4f | %.4f | %.1fx | %.1f-%.1fx | %.4f | %.4f | %s | %s | %s | %s | %s |" % (
            r["name"], r["what"], r["pblas"]["median_seconds"], r["redist"]["median_seconds"],
            r["speedup"], min(r["round_speedups"]), max(r["round_speedups"]),
            r["pblas"]["first_seconds"], r["redist"]["first_seconds"], floor,
            share(r["redist_of_floor"]), "-" if add is None else "%.4f" % add,
            share(r["redist_of_scaled_add_floor"]), "ok" if ok else "WRONG"))
    print("\n%d rounds of %d calls each; load %.2f-%.2f" % (
        len(ours), ours[0]["repeat"], min(loads), max(loads)))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
