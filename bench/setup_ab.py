#!/usr/bin/env python3
"""Set-up and move of redist-run builds side by side: each case runs with every build in
turn, round after round, so that all builds see the same load. Per run: the set-up
("plan_time_s": the Redistributor's construction; with "set_up_s", from builds that report
it, its planning and the wiring's buffers apart), the copy programs' size
("schedule_bytes", max over ranks), the moves and the verification, and the largest
peak RSS of any rank (GNU time around every rank: matrices, MPI and plan together).

Usage:
  bench/setup_ab.py --build before=/tmp/redist-run-old --build after=build/apps/redist-run \
      --case '1x1 tile' '{n}x{n}/1x1/bc:1x2' '{n}x{n}/1x1/bc:2x1' \
      --sizes 1024 2048 --np 2 --rounds 2 --json bench/results/setup-tiles.json

Every run passes --verify; a run that fails to verify or exits non-zero stops the script.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run_one(binary, np, src, dst, repeat, extra):
    """One mpirun of `binary`; returns redist-run's JSON report and the ranks' peak RSS."""
    with tempfile.TemporaryDirectory() as work:
        report = os.path.join(work, "report.json")
        # Each rank under GNU time: its own peak RSS (kB) in its own file.
        wrapper = os.path.join(work, "rank.sh")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec /usr/bin/time -f %M -o "' + work +
                    '/rss.$OMPI_COMM_WORLD_RANK" "$@"\n')
        os.chmod(wrapper, 0o755)
        flags = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        if np > (os.cpu_count() or 1):
            flags.append("--oversubscribe")
        cmd = (["mpirun"] + flags + ["-np", str(np), wrapper, binary, "--src", src, "--dst", dst,
                                     "--repeat", str(repeat), "--verify", "--json", report] +
               extra)
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"setup_ab.py: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
        with open(report) as f:
            r = json.load(f)
        rss = []
        for k in range(np):
            with open(os.path.join(work, f"rss.{k}")) as f:
                rss.append(int(f.read().split()[-1]) * 1024)
        return r, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--case", action="append", nargs=3, required=True,
                    metavar=("NAME", "SRC", "DST"), help="layouts with {n} for the size")
    ap.add_argument("--sizes", nargs="+", type=int, required=True)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", required=True)
    ap.add_argument("--extra", default="", help="more redist-run options, one string")
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.build]
    rows = []
    print(f"{'case':<22} {'n':>6} {'build':<12} {'set-up s':>9} {'plan s':>8} {'buffers s':>9} "
          f"{'sched MB':>9} {'move s':>9} {'peak MB':>8}")
    for rnd in range(a.rounds):
        for name, src, dst in a.case:
            for n in a.sizes:
                for build, path in builds:
                    s, d = src.format(n=n), dst.format(n=n)
                    r, rss = run_one(path, a.np, s, d, a.repeat, a.extra.split())
                    row = {"round": rnd, "case": name, "n": n, "build": build, "src": s,
                           "dst": d, "plan_time_s": r["plan_time_s"],
                           "set_up_s": r.get("set_up_s"),
                           "schedule_bytes": max(r["schedule_bytes"]),
                           "buffer_bytes": max(r["buffer_bytes"]),
                           "times_s": r["time_s"]["all"], "median_s": r["time_s"]["median"],
                           "peak_rss_bytes": max(rss), "verified": r["verified"],
                           "mismatches": r["mismatches"],
                           "loadavg": os.getloadavg()[0]}
                    rows.append(row)
                    parts = row["set_up_s"] or {}
                    print(f"{name:<22} {n:>6} {build:<12} {row['plan_time_s']:>9.4f} "
                          f"{parts.get('plan', float('nan')):>8.4f} "
                          f"{parts.get('buffers', float('nan')):>9.4f} "
                          f"{row['schedule_bytes'] / 1e6:>9.2f} {row['median_s']:>9.4f} "
                          f"{row['peak_rss_bytes'] / 1e6:>8.1f}", flush=True)
    with open(a.json, "w") as f:
        json.dump({"what": "redist-run set-up and moves, builds alternating; --verify",
                   "np": a.np, "repeat": a.repeat, "builds": dict(builds), "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
