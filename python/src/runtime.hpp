#pragma once
// The process-wide state the module needs: Kokkos initialised once (unless the program did
// it), and the moves still alive released when MPI is finalized, before Kokkos goes.

namespace redist_python {

/// What the runtime releases at MPI_Finalize: a move whose Kokkos buffers and communicator
/// must go while Kokkos and MPI still work.
class Releasable {
 public:
  virtual ~Releasable() = default;
  /// Frees the move's resources (collective over its communicator, as destroying it is).
  virtual void release() = 0;
};

/// Initialises Kokkos if nobody has, and hooks its finalization to MPI_Finalize.
/// @pre MPI is initialized (mpi4py's import does it).
void ensure_runtime();

/// Whether MPI_Finalize has released everything: no move may run after it.
bool runtime_finished();

/// `r` is released at MPI_Finalize unless forgotten first; every rank registers its moves in
/// the same order (the program is the same), so they are released in the same order.
void remember(Releasable* r);
void forget(Releasable* r);

}  // namespace redist_python
