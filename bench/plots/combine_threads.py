#!/usr/bin/env python3
"""combine_threads.py OUT.json IN.json...: merges runs of `redist-bench --suite threads`
(one per thread count / Kokkos build) into one file, with the speedup of 2 threads over 1
thread (time with 1 / time with 2) for each variant, where one execution space has both."""
import json, sys

out, inputs = sys.argv[1], sys.argv[2:]
runs = []
for p in inputs:
    d = json.load(open(p))
    t = d.get("threads", {})
    cases = [c for c in d.get("cases", []) if c["suite"] == "threads"]
    if not cases:
        continue
    c = cases[0]
    space, conc = t.get("execution_space", "?"), t.get("concurrency", 0)
    runs.append({
        "file": p, "label": "%s, %d thread%s" % (space, conc, "" if conc == 1 else "s"),
        "execution_space": space, "concurrency": conc,
        "omp_num_threads": t.get("omp_num_threads"), "omp_proc_bind": t.get("omp_proc_bind"),
        "b_memcpy_1thread": t.get("b_memcpy_1thread"), "b_copy_space": t.get("b_copy_space"),
        "loadavg_start": d.get("loadavg_start"), "loadavg_end": d.get("loadavg_end"),
        "repeat": d.get("repeat"), "quick": d.get("quick"), "case": c["name"],
        "local_bytes": c.get("local_bytes_max"), "mismatches": d.get("mismatches"),
        "medians": {k: v["median"] for k, v in c["variants"].items()},
        "best": {k: v["best"] for k, v in c["variants"].items()},
    })

speedup = None
by = {(r["execution_space"], r["concurrency"]): r for r in runs}
for space in sorted({r["execution_space"] for r in runs}):
    one, two = by.get((space, 1)), by.get((space, 2))
    if one and two:
        speedup = {"execution_space": space, "target": 1.4}
        for k, t1 in one["medians"].items():
            t2 = two["medians"].get(k)
            speedup[k] = t1 / t2 if t1 and t2 else None
        if one.get("b_copy_space") and two.get("b_copy_space"):
            speedup["copy_anchor"] = two["b_copy_space"] / one["b_copy_space"]
        break

json.dump({"benchmark": "redist-bench", "suite": "threads", "runs": runs,
           "speedup_2_over_1": speedup,
           "mismatches": sum(r["mismatches"] or 0 for r in runs)}, open(out, "w"), indent=1)
print("combine_threads: %d runs -> %s; 2 threads / 1 thread: %s" % (len(runs), out, speedup))
