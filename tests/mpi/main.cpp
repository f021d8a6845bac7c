// doctest runner for the MPI tests: every rank runs every test case. Rank 0 reports in full;
// the other ranks print only their failures. The exit status is the maximum over all ranks,
// so every rank (and mpiexec) agrees on the outcome.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>
#include <functional>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/operations.hpp>

#include <doctest/doctest.h>

int main(int argc, char** argv) {
  // Only the main thread calls MPI; Kokkos host threads never do.
  boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
  boost::mpi::communicator world;
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);  // finalized before MPI
    doctest::Context context;
    // Open MPI gives each rank a pty, so doctest would colour logs; the command line may
    // still ask for colours.
    context.setOption("no-colors", true);
    context.applyCommandLine(argc, argv);
    if (world.rank() != 0) context.setOption("minimal", true);
    result = context.run();
    if (result != 0) {
      std::fprintf(stderr, "redist-mpi-tests: rank %d of %d FAILED\n", world.rank(), world.size());
    }
  }
  const int failed_ranks = boost::mpi::all_reduce(world, result != 0 ? 1 : 0, std::plus<int>());
  if (world.rank() == 0 && failed_ranks > 0) {
    std::fprintf(stderr, "redist-mpi-tests: FAILED on %d of %d ranks\n", failed_ranks,
                 world.size());
  }
  return boost::mpi::all_reduce(world, result, boost::mpi::maximum<int>());
}
