"""The GIL is released while data moves: a Python thread runs during redistribute().

A thread stamps the time whenever it gets the GIL, every 0.1 ms at most. If a move held the
GIL, no stamp could fall inside the call but for the switch interval at either end, which the
test sets to 1 ms and leaves out of the window it counts."""

import sys
import threading
import time

import numpy as np

import redist
from conftest import agreed

MARGIN_S = 0.002  # twice the switch interval set below
LONG_ENOUGH_S = 0.01  # a move shorter than this cannot tell


def test_gil_released_while_data_moves(comm):
    p = comm.size
    n = 6144  # 288 MiB of doubles: a move of tens of milliseconds on one rank
    src = redist.Layout(f"{n}x{n}/256x256/bc:1x{p}/scalapack", comm)
    dst = redist.Layout(f"{n}x{n}/100x100/bc:{p}x1/scalapack", comm)
    a = src.empty()
    a[...] = 1.0
    b = dst.empty()
    stamps = []
    stop = threading.Event()

    def spin():
        # A stamp every 0.1 ms at most: enough to see Python run inside a move of 10 ms or
        # more, without a list of tens of millions of stamps or a thread that takes a core
        # from the oversubscribed ranks (42 s of the suite's 46 at 4 ranks on 2 cores).
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0001)

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    inside, judged, longest = 0, 0, 0.0
    try:
        with redist.Redistributor(src, dst, comm) as r:
            r.redistribute(a, b)  # binds the arrays: the calls below only move
            spinner = threading.Thread(target=spin)
            spinner.start()
            try:
                for _ in range(5):
                    t0 = time.perf_counter()
                    r.redistribute(a, b)
                    t1 = time.perf_counter()
                    longest = max(longest, t1 - t0)
                    if t1 - t0 < LONG_ENOUGH_S:
                        continue
                    judged += 1
                    inside += sum(1 for s in list(stamps) if t0 + MARGIN_S < s < t1 - MARGIN_S)
            finally:
                stop.set()
                spinner.join()
    finally:
        sys.setswitchinterval(old)
    agreed(comm, judged > 0, f"every move took under {LONG_ENOUGH_S} s (longest {longest:.4f} s)")
    agreed(comm, inside > 0, f"no Python ran inside {judged} moves of up to {longest:.4f} s")
    agreed(comm, bool(np.all(b == 1.0)), "the target after the moves")
