#!/usr/bin/env python3
"""timeline.py DIR [--all]: the runs of a program traced by the timeline tool
(kokkos_mpi_timeline.cpp), one line per rank and run: times in microseconds from the
run's first barrier on any rank. A run is what lies between two MPI_Ibarrier calls (the
benches' timed repeats start with one); runs without kernels are left out unless --all.

  K[b-e]  a kernel from b to e (its run time when the tool fences, the default)
  S<tag>@t, R<tag>@t  a send or receive posted; C@t  a request completed (MPI_Testsome)
"""
import glob, os, sys

directory = sys.argv[1]
show_all = "--all" in sys.argv
ranks = {}
for path in glob.glob(os.path.join(directory, "timeline.*.txt")):
    rank = int(path.rsplit(".", 2)[1])
    ranks[rank] = [line.split(None, 2) for line in open(path)]


def runs(events):
    out, current = [], None
    for e in events:
        if e[1] == "B":
            current = [e]
            out.append(current)
        elif current is not None:
            current.append(e)
    return out


per_rank = {r: runs(ev) for r, ev in ranks.items()}
count = min(len(v) for v in per_rank.values())
for i in range(count):
    t0 = min(float(per_rank[r][i][0][0]) for r in per_rank)
    lines, kernels = [], False
    for r in sorted(per_rank):
        parts, begun = [], None
        for t, kind, *rest in per_rank[r][i]:
            us = (float(t) - t0) * 1e6
            fields = rest[0].split() if rest else []
            if kind == "K":
                begun, kernels = us, True
            elif kind == "k" and begun is not None:
                parts.append(f"K[{begun:.0f}-{us:.0f}]")
                begun = None
            elif kind in "SR":
                parts.append(f"{kind}{fields[1]}@{us:.0f}")
            elif kind == "C":
                parts.append(f"C@{us:.0f}")
        lines.append(f"  rank {r}: " + " ".join(parts))
    if kernels or show_all:
        print(f"run {i}")
        print("\n".join(lines))
