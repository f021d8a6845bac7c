#include "runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <Kokkos_Core.hpp>

#include <mpi.h>

namespace redist_python {
namespace {

bool owns_kokkos = false;
bool finished = false;
std::vector<Releasable*> alive;  // in the order they were made

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: the moves go
// (in the order they were made, alike on every rank), then the Kokkos this module started.
int release_at_mpi_finalize(MPI_Comm, int, void*, void*) {
  finished = true;
  const std::vector<Releasable*> moves = std::move(alive);
  for (Releasable* r : moves) r->release();
  if (owns_kokkos && Kokkos::is_initialized()) Kokkos::finalize();
  owns_kokkos = false;
  return MPI_SUCCESS;
}

}  // namespace

void ensure_runtime() {
  if (Kokkos::is_initialized() || finished) return;
  Kokkos::initialize();
  owns_kokkos = true;
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_at_mpi_finalize, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

bool runtime_finished() { return finished; }

void remember(Releasable* r) { alive.push_back(r); }

void forget(Releasable* r) { alive.erase(std::remove(alive.begin(), alive.end(), r), alive.end()); }

}  // namespace redist_python
