"""Plan once, move many times: the plan is made at construction; moving the same arrays again
binds nothing, other arrays cost a binding (no plan); start/test/wait moves the same."""

import numpy as np

import redist
from conftest import agreed
from moves import fill, initial_value, source_value


def test_plan_once_move_many_times(comm):
    p = comm.size
    src = redist.Layout(f"64x48/8x8/bc:1x{p}/scalapack", comm)
    dst = redist.Layout(f"64x48/5x7/bc:{p}x1", comm)
    a = fill(src, np.float64, source_value, 48)
    b = fill(dst, np.float64, initial_value, 48)
    with redist.Redistributor(src, dst, comm, region="40x30@4,5->6,7", alpha=2.0) as r:
        planned = r.stats()["set_up"]
        assert r.stats()["bindings"] == 0
        for _ in range(100):
            r.redistribute(a, b)
        s = r.stats()
        assert s["bindings"] == 1  # the first call bound a and b; 99 moves bound nothing
        assert s["set_up"] == planned and s["bind"]["plan"] == 0
        want = b.copy()
        # Other arrays: one more binding, still no plan.
        b2 = fill(dst, np.float64, initial_value, 48)
        r.redistribute(a.copy(order="F"), b2)
        assert r.stats()["bindings"] == 2 and r.stats()["bind"]["plan"] == 0
        agreed(comm, np.array_equal(b2, want), "a move after a rebind")
        # Overlapped: start, test now and then, wait.
        b3 = fill(dst, np.float64, initial_value, 48)
        r.start(a, b3)
        while not r.test():
            pass
        r.wait()
        agreed(comm, np.array_equal(b3, want), "start/test/wait")
        assert r.stats()["bindings"] == 3


def test_stats_count_the_move(comm):
    p = comm.size
    src = redist.Layout(f"40x40/10x10/bc:1x{p}", comm)
    dst = redist.Layout(f"40x40/10x10/bc:{p}x1", comm)
    with redist.Redistributor(src, dst, comm) as r:
        s = r.stats()
    total = comm.allreduce(s["elements_received"] + s["elements_local"])
    assert total == 40 * 40
    assert comm.allreduce(s["elements_sent"]) == comm.allreduce(s["elements_received"])
    assert s["region"] == "40x40@0,0->0,0" and s["dtype"] == np.float64
    assert set(redist.option_names()) >= {"batch", "chunk_bytes", "transport"}
