#!/usr/bin/env python3
"""Merges the drop-in runs (dropin-ref.json: ScaLAPACK's pdgemr2d, dropin-redist.json:
libredist_scalapack) into one JSON with the speedups and prints a Markdown table.

usage: combine.py OUT.json REF.json REDIST.json
"""
import json
import sys


def main(out_path, ref_path, redist_path):
    with open(ref_path) as f:
        ref = json.load(f)
    with open(redist_path) as f:
        red = json.load(f)
    theirs = {c["name"]: c for c in ref["cases"]}
    rows = []
    for c in red["cases"]:
        r = theirs.get(c["name"])
        if r is None:
            continue
        rows.append({
            "name": c["name"],
            "what": c["what"],
            "pdgemr2d_median_seconds": r["median_seconds"],
            "pdgemr2d_first_seconds": r["first_seconds"],
            "redist_median_seconds": c["median_seconds"],
            "redist_first_seconds": c["first_seconds"],
            "speedup_median": r["median_seconds"] / c["median_seconds"],
            "speedup_first_call": r["first_seconds"] / c["first_seconds"],
            "mismatches": r["mismatches"] + c["mismatches"],
        })
    merged = {"suite": "dropin", "ranks": red["ranks"], "repeat": red["repeat"],
              "quick": red["quick"], "runs": {"scalapack": ref, "redist": red},
              "startup_seconds": {"scalapack": ref["startup_seconds"],
                                  "redist": red["startup_seconds"]},
              "cases": rows}
    with open(out_path, "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    print("| case | pdgemr2d median s | drop-in median s | speedup | drop-in first call s | check |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s %s | %.4f | %.4f | %.1fx | %.4f | %s |" % (
            r["name"], r["what"], r["pdgemr2d_median_seconds"], r["redist_median_seconds"],
            r["speedup_median"], r["redist_first_seconds"], "ok" if r["mismatches"] == 0 else "WRONG"))
    print("\nstart-up (first call of the process): pdgemr2d %.4f s, drop-in %.4f s; load %s -> %s"
          % (ref["startup_seconds"], red["startup_seconds"], red["loadavg_start"],
             red["loadavg_end"]))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
