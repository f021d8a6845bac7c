"""Shared fixtures: every test runs on every rank of MPI.COMM_WORLD (ctest starts pytest under
mpiexec at 1-4 ranks), so checks are agreed across ranks before they are asserted: a rank
whose check fails must not leave the others waiting in the next collective."""

import pytest
from mpi4py import MPI


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def agreed(comm, ok, what=""):
    """Asserts on every rank that `ok` held on every rank, naming the ranks where it did not."""
    failed = comm.allgather(None if ok else what)
    bad = [(r, w) for r, w in enumerate(failed) if w is not None]
    assert not bad, f"failed on ranks {bad}"
