#pragma once
// What a ScaLAPACK program does not set up for redist: Kokkos.

namespace redist::abi {

/// Initializes Kokkos if nobody has (the program is then C or Fortran and never will)
/// and arranges its finalization: at the start of MPI_Finalize (an attribute of
/// MPI_COMM_SELF, deleted while MPI still works; the plan cache is cleared first, by
/// its Kokkos finalize hook), or at exit if MPI is never finalized (the cache's entries
/// are then abandoned: destroying them is collective). A Kokkos the program initialized
/// itself is left to the program. @pre MPI is initialized (the BLACS did it).
void ensure_runtime();

}  // namespace redist::abi
