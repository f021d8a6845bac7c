"""Filling local storage from a function of the global index and computing what every target
element must hold after a move: the tests' oracle, written from the definitions (region,
op, alpha, beta, triangle), not from redist's code."""

import numpy as np

# Source and target values: distinct per global index, exact in every dtype moved (the
# matrices stay below 2^12 elements a side).
def source_value(i, j, n_cols, dtype):
    v = (i * n_cols + j).astype(np.float64)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * -(i + 1)).astype(dtype)
    return v.astype(dtype)


def initial_value(i, j, n_cols, dtype):
    v = -(i * n_cols + j).astype(np.float64) - 7
    if np.dtype(dtype).kind == "c":
        return (v + 1j * (j + 3)).astype(dtype)
    return v.astype(dtype)


PADDING = -12345  # what padding between packed tiles holds before and after


def arrays_of(x):
    return list(x) if isinstance(x, list) else [x]


def fill(layout, dtype, value, n_cols):
    """Local storage of this rank, every element value(i, j), padding PADDING."""
    store = layout.empty(dtype=dtype)
    rows, cols = layout.global_indices()
    for a, i, j in zip(arrays_of(store), arrays_of(rows), arrays_of(cols)):
        a[...] = PADDING
        held = i >= 0
        a[held] = value(i[held], j[held], n_cols, dtype)
    return store


def kept(x, y, extent, uplo, diag):
    """Whether region element (x, y) of an R x C target rectangle is written (ScaLAPACK's
    pxtrmr2d rule)."""
    if uplo is None:
        return np.ones_like(x, dtype=bool)
    r, c = extent
    d = 1 if diag == "u" else 0
    if uplo == "l":
        return x - y >= d - max(c - r, 0)
    return y - x >= d - max(r - c, 0)


def expected(dst, dtype, src_cols, dst_cols, region, op, alpha, beta, uplo, diag):
    """What every element of this rank's target storage must hold, array by array."""
    (rows, cols), (si, sj), (di, dj) = region
    extent = (rows, cols) if op == "n" else (cols, rows)
    want = []
    ri, rj = dst.global_indices()
    for i, j in zip(arrays_of(ri), arrays_of(rj)):
        w = np.full(i.shape, PADDING, dtype=dtype)
        held = i >= 0
        w[held] = initial_value(i[held], j[held], dst_cols, dtype)
        x, y = i - di, j - dj
        inside = held & (x >= 0) & (y >= 0) & (x < extent[0]) & (y < extent[1])
        inside &= kept(x, y, extent, uplo, diag)
        x, y = x[inside], y[inside]
        a = source_value(si + x, sj + y, src_cols, dtype) if op == "n" else \
            source_value(si + y, sj + x, src_cols, dtype)
        if op == "c":
            a = np.conj(a)
        b = w[inside]
        w[inside] = (np.asarray(alpha, dtype=dtype) * a + np.asarray(beta, dtype=dtype) * b
                     if beta != 0 else np.asarray(alpha, dtype=dtype) * a)
        want.append(w)
    return want


def parse_region(text, src_extent, dst_extent, op):
    """((R, C), (I, J), (K, L)) of a region text, or the default region when None."""
    if text is None:
        t = op != "n"
        r = min(src_extent[0], dst_extent[1] if t else dst_extent[0])
        c = min(src_extent[1], dst_extent[0] if t else dst_extent[1])
        return (r, c), (0, 0), (0, 0)
    ext, _, origins = text.partition("@")
    r, c = (int(v) for v in ext.split("x"))
    if not origins:
        return (r, c), (0, 0), (0, 0)
    s, d = origins.split("->")
    return (r, c), tuple(int(v) for v in s.split(",")), tuple(int(v) for v in d.split(","))
