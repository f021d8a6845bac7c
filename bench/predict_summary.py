#!/usr/bin/env python3
"""Predicted against measured over several passes of bench/predict_validate.sh (issue 45,
point 4): one row per case, ranks and transport; per pass predicted / measured median (each
pass a median of 5 runs after its own calibration), the median ratio over the passes, and
whether it lies within +-20 %.

    python3 bench/predict_summary.py DIR [DIR...]     # each DIR an OUT_DIR of the script
"""
import glob
import json
import os
import statistics
import sys


def rows(dirs):
    table = {}
    for k, d in enumerate(dirs):
        for f in glob.glob(os.path.join(d, "predict-*.json")):
            case, np, transport = os.path.basename(f)[len("predict-"):-len(".json")].split("-", 2)
            j = json.load(open(f))
            if j.get("predicted_s") is None:
                continue
            t = j["time_s"]["median"]
            table.setdefault((int(np), transport, case), {})[k] = (t, j["predicted_s"])
    return table


def main():
    dirs = sys.argv[1:]
    table = rows(dirs)
    print("| case | ranks | transport | " + " | ".join("pass %d: measured s, predicted / measured" % (k + 1)
                                                      for k in range(len(dirs)))
          + " | median ratio | within +-20 % |")
    print("|---" * (5 + len(dirs)) + "|")
    for (np, transport, case), passes in sorted(table.items()):
        ratios = [p / t for t, p in passes.values()]
        cells = ["%.4f, %.2f" % (passes[k][0], passes[k][1] / passes[k][0]) if k in passes else ""
                 for k in range(len(dirs))]
        r = statistics.median(ratios)
        print("| %s | %d | %s | %s | %.2f | %s |" % (case, np, transport, " | ".join(cells), r,
                                                    "yes" if 0.8 <= r <= 1.2 else "no"))


if __name__ == "__main__":
    main()
