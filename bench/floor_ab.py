#!/usr/bin/env python3
"""Moves of redist-run builds side by side against the single-copy floor, all in one run:
each round first measures memcpy with every rank copying (redist-calibrate), then runs
every case with every build in turn (the order turning from round to round), so that
builds and floor see the same load.

Single-copy floor of a move = max over ranks of (max(sent, received) + local bytes) /
memcpy bandwidth per rank: each element read once and written once, the work split
evenly between sender and receiver (bench/README.md, "The node window's rings").

Usage:
  bench/floor_ab.py --build main=/tmp/main/redist-run --build rings=build/apps/redist-run \
      --calibrate build/apps/redist-calibrate \
      --case a 8192x8192/256x256/bc:1x2/scalapack 8192x8192/100x100/bc:2x1/scalapack "" \
      --np 2 --rounds 3 --json bench/results/floor-ab.json

A case's fourth field holds more redist-run options ("--op t", "" for none). Every run
passes --verify; one that fails or exits non-zero stops the script. Environment variables
of the form NAME=VALUE given with --env go to every run, and a build's own before its
path: --build "no-rings=REDIST_RING_SLOTS=0 build/apps/redist-run".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def mpirun(np, argv, env):
    """mpirun of argv on np ranks (root and oversubscription allowed: this is a harness)."""
    flags = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    if np > (os.cpu_count() or 1):
        flags.append("--oversubscribe")
    for k in env:
        flags += ["-x", k]
    cmd = ["mpirun"] + flags + ["-np", str(np)] + argv
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, **env})
    if done.returncode != 0:
        sys.exit(f"floor_ab.py: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")


def run_json(np, argv, env):
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.json")
        mpirun(np, argv + ["--json", out], env)
        with open(out) as f:
            return json.load(f)


def floor_seconds(report, memcpy_bytes_per_s):
    b = report["bytes"]
    work = max(max(s, r) + l for s, r, l in zip(b["sent"], b["recv"], b["local"]))
    return work / memcpy_bytes_per_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--calibrate", required=True, help="a redist-calibrate binary")
    ap.add_argument("--case", action="append", nargs=4, required=True,
                    metavar=("NAME", "SRC", "DST", "OPTIONS"))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.build]
    env = dict(e.split("=", 1) for e in a.env)
    build_env = {name: dict(w.split("=", 1) for w in spec.split()[:-1]) for name, spec in builds}
    builds = [(name, spec.split()[-1]) for name, spec in builds]
    rows, memcpy = [], []
    for rnd in range(a.rounds):
        m = run_json(a.np, [a.calibrate, "--repeat", "3"], env)["memcpy_bytes_per_s"]
        memcpy.append(m)
        for name, src, dst, extra in a.case:
            # The builds' order turns every round: in a fixed order, case b's second build was
            # faster in 5 of 6 rounds whichever it was (bench/README.md, "One sweep per column").
            for build, path in builds[rnd % len(builds):] + builds[:rnd % len(builds)]:
                r = run_json(a.np, [path, "--src", src, "--dst", dst, "--repeat", str(a.repeat),
                                    "--verify"] + extra.split(), {**env, **build_env[build]})
                if not r["verified"]:
                    sys.exit(f"floor_ab.py: {build} {name} did not verify")
                rows.append({"round": rnd, "case": name, "build": build, "src": src, "dst": dst,
                             "options": extra, "median_s": r["time_s"]["median"],
                             "min_s": r["time_s"]["min"], "times_s": r["time_s"]["all"],
                             "floor_s": floor_seconds(r, m), "memcpy_bytes_per_s": m,
                             "buffer_bytes": max(r["buffer_bytes"]),
                             "loadavg": os.getloadavg()[0]})
                print(f"round {rnd} {name:<14} {build:<10} median {rows[-1]['median_s']:.4f} s"
                      f"  floor {rows[-1]['floor_s']:.4f} s", flush=True)
    print(f"\nmemcpy per rank, every rank copying: "
          f"{min(memcpy) / 1e9:.2f}-{max(memcpy) / 1e9:.2f} GB/s")
    print(f"{'case':<14} {'build':<10} {'median s':>9} {'% floor':>8} {'buffers MiB':>12}")
    for name, *_ in a.case:
        for build, _ in builds:
            mine = [r for r in rows if r["case"] == name and r["build"] == build]
            med = statistics.median(t for r in mine for t in r["times_s"])
            flo = statistics.median(r["floor_s"] for r in mine)
            print(f"{name:<14} {build:<10} {med:>9.4f} {100 * flo / med:>7.0f}% "
                  f"{mine[0]['buffer_bytes'] / 2**20:>12.1f}")
    with open(a.json, "w") as f:
        json.dump({"what": "redist-run moves, builds alternating, against the single-copy floor",
                   "np": a.np, "repeat": a.repeat, "env": env, "builds": dict(builds),
                   "build_env": build_env,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
