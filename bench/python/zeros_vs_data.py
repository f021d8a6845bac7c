"""The same move timed on zeros and on data, in one process (run under mpiexec): the source and
target arrays of one case filled with zeros, then with distinct values, alternating for
--rounds rounds of --repeat moves each, each move timed as redist-run times it (barrier, move,
the slowest rank). Rank 0 prints and writes the medians. Why: until 2026-11-29 redist-run timed
unverified moves on its zero-initialised matrices, and on this project's VMs zeros moved over
zeros ran faster than data (bench/README.md, "What redist-run moves")."""

import argparse
import json

import numpy as np
from mpi4py import MPI

import redist
from move import fill, timed_moves


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--json", required=True)
    o = ap.parse_args()
    comm = MPI.COMM_WORLD
    src, dst = redist.Layout(o.src, comm), redist.Layout(o.dst, comm)
    a, b = src.empty(), dst.empty()
    r = redist.Redistributor(src, dst, comm)
    rounds = {"zeros": [], "data": []}
    for k in range(o.rounds):
        for what in (["zeros", "data"] if k % 2 == 0 else ["data", "zeros"]):
            if what == "zeros":
                a[...] = 0
                b[...] = 0
            else:
                fill(a, 0.0)
                fill(b, -1.0)
            r.redistribute(a, b)  # the first move after a fill, untimed
            rounds[what].append(float(np.median(timed_moves(comm, r, a, b, o.repeat))))
    r.close()
    if comm.rank == 0:
        out = {"src": o.src, "dst": o.dst, "ranks": comm.size, "repeat": o.repeat,
               "rounds_s": rounds,
               "zeros_s": float(np.median(rounds["zeros"])),
               "data_s": float(np.median(rounds["data"]))}
        out["data_over_zeros"] = out["data_s"] / out["zeros_s"]
        print(f"{o.src} -> {o.dst}: zeros {out['zeros_s']:.4f} s, data {out['data_s']:.4f} s, "
              f"ratio {out['data_over_zeros']:.3f}")
        with open(o.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
