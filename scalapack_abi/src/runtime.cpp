#include "runtime.hpp"

#include <cstdlib>

#include <Kokkos_Core.hpp>

#include <mpi.h>

#include <redist/scalapack/plan_cache.hpp>

namespace redist::abi {
namespace {

bool owns_kokkos = false;

void finalize_owned_kokkos() {
  if (owns_kokkos && Kokkos::is_initialized()) {
    owns_kokkos = false;
    Kokkos::finalize();  // runs the plan cache's hook: entries go first
  }
}

int finalize_at_mpi_finalize(MPI_Comm, int, void*, void*) {
  finalize_owned_kokkos();
  return MPI_SUCCESS;
}

void finalize_at_exit() {
  if (!owns_kokkos || !Kokkos::is_initialized()) return;
  // MPI was not finalized (else finalize_at_mpi_finalize ran): the other processes may
  // be gone, so no collective destruction of the cached plans.
  scalapack::default_plan_cache().abandon();
  finalize_owned_kokkos();
}

}  // namespace

void ensure_runtime() {
  if (Kokkos::is_initialized()) return;
  Kokkos::initialize();
  owns_kokkos = true;
  static bool hooks = false;
  if (hooks) return;
  hooks = true;
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_at_mpi_finalize, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  std::atexit(finalize_at_exit);
}

}  // namespace redist::abi
