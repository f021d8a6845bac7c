"""Random layouts, regions and transforms: every target element checked against a function of
the global index, elements outside the region (and padding) untouched, the source unchanged."""

import numpy as np
import pytest

import redist
from conftest import agreed
from moves import expected, fill, initial_value, parse_region, source_value, arrays_of

DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64]


def random_grid(rng, ranks):
    p = int(rng.integers(1, ranks + 1))
    return p, int(rng.integers(1, ranks // p + 1))


def random_layout(rng, ranks):
    """A layout text of the grammar, and whether it is block-cyclic (may take ScaLAPACK storage)."""
    m, n = (int(v) for v in rng.integers(1, 41, size=2))
    mb, nb = (int(v) for v in rng.integers(1, 13, size=2))
    kind = rng.choice(["bc", "bc", "random", "band", "hetero", "hetero1d", "bc2"])
    p, q = random_grid(rng, ranks)
    if kind == "bc":
        dist = f"bc:{p}x{q}"
        if rng.random() < 0.3:
            dist += f":{rng.integers(1, 4)}x{rng.integers(1, 4)}"
    elif kind == "random":
        dist = f"random:{rng.integers(0, 1000)}"
    elif kind == "band":
        pb, qb = random_grid(rng, ranks)
        dist = f"band:{rng.integers(1, 4)}:{pb}x{qb}:{p}x{q}"
    elif kind == "hetero":
        dist = f"hetero:{p}x{q}:" + ",".join(str(w) for w in rng.integers(1, 6, size=p * q))
    elif kind == "hetero1d":
        axis = rng.choice(["rows", "cols"])
        dist = f"hetero1d:{axis}:" + ",".join(str(w) for w in rng.integers(1, 6, size=p))
    else:
        dist = f"bc2:{p}x{q}:{rng.integers(1, 4)}"
    storage = "/scalapack" if kind == "bc" and rng.random() < 0.5 else ""
    return f"{m}x{n}/{mb}x{nb}/{dist}{storage}", (m, n)


def random_region(rng, src, dst, op):
    """A region text fitting both (None now and then: the default region)."""
    if rng.random() < 0.2:
        return None
    t = op != "n"
    # Target rectangle is R x C (C x R when transposed).
    r_max = src[0]
    c_max = src[1]
    i = int(rng.integers(0, r_max))
    j = int(rng.integers(0, c_max))
    dr, dc = (dst[1], dst[0]) if t else dst  # room in the target for the source's R and C
    k = int(rng.integers(0, dst[0]))
    l = int(rng.integers(0, dst[1]))
    room_r = min(src[0] - i, (dst[1] - l) if t else (dst[0] - k))
    room_c = min(src[1] - j, (dst[0] - k) if t else (dst[1] - l))
    r = int(rng.integers(0, room_r + 1))
    c = int(rng.integers(0, room_c + 1))
    return f"{r}x{c}@{i},{j}->{k},{l}"


def transform(rng, dtype):
    op = str(rng.choice(["n", "n", "t", "c"]))
    alpha = int(rng.choice([1, 1, 2, -3]))
    beta = int(rng.choice([0, 0, 1, -2]))
    if np.dtype(dtype).kind == "c" and rng.random() < 0.5:
        alpha = complex(alpha, 2)
    uplo = str(rng.choice(["l", "u"])) if rng.random() < 0.25 else None
    diag = str(rng.choice(["n", "u"])) if uplo else "n"
    return op, alpha, beta, uplo, diag


def move_and_check(comm, src, dst, region, dtype, op="n", alpha=1, beta=0, uplo=None, diag="n",
                   **options):
    """Moves src -> dst (texts or Layouts) and checks every element on every rank."""
    src = src if isinstance(src, redist.Layout) else redist.Layout(src, comm)
    dst = dst if isinstance(dst, redist.Layout) else redist.Layout(dst, comm)
    a = fill(src, dtype, source_value, src.extent[1])
    before = [x.copy() for x in arrays_of(a)]
    b = fill(dst, dtype, initial_value, dst.extent[1])
    with redist.Redistributor(src, dst, comm, region=region, op=op, alpha=alpha, beta=beta,
                              uplo=uplo, diag=diag, dtype=dtype, **options) as r:
        r.redistribute(a, b)
        stats = r.stats()
    reg = parse_region(region, src.extent, dst.extent, op)
    want = expected(dst, dtype, src.extent[1], dst.extent[1], reg, op, alpha, beta, uplo, diag)
    ok = all(np.array_equal(g, w) for g, w in zip(arrays_of(b), want))
    ok = ok and all(np.array_equal(g, w) for g, w in zip(arrays_of(a), before))
    case = f"{src!r} -> {dst!r} region {region} {np.dtype(dtype).name} op {op} " \
           f"alpha {alpha} beta {beta} uplo {uplo} diag {diag}"
    agreed(comm, ok, case)
    return stats


@pytest.mark.parametrize("seed", range(6))
def test_random_layouts_regions_transforms(comm, seed):
    rng = np.random.default_rng(1000 + 17 * seed + comm.size)  # alike on every rank
    for _ in range(12):
        dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
        src_text, src_extent = random_layout(rng, comm.size)
        dst_text, dst_extent = random_layout(rng, comm.size)
        op, alpha, beta, uplo, diag = transform(rng, dtype)
        region = random_region(rng, src_extent, dst_extent, op)
        move_and_check(comm, src_text, dst_text, region, dtype, op, alpha, beta, uplo, diag)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_between_storage_kinds(comm, dtype):
    p = comm.size
    for src, dst in [(f"37x29/5x4/bc:1x{p}/scalapack", f"37x29/7x3/bc:{p}x1"),
                     (f"37x29/5x4/bc:{p}x1", f"37x29/6x6/bc:1x{p}/scalapack"),
                     (f"37x29/5x4/bc:{p}x1/scalapack", f"37x29/4x9/bc:1x{p}/scalapack"),
                     (f"37x29/8x8/random:3", f"37x29/3x3/bc:1x{p}")]:
        move_and_check(comm, src, dst, "20x15@3,4->10,7", dtype, alpha=2, beta=-1)
        move_and_check(comm, src, dst, None, dtype)


def test_several_allocations_per_rank(comm):
    # bc2: a rank's tiles on 3 devices, 3 arrays a rank.
    p = comm.size
    src = redist.Layout(f"30x30/4x4/bc2:{p}x1:3", comm)
    assert len(src.local_shapes()) == 3
    move_and_check(comm, f"30x30/4x4/bc2:{p}x1:3", f"30x30/5x5/bc:1x{p}/scalapack", "25x20@2,3->1,0",
                   np.float64, op="t")


def test_empty_starts_on_a_page(comm):
    # empty()'s arrays start on a page, and from 4 MiB on on a 2 MiB page, so that NumPy's
    # huge-page advice covers all of them; the same move is slower at other offsets.
    p = comm.size
    for text, dtype in [(f"30x30/4x4/bc:{p}x1/scalapack", np.float64),
                        (f"30x30/4x4/bc2:{p}x1:3", np.complex64),
                        (f"1024x1024/64x64/bc:1x{p}", np.float64),
                        (f"1024x2048/64x64/bc:1x{p}/scalapack", np.int32)]:
        arrays = redist.Layout(text, comm).empty(dtype=dtype)
        for a in arrays if isinstance(arrays, list) else [arrays]:
            want = 2 << 20 if a.nbytes >= 4 << 20 else 4096
            agreed(comm, (a.nbytes == 0 or a.ctypes.data % want == 0) and a.flags.writeable,
                   f"{text}: array at {a.ctypes.data:#x}, {a.nbytes} bytes, not {want}-aligned")


def test_options_by_name(comm):
    # Small batches and chunks, messages split at 64 bytes, point to point: same result.
    p = comm.size
    stats = move_and_check(comm, f"50x40/6x6/bc:1x{p}", f"50x40/7x5/bc:{p}x1", None, np.float64,
                           batch=1, chunk_bytes=256, max_message_bytes=64,
                           transport="point-to-point")
    assert stats["batches"] >= 1
    assert set(stats["messages_sent_by_transport"]) <= {"point-to-point"}
