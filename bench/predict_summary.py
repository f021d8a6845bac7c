#!/usr/bin/env python3
"""Predicted against measured over several passes of bench/predict_validate.sh (issue 45,
point 4): one row per case, ranks and transport; per pass the measured median (5 runs after
the case's own calibration), predicted / measured, and, where the pass calibrated again after
the case (OUT_DIR/after/), how far the memcpy rate moved meanwhile (after / before); then the
median ratio over the passes, the same over the passes where the machine held still (memcpy
within 15 % after as before), and whether the median lies within +-20 %.

    python3 bench/predict_summary.py DIR [DIR...]     # each DIR an OUT_DIR of the script
"""
import glob
import json
import os
import statistics
import sys

HELD = 0.15


def drift(d, np, case):
    """after / before memcpy rate of a case's calibrations, or None without an after."""
    after = os.path.join(d, "after", "machine-%d-%s.json" % (np, case))
    before = os.path.join(d, "machine-%d-%s.json" % (np, case))
    if not (os.path.exists(after) and os.path.exists(before)):
        return None
    return (json.load(open(after))["memcpy_bytes_per_s"] /
            json.load(open(before))["memcpy_bytes_per_s"])


def rows(dirs):
    table = {}
    for k, d in enumerate(dirs):
        for f in glob.glob(os.path.join(d, "predict-*.json")):
            case, np, transport = os.path.basename(f)[len("predict-"):-len(".json")].split("-", 2)
            j = json.load(open(f))
            if j.get("predicted_s") is None:
                continue
            table.setdefault((int(np), transport, case), {})[k] = (
                j["time_s"]["median"], j["predicted_s"], drift(d, int(np), case))
    return table


def main():
    dirs = sys.argv[1:]
    table = rows(dirs)
    print("| case | ranks | transport | "
          + " | ".join("pass %d: measured s, predicted / measured (memcpy after / before)" % (k + 1)
                       for k in range(len(dirs)))
          + " | median ratio | median where the machine held | within +-20 % |")
    print("|---" * (6 + len(dirs)) + "|")
    for (np, transport, case), passes in sorted(table.items()):
        cells, ratios, held = [], [], []
        for k in range(len(dirs)):
            if k not in passes:
                cells.append("")
                continue
            t, p, moved = passes[k]
            ratios.append(p / t)
            if moved is not None and abs(moved - 1) <= HELD:
                held.append(p / t)
            cells.append("%.4f, %.2f%s" % (t, p / t, "" if moved is None else " (%.2f)" % moved))
        r = statistics.median(ratios)
        h = "%.2f (%d)" % (statistics.median(held), len(held)) if held else ""
        print("| %s | %d | %s | %s | %.2f | %s | %s |" % (case, np, transport, " | ".join(cells), r,
                                                         h, "yes" if 0.8 <= r <= 1.2 else "no"))


if __name__ == "__main__":
    main()
