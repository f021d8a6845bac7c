// overlap: a move handed to a progress thread while the caller computes (docs/overlap.md).
// Run with: mpirun -np 2 ./overlap
#include <chrono>
#include <cstdio>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/redist.hpp>

int main(int argc, char** argv) {
  // The progress thread calls MPI while this thread computes: at least serialized.
  boost::mpi::environment env(argc, argv, boost::mpi::threading::serialized);
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace redist;
  const int np = world.size();

  const Layout src{Tiling{UniformAxis<>(2000, 128), UniformAxis<>(1500, 128)}, BlockCyclic(1, np)};
  const Layout dst{Tiling{UniformAxis<>(2000, 100), UniformAxis<>(1500, 100)}, BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), ScalapackColumnMajor<>> a(src, {}, world.rank());
  TiledMatrix<double, decltype(dst), ScalapackColumnMajor<>> b(dst, {}, world.rank());
  const auto f = [](ElementIndex e) { return static_cast<double>(e.i * 2000 + e.j); };
  a.for_each_element([&](ElementIndex e, double& v) { v = f(e); });
  b.for_each_element([](ElementIndex, double& v) { v = -1.0; });

  ExecutionOptions how;
  how.progress = ProgressPolicy::thread;  // start() hands the move to the rank's thread
  Redistributor move(a, b, world, Region::whole({2000, 1500}), PlanOptions{}, how);

  // The caller's own work: neither a nor b, and no MPI call until wait().
  std::vector<double> x(1 << 14, 1.0);
  double sum = 0;
  long slices = 0;
  const auto t0 = std::chrono::steady_clock::now();
  move.start();
  while (!move.test()) {  // test() copies nothing here: it asks whether the thread is done
    for (const double v : x) sum += v * 1e-9;
    ++slices;
  }
  move.wait();  // returns at once: test() said done
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  long bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) { bad += v != f(e); });
  bad = boost::mpi::all_reduce(world, bad, std::plus<long>());
  if (world.rank() == 0)
    std::printf("overlap: %ld compute slices while the move ran (%.4f s), %ld wrong elements\n",
                slices, seconds, bad);
  return bad == 0 && sum >= 0 ? 0 : 1;
}
