"""One case moved from Python, timed as redist-run times it: run under mpiexec; the plan made
once, the first call (which binds the arrays) timed apart, then --repeat moves, each timed
between a barrier and the slowest rank's end. Rank 0 writes the JSON."""

import argparse
import json

import mpi4py
import numpy as np

DTYPES = {"double": np.float64, "float": np.float32, "cdouble": np.complex128,
          "cfloat": np.complex64, "int": np.int32}


def fill(x, first):
    """Distinct values from `first` on in storage order (pages made present), a slab at a time."""
    flat = x.reshape(-1, order="A")  # a view: Layout.empty()'s and numpy.empty's are contiguous
    if not np.may_share_memory(flat, x):
        raise ValueError("move.py: the local array is not contiguous")
    step = 1 << 22
    for k in range(0, flat.size, step):
        n = min(step, flat.size - k)
        flat[k:k + n] = np.arange(first + k, first + k + n, dtype=np.float64).astype(flat.dtype)


def timed_moves(comm, r, a, b, repeat):
    """`repeat` moves of a into b, each timed as redist-run times it: barrier, move, the
    slowest rank's time."""
    from mpi4py import MPI  # here: main() sets MPI's thread level before the first import
    times = []
    for _ in range(repeat):
        comm.Barrier()
        t0 = MPI.Wtime()
        r.redistribute(a, b)
        times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--region", default=None, help="redist-run's --region grammar")
    ap.add_argument("--type", default="double", choices=sorted(DTYPES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", required=True)
    ap.add_argument("--alloc", default="layout", choices=["layout", "numpy"],
                    help="arrays from Layout.empty() (page-aligned) or numpy.empty (16-byte aligned)")
    ap.add_argument("--hugepages", default="numpy", choices=["numpy", "off"],
                    help="NumPy's own choice (madvise huge pages for large arrays, where the "
                    "kernel's transparent huge pages are 'madvise', as TiledMatrix advises) or off")
    ap.add_argument("--thread-level", default=None,
                    choices=["single", "funneled", "serialized", "multiple"],
                    help="MPI's thread level (mpi4py.rc.thread_level); default: mpi4py's own "
                    "(multiple), as a program gets it")
    o = ap.parse_args()
    if o.thread_level:
        mpi4py.rc.thread_level = o.thread_level
    from mpi4py import MPI  # initializes MPI at the level asked
    import redist
    if o.hugepages == "off":
        np.core.multiarray._set_madvise_hugepage(False)
    comm = MPI.COMM_WORLD
    dtype = DTYPES[o.type]
    src, dst = redist.Layout(o.src, comm), redist.Layout(o.dst, comm)
    if o.alloc == "layout":
        a, b = src.empty(dtype=dtype), dst.empty(dtype=dtype)
    else:
        a, b = (np.empty(x.local_shape(), dtype, order="F" if x.storage == "scalapack" else "C")
                for x in (src, dst))
    fill(a, 0.0)  # data, as redist-run moves: zeros over zeros move faster than data here
    fill(b, -1.0)
    comm.Barrier()
    t0 = MPI.Wtime()
    r = redist.Redistributor(src, dst, comm, region=o.region, dtype=dtype)
    plan = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    comm.Barrier()
    t0 = MPI.Wtime()
    r.redistribute(a, b)  # binds a and b
    first = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    times = timed_moves(comm, r, a, b, o.repeat)
    stats = r.stats()
    r.close()
    if comm.rank == 0:
        with open(o.json, "w") as f:
            json.dump({"src": o.src, "dst": o.dst, "type": o.type, "ranks": comm.size,
                       "construct_s": plan, "first_call_s": first, "times_s": times,
                       "bindings": stats["bindings"], "set_up": stats["set_up"],
                       "bind": stats["bind"]}, f, indent=1)


if __name__ == "__main__":
    main()
