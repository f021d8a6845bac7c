"""Errors: a bad layout names the piece and the whole text; every collective error is raised on
every rank alike (redist.Error, a ValueError), before anything moves, and never hangs."""

import numpy as np
import pytest

import redist
from conftest import agreed
from moves import PADDING, arrays_of


def raised_everywhere(comm, call, *needles):
    """Runs call on every rank; asserts every rank raised redist.Error containing the needles,
    with the same message."""
    try:
        call()
        message = None
    except redist.Error as e:
        message = str(e)
    messages = comm.allgather(message)
    assert all(m is not None for m in messages), f"not raised on every rank: {messages}"
    assert len(set(messages)) == 1, f"different errors: {messages}"
    for n in needles:
        assert n in messages[0], messages[0]
    return messages[0]


@pytest.mark.parametrize("text, piece", [
    ("100x80/16x16/bcc:1x2", "'bcc'"),
    ("100x80/16x0/bc:1x2", "'0'"),
    ("100x80/16x16/bc:1x2/fortran", "'fortran'"),
    ("100x80/16x16/random:1/scalapack", "'random:1'"),
    ("100x80/16x16", "'100x80/16x16'"),
    ("100x80/16x16/hetero:1x2:1", "'1'"),
])
def test_bad_layout_names_piece_and_text(text, piece):
    with pytest.raises(redist.Error) as e:
        redist.Layout(text)
    assert isinstance(e.value, ValueError)
    assert piece in str(e.value) and text in str(e.value), str(e.value)


def test_layout_needs_ranks_and_random_needs_comm(comm):
    with pytest.raises(redist.Error, match="needs 8 ranks but the communicator has"):
        redist.Layout("10x10/2x2/bc:2x4", comm.size if comm.size < 8 else 4)
    with pytest.raises(redist.Error, match="random owners"):
        redist.Layout("10x10/2x2/random:5").local_shape(0)
    with pytest.raises(redist.Error, match="which rank"):
        redist.Layout("10x10/2x2/bc:1x1").local_shape()
    with pytest.raises(redist.Error, match="synth"):
        redist.Layout("10x10/2x2/synth:25")


def test_region_and_transform_errors_on_every_rank(comm):
    src = redist.Layout("20x10/4x4/bc:1x1", comm)
    dst = redist.Layout("15x15/4x4/bc:1x1", comm)
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, region="16x10"),
                      "region")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, region="4x4@1,2->x,0"),
                      "'x'")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, op="q"), "op")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, alpha=1j), "alpha")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, dtype=np.int32,
                                                          alpha=0.5), "alpha")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, dtype=np.uint8),
                      "uint8")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, batchh=1),
                      "unknown option 'batchh'")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, chunk_bytes=0),
                      "chunk")
    raised_everywhere(comm, lambda: redist.Redistributor(src, dst, comm, transport="pigeon"),
                      "transport")


def test_input_on_one_rank_only(comm):
    # Only the last rank errs: every rank raises that rank's error, none is left waiting.
    last = comm.rank == comm.size - 1
    src = redist.Layout("20x10/4x4/bc:1x1", comm)
    dst = redist.Layout("15x15/4x4/bc:1x1", comm)
    raised_everywhere(comm, lambda: redist.Redistributor(
        src, dst, comm, region="16x10" if last else "10x10"), "region")
    if comm.size == 1:
        return  # no other rank to differ from
    raised_everywhere(comm, lambda: redist.Redistributor(
        src, dst, comm, op="t" if last else "n"), "differ")
    raised_everywhere(comm, lambda: redist.Redistributor(
        src, dst, comm, dtype=np.int64 if last else np.float64), "element type")
    other = redist.Layout("20x10/5x4/bc:1x1", comm)
    raised_everywhere(comm, lambda: redist.Redistributor(other if last else src, dst, comm),
                      "differ")


def test_bad_arrays_before_anything_moves(comm):
    p = comm.size
    src = redist.Layout(f"30x20/4x4/bc:1x{p}/scalapack", comm)
    dst = redist.Layout(f"30x20/3x5/bc:{p}x1", comm)
    last = comm.rank == comm.size - 1
    with redist.Redistributor(src, dst, comm) as r:
        a, b = src.empty(), dst.empty()
        a[...] = 1
        b[...] = PADDING

        def untouched():
            agreed(comm, np.all(b == PADDING), "b written by a refused call")

        cases = [
            (src.empty(dtype=np.float32), b, "dtype float64"),
            (a, np.empty(b.size + 1), "shape"),
            (np.ascontiguousarray(a), b, "Fortran"),  # every rank's a is 30 x >= 5
            (a, np.empty(2 * b.size)[::2], "strided"),
            (a, [b, b], "arrays"),
            ([a], b, "numpy.ndarray"),
        ]
        for bad_a, bad_b, needle in cases:
            # Every rank refuses: the same message everywhere.
            raised_everywhere(comm, lambda: r.redistribute(bad_a, bad_b), needle)
            untouched()
        ro = b.view()
        ro.flags.writeable = False
        raised_everywhere(comm, lambda: r.redistribute(a, ro), "read-only")
        untouched()
        # One rank's arrays wrong: every rank raises its message.
        raised_everywhere(comm, lambda: r.redistribute(a, b.astype(np.float32) if last else b),
                          "dtype")
        untouched()
        r.redistribute(a, b)  # still usable after the refusals
        agreed(comm, np.all(b == 1), "the move after the refusals")


def test_overlapping_arrays_refused_everywhere(comm):
    lay = redist.Layout(f"16x16/4x4/bc:1x{comm.size}", comm)
    with redist.Redistributor(lay, lay, comm) as r:
        x = lay.empty()
        raised_everywhere(comm, lambda: r.redistribute(x, x), "overlap")


def test_start_wait_protocol(comm):
    lay = redist.Layout(f"16x16/4x4/bc:1x{comm.size}", comm)
    with redist.Redistributor(lay, lay, comm) as r:
        a, b = lay.empty(), lay.empty()
        raised_everywhere(comm, r.wait, "without start")
        r.start(a, b)
        raised_everywhere(comm, lambda: r.redistribute(a, b), "wait() first")
        r.wait()
    raised_everywhere(comm, lambda: r.redistribute(a, b), "closed")
