// quickstart: move a sub-matrix between two differently tiled and distributed matrices.
// Walked through in docs/quickstart.md. Run with: mpirun -np 2 ./quickstart
#include <cstdio>
#include <functional>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/redist.hpp>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);  // MPI first ...
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);  // ... then Kokkos (finalized before MPI)
  using namespace redist;
  const int np = world.size();

  // 1. Layouts: a tile shape (how the matrix is cut) and a distribution (who owns a tile).
  //    Source: 1000 x 800 elements in 64 x 64 tiles, 1-D block-cyclic over all ranks.
  const Layout src{Tiling{UniformAxis<>(1000, 64), UniformAxis<>(800, 64)}, BlockCyclic(1, np)};
  //    Target: 900 x 900 elements in 100 x 50 tiles, block-cyclic over np x 1 ranks in
  //    super-tiles of 2 x 2 tiles.
  const Layout dst{Tiling{UniformAxis<>(900, 100), UniformAxis<>(900, 50)},
                   BlockCyclic(np, 1, 2, 2)};

  // 2. Matrices: the tiles this rank owns, stored by a placement (here tile-contiguous
  //    source tiles and a ScaLAPACK-style local column-major target).
  TiledMatrix<double, decltype(src), PackedTiles<>> a(src, {}, world.rank());
  TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, world.rank());
  const auto f = [](ElementIndex e) { return static_cast<double>(e.i * 1000 + e.j); };
  a.for_each_element([&](ElementIndex e, double& v) { v = f(e); });
  b.for_each_element([](ElementIndex, double& v) { v = -1.0; });

  // 3. Region: 500 x 600 elements from source (100, 50) to target (300, 200).
  const Region region{{500, 600}, {100, 50}, {300, 200}};

  // 4. Plan once (collective; bad input throws the same redist::error on every rank). How
  //    to execute is a second set of options; REDIST_* environment variables are applied
  //    on top of them, and every rank must end up with the same ones (else agreement_error).
  ExecutionOptions how;
  how.chunk_bytes = 1 << 20;  // messages leave in chunks of 1 MiB: pack, send, unpack overlap
  Redistributor move(a, b, world, region, PlanOptions{}, how);
  // ... and execute as often as needed: blocking,
  move.redistribute();
  // or in three steps, with this rank's own work in between. The copies run on `exec`, a
  // Kokkos execution-space instance, and only that instance is fenced.
  b.for_each_element([](ElementIndex, double& v) { v = -1.0; });  // checked after this run
  decltype(move)::execution_space exec;
  std::vector<double> x(1 << 16, 1.0);  // own data: neither a nor b (both busy until wait)
  double norm = 0;
  move.start(exec);  // posts receives, packs and sends, runs local copies; does not wait
  for (int step = 0; step < 8; ++step) {
    for (const double v : x) norm += v * v;  // a slice of the caller's work
    move.test();                             // lets the transfer advance; true once done
  }
  move.wait();  // completes it: b holds the region

  // 5. Check every element of the target this rank owns.
  long long bad = 0, checked = 0;
  b.for_each_element([&](ElementIndex e, double& v) {
    const bool in = e.i >= 300 && e.i < 800 && e.j >= 200 && e.j < 800;
    const double want = in ? f({e.i - 300 + 100, e.j - 200 + 50}) : -1.0;
    bad += v != want;
    ++checked;
  });
  bad = boost::mpi::all_reduce(world, bad, std::plus<long long>());
  checked = boost::mpi::all_reduce(world, checked, std::plus<long long>());

  const PlanStats& s = move.plan().stats;
  const TaskCounts& t = move.tasks_run();  // of the last execution
  std::printf(
      "rank %d: sent %lld, received %lld, local %lld elements in %lld messages; tasks: "
      "%zu send, %zu arrive, %zu receive, %zu ack (own work %.0f)\n",
      world.rank(), static_cast<long long>(s.elements_sent),
      static_cast<long long>(s.elements_received), static_cast<long long>(s.elements_local),
      static_cast<long long>(s.messages_sent), t.send, t.arrive, t.receive, t.ack, norm);
  world.barrier();
  if (world.rank() == 0)
    std::printf("quickstart: %s: %lld of %lld target elements correct on %d ranks\n",
                bad == 0 ? "verified" : "FAILED", checked - bad, checked, np);
  return bad == 0 ? 0 : 1;
}
