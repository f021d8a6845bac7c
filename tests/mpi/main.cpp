// doctest runner for the MPI tests: every rank runs every test case. Rank 0 reports in full;
// the other ranks print only their failures. The exit status is the maximum over all ranks,
// so every rank (and mpiexec) agrees on the outcome.
#define DOCTEST_CONFIG_IMPLEMENT
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/operations.hpp>
#include <boost/serialization/string.hpp>

#include <doctest/doctest.h>

#include "runtime_skip.hpp"

namespace {

/// Excludes every registered case that some rank cannot run (runtime_skip.hpp), on every
/// rank alike; rank 0 prints the reason of the lowest rank that gave one. Collective.
void skip_what_cannot_run(doctest::Context& context, const boost::mpi::communicator& world,
                          const char* program) {
  for (const redist::test::RuntimeSkip& s : redist::test::runtime_skips()) {
    std::string why = s.reason();
    const int first = boost::mpi::all_reduce(world, why.empty() ? world.size() : world.rank(),
                                             boost::mpi::minimum<int>());
    if (first == world.size()) continue;
    boost::mpi::broadcast(world, why, first);
    if (world.rank() == 0) {
      std::printf("%s: skipped \"%s\": %s\n", program, s.test_case.c_str(), why.c_str());
      std::fflush(stdout);
    }
    // doctest splits filters at commas; '?' matches any one character.
    std::string filter = s.test_case;
    std::replace(filter.begin(), filter.end(), ',', '?');
    context.addFilter("test-case-exclude", filter.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Kokkos host threads never call MPI; a progress thread (ExecutionOptions::progress)
  // does, while the test's thread makes no MPI call.
  boost::mpi::environment env(argc, argv, boost::mpi::threading::serialized);
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
    const std::string path = argv[0];
    skip_what_cannot_run(context, world, path.substr(path.find_last_of('/') + 1).c_str());
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
