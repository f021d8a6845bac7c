"""redist from Python: move NumPy arrays between distributed matrix layouts over mpi4py.

Layouts use redist-run's grammar (docs/redist-run.md), "MxN/MBxNB/DIST[/STORAGE]", or come
from a ScaLAPACK descriptor; docs/python.md has a complete program.
"""

from mpi4py import MPI  # noqa: F401  (MPI is initialized before the extension loads)

from ._redist import Error, Layout, Redistributor, option_names

__all__ = ["Error", "Layout", "Redistributor", "option_names"]
