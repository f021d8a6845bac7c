#pragma once
// The BLACS calls the ABI library makes, as ScaLAPACK's C BLACS interface declares them
// (BLACS/SRC: Int is int in the LP64 builds that Debian and most distributions ship).

#include <mpi.h>

extern "C" {
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_get(int context, int what, int* val);
MPI_Comm Cblacs2sys_handle(int handle);
}

namespace redist::abi {

/// Cblacs_get's WHAT for "the system handle of this context's communicator"
/// (SGET_BLACSCONTXT in BLACS/SRC/Bdef.h).
inline constexpr int blacs_get_context_comm = 10;

/// A process's place in a BLACS context: the grid and its own coordinate; myrow = mycol
/// = -1 outside the grid (also for context -1, a context handle the BLACS do not know,
/// and the coordinates past the grid that some old BLACS return).
struct GridInfo {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  bool inside() const { return myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol; }
};

inline GridInfo grid_info(int context) {
  GridInfo g;
  Cblacs_gridinfo(context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  if (!g.inside()) g.myrow = g.mycol = -1;
  return g;
}

/// The MPI communicator of a BLACS context (the BLACS own it: never freed here). Its
/// ranks number the context's grid row-major, whatever order made the grid.
inline MPI_Comm context_comm(int context) {
  int handle = -1;
  Cblacs_get(context, blacs_get_context_comm, &handle);
  return Cblacs2sys_handle(handle);
}

}  // namespace redist::abi
