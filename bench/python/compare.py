"""The Python call against redist-run on cases a-d at 2 ranks, side by side: every variant
measured in the same run, case by case, each going first in turn; medians over rounds of
each run's median of --repeat moves. Writes JSON and prints a Markdown table.

    python3 bench/python/compare.py --build build --rounds 5 --json bench/results/python.json

Variants: redist-run; Python as a program runs it (Layout.empty()'s arrays, NumPy's huge-page
advice on: the same kind of memory as redist-run's TiledMatrix, which advises huge pages too,
so the binding's own cost: the target); Python with NumPy's huge-page advice off (4 KiB pages);
Python on numpy.empty's arrays (16-byte aligned); Python with MPI serialized. Both programs
move data (redist-run fills its matrices, move.py its arrays): zeros move faster here.
Needs the build's apps/redist-run and python/redist."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# bench/README.md's standard cases a-d (bench/bench.hpp, standard_cases).
CASES = [
    ("a", "8192x8192/256x256/bc:1x2", "8192x8192/100x100/bc:2x1"),
    ("b", "8192x8192/64x64/bc:2x1", "8192x8192/64x64/bc:1x2"),
    ("c", "8192x8192/1024x1024/bc:2x1", "8192x8192/32x32/bc:2x1"),
    ("d", "4000x6000/128x96/bc:2x1", "4000x6000/100x70/bc:1x2"),
]
# Python variants: move.py's flags.
PYTHON = {
    "python": ["--alloc", "layout"],
    "python_4k_pages": ["--alloc", "layout", "--hugepages", "off"],
    "python_numpy_arrays": ["--alloc", "numpy"],
    # MPI at MPI_THREAD_SERIALIZED, as redist-run initializes it (mpi4py asks for
    # MPI_THREAD_MULTIPLE unless told otherwise).
    "python_serialized": ["--alloc", "layout", "--thread-level", "serialized"],
}
TITLES = {"python": "Python", "python_4k_pages": "Python, 4 KiB pages",
          "python_numpy_arrays": "Python, numpy.empty arrays",
          "python_serialized": "Python, MPI serialized"}


def mpiexec(ranks):
    launch = os.environ.get("MPIEXEC", "mpiexec").split()
    if os.geteuid() == 0:  # Open MPI refuses root without it (as scripts/bench.sh does)
        launch.append("--allow-run-as-root")
    return launch + ["-np", str(ranks)]


def run(o, variant, src, dst, path):
    """Runs one variant of one case; returns the times of its moves and its JSON."""
    if variant == "redist_run":
        cmd = [os.path.join(o.build, "apps", "redist-run")]
        env = os.environ
    else:
        cmd = [o.python, os.path.join(HERE, "move.py")] + PYTHON[variant]
        env = dict(os.environ, PYTHONPATH=os.path.join(o.build, "python"))
    subprocess.run(mpiexec(o.ranks) + cmd + ["--src", src, "--dst", dst, "--repeat",
                   str(o.repeat), "--json", path], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    with open(path) as f:
        report = json.load(f)
    return (report["time_s"]["all"] if variant == "redist_run" else report["times_s"]), report


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--storage", default="scalapack,tile",
                    help="comma-separated storage kinds to run (scalapack, tile)")
    ap.add_argument("--cases", default="abcd")
    ap.add_argument("--variants", default=",".join(PYTHON),
                    help="comma-separated Python variants beside redist-run: " + ", ".join(PYTHON))
    ap.add_argument("--json", required=True)
    o = ap.parse_args()
    python = [v for v in o.variants.split(",") if v]
    for v in python:
        if v not in PYTHON:
            ap.error(f"--variants: unknown variant '{v}' (one of {', '.join(PYTHON)})")
    if "python" not in python:
        ap.error("--variants: 'python' (the binding on redist-run's kind of memory) is needed")
    VARIANTS = ["redist_run"] + python
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        for storage in o.storage.split(","):
            for name, src, dst in (c for c in CASES if c[0] in o.cases):
                src_s, dst_s = f"{src}/{storage}", f"{dst}/{storage}"
                rounds = {v: [] for v in VARIANTS}
                python_runs = []
                for k in range(o.rounds):
                    for v in VARIANTS[k % len(VARIANTS):] + VARIANTS[:k % len(VARIANTS)]:
                        times, report = run(o, v, src_s, dst_s, out)
                        rounds[v].append(statistics.median(times))
                        if v == "python":
                            python_runs.append(report)
                row = {"case": name, "storage": storage, "src": src_s, "dst": dst_s,
                       "ranks": o.ranks}
                for v in VARIANTS:
                    row[f"{v}_s"] = statistics.median(rounds[v])
                    row[f"{v}_rounds_s"] = rounds[v]
                    if v != "redist_run":
                        row[f"{v}_ratio"] = row[f"{v}_s"] / row["redist_run_s"]
                row["python_bindings"] = [r["bindings"] for r in python_runs]
                row["python_construct_s"] = statistics.median(r["construct_s"] for r in python_runs)
                row["python_first_call_s"] = statistics.median(
                    r["first_call_s"] for r in python_runs)
                rows.append(row)
                print(f"{name} {storage}: " + ", ".join(
                    f"{v} {row[f'{v}_s']:.4f} s" for v in VARIANTS), flush=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    with open(o.json, "w") as f:
        json.dump({"rounds": o.rounds, "repeat": o.repeat, "ranks": o.ranks, "load_end": load,
                   "cases": rows}, f, indent=1)
    print("\n| case | storage | redist-run s | " +
          " | ".join(f"{TITLES[v]} s (ratio)" for v in python) + " | Python set-up s | first call s |")
    print("|---|---|---|" + "---|" * (len(python) + 2))
    for r in rows:
        cells = [f"{r[f'{v}_s']:.4f} ({r[f'{v}_ratio']:.3f})" for v in python]
        print(f"| {r['case']} | {r['storage']} | {r['redist_run_s']:.4f} | " + " | ".join(cells) +
              f" | {r['python_construct_s']:.4f} | {r['python_first_call_s']:.4f} |")


if __name__ == "__main__":
    main()
