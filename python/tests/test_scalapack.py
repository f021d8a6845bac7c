"""ScaLAPACK interop: layouts from descriptors on BLACS grids (any first process, row- or
column-major grids), checked against ScaLAPACK's own index formulas (NUMROC, INDXL2G) written
out here, and the descriptor of a ScaLAPACK-stored layout."""

import numpy as np
import pytest

import redist
from test_moves import move_and_check


def numroc(n, nb, iproc, isrc, nprocs):
    """ScaLAPACK's NUMROC, as its reference code computes it."""
    mydist = (nprocs + iproc - isrc) % nprocs
    nblocks = n // nb
    num = (nblocks // nprocs) * nb
    extra = nblocks % nprocs
    if mydist < extra:
        num += nb
    elif mydist == extra:
        num += n % nb
    return num


def indxl2g(l, nb, iproc, isrc, nprocs):
    """ScaLAPACK's INDXL2G, 0-based: the global index of local index l on process iproc."""
    return nprocs * nb * (l // nb) + l % nb + ((nprocs + iproc - isrc) % nprocs) * nb


def grids(size):
    return [(p, size // p) for p in range(1, size + 1) if size % p == 0]


@pytest.mark.parametrize("order", ["R", "C"])
def test_descriptor_layout_matches_scalapack(comm, order):
    rng = np.random.default_rng(7 + comm.size)
    for nprow, npcol in grids(comm.size):
        for _ in range(4):
            m, n = (int(v) for v in rng.integers(1, 40, size=2))
            mb, nb = (int(v) for v in rng.integers(1, 9, size=2))
            rsrc, csrc = int(rng.integers(0, nprow)), int(rng.integers(0, npcol))
            me = comm.rank
            p, q = (me // npcol, me % npcol) if order == "R" else (me % nprow, me // nprow)
            locr = numroc(m, mb, p, rsrc, nprow)
            lld = max(1, locr) + int(rng.integers(0, 3))
            desc = [1, 0, m, n, mb, nb, rsrc, csrc, lld]
            lay = redist.Layout.from_descriptor(desc, (nprow, npcol), order, comm)
            assert lay.local_shape() == (locr, numroc(n, nb, q, csrc, npcol))
            rows, cols = lay.global_indices()
            li, lj = np.meshgrid(np.arange(rows.shape[0]), np.arange(rows.shape[1]), indexing="ij")
            assert np.array_equal(rows, indxl2g(li, mb, p, rsrc, nprow))
            assert np.array_equal(cols, indxl2g(lj, nb, q, csrc, npcol))
            assert lay.descriptor(ctxt=5) == [1, 5, m, n, mb, nb, rsrc, csrc, lld]
            again = redist.Layout.from_descriptor(lay.descriptor(), (nprow, npcol), order, comm)
            assert again == lay


def test_descriptor_of_a_spec_layout(comm):
    p = comm.size
    lay = redist.Layout(f"100x90/8x6/bc:1x{p}:1x2/scalapack", comm)
    locr, locc = lay.local_shape()
    # Super-tiles are ScaLAPACK blocks of 8 x 12.
    assert lay.descriptor() == [1, 0, 100, 90, 8, 12, 0, 0, max(1, locr)]
    assert locc == numroc(90, 12, comm.rank, 0, p)
    with pytest.raises(redist.Error, match="ScaLAPACK storage"):
        redist.Layout("100x90/8x6/bc:1x1").descriptor(0)


def test_bad_descriptors(comm):
    with pytest.raises(redist.Error, match="RSRC_ must be in 0..1, got 2"):
        redist.Layout.from_descriptor([1, 0, 10, 10, 2, 2, 2, 0, 10], (2, 1))
    with pytest.raises(redist.Error, match="MB_ must be positive"):
        redist.Layout.from_descriptor([1, 0, 10, 10, 0, 2, 0, 0, 10], (1, 1))
    with pytest.raises(redist.Error, match="9 entries"):
        redist.Layout.from_descriptor([1, 0, 10], (1, 1))
    with pytest.raises(redist.Error, match="order"):
        redist.Layout.from_descriptor([1, 0, 10, 10, 2, 2, 0, 0, 10], (1, 1), "X")


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int64])
def test_moves_between_descriptor_layouts(comm, dtype):
    rng = np.random.default_rng(99 + comm.size)
    for (nprow, npcol) in grids(comm.size):
        for order in "RC":
            rsrc, csrc = int(rng.integers(0, nprow)), int(rng.integers(0, npcol))
            src = redist.Layout.from_descriptor([1, 0, 33, 27, 5, 4, rsrc, csrc, 1],
                                                (nprow, npcol), order, comm)
            dst = redist.Layout.from_descriptor([1, 0, 27, 33, 3, 7, npcol - 1 - csrc, 0, 1],
                                                (npcol, nprow), "C" if order == "R" else "R", comm)
            tile = redist.Layout(f"33x27/6x6/bc:{comm.size}x1", comm)
            move_and_check(comm, src, tile, "20x21@3,2->5,6", dtype, alpha=2)
            move_and_check(comm, tile, src, None, dtype, beta=1)
            move_and_check(comm, src, dst, "30x25@1,1->0,3", dtype, op="t")
