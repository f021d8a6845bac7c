// node_shared: a source matrix in node-shared memory, so that ranks of a node read each
// other's tiles in place (one copy per element; docs/node-shared.md). Checks the result
// and says how many messages went direct. Run with: mpirun -np 3 ./node_shared
#include <cstdio>
#include <functional>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/redist.hpp>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace redist;
  const int np = world.size();
  {
    const Layout src{Tiling{UniformAxis<>(600, 48), UniformAxis<>(500, 40)}, BlockCyclic(np, 1)};
    const Layout dst{Tiling{UniformAxis<>(600, 35), UniformAxis<>(500, 64)}, BlockCyclic(1, np)};

    // The only change from a private source: allocate it node-shared (collective).
    auto a = node_shared_matrix<double>(src, ScalapackColumnMajor<>{}, world);
    TiledMatrix<double, decltype(dst), TilePerAllocation<>> b(dst, {}, world.rank());
    a.for_each_element([](ElementIndex e, double& v) { v = 1000.0 * e.i + e.j; });

    Redistributor r(a, b, world);
    r.redistribute();

    long bad = 0;
    b.for_each_element([&](ElementIndex e, double& v) { bad += v != 1000.0 * e.i + e.j; });
    bad = boost::mpi::all_reduce(world, bad, std::plus<long>());
    const long direct = boost::mpi::all_reduce(world, static_cast<long>(r.direct_messages().first),
                                               std::plus<long>());
    const long messages = boost::mpi::all_reduce(
        world, static_cast<long>(r.plan().stats.messages_sent), std::plus<long>());
    if (world.rank() == 0)
      std::printf("%d ranks: %ld of %ld messages read in place; %ld wrong elements\n", np, direct,
                  messages, bad);
    if (bad != 0) return 1;
  }  // the matrices and the Redistributor go before Kokkos and MPI finalize
  return 0;
}
