"""A move on the rank's progress thread (progress="thread", docs/overlap.md): start() returns
at once, NumPy work runs while the thread moves, test() only asks, wait() ends it; every
element checked against the same move made by redistribute()."""

import numpy as np

import redist
from conftest import agreed
from moves import fill, initial_value, source_value


def test_progress_thread_moves_while_python_computes(comm):
    p = comm.size
    src = redist.Layout(f"300x260/32x24/bc:1x{p}/scalapack", comm)
    dst = redist.Layout(f"300x260/20x26/bc:{p}x1", comm)
    a = fill(src, np.complex128, source_value, 260)
    want = fill(dst, np.complex128, initial_value, 260)
    region = "200x150@10,20->30,40"
    with redist.Redistributor(src, dst, comm, region=region, op="t", alpha=2.0, beta=1.0,
                              dtype=np.complex128) as r:
        r.redistribute(a, want)
    with redist.Redistributor(src, dst, comm, region=region, op="t", alpha=2.0, beta=1.0,
                              dtype=np.complex128, progress="thread", chunk_bytes=4096) as r:
        for _ in range(3):  # one thread, kept between moves
            b = fill(dst, np.complex128, initial_value, 260)
            r.start(a, b)
            x = np.ones(1 << 12)
            while not r.test():
                x = np.sqrt(x * x + 1.0) - 0.5
            r.wait()
            agreed(comm, np.array_equal(b, want), "a move on the progress thread")
