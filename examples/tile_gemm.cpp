// tile_gemm: the reason redist exists. A producer hands over a matrix in its own layout
// (1-D column blocks of 37 x 53 tiles); the consumer wants square 64 x 64 tiles on a 2-D
// block-cyclic grid to run tile kernels. redist moves the data; Kokkos Kernels does the
// tile math (KokkosBlas::gemm computes T * T^T per tile, whose trace is ||T||_F^2).
// The Frobenius norm summed over the consumer's tiles must equal the producer's, which
// is computed independently from its own tiles with KokkosBlas::dot.
// Run with: mpirun -np 4 ./tile_gemm
#include <cmath>
#include <cstdio>
#include <functional>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/redist.hpp>

#if REDIST_HAVE_KOKKOS_KERNELS
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas3_gemm.hpp>
#endif

namespace {

// Squared Frobenius norm of one tile: trace(T * T^T) from a Kokkos Kernels gemm.
template <class TileView>
double tile_norm2(const TileView& t) {
  const auto rows = t.extent(0);
  Kokkos::View<double**, Kokkos::LayoutLeft> gram("gram", rows, rows);
#if REDIST_HAVE_KOKKOS_KERNELS
  Kokkos::View<double**, Kokkos::LayoutLeft> tile("tile", rows, t.extent(1));
  Kokkos::deep_copy(tile, t);  // gemm wants a contiguous LayoutLeft operand
  KokkosBlas::gemm("N", "T", 1.0, tile, tile, 0.0, gram);
#else
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < t.extent(1); ++j) gram(i, i) += t(i, j) * t(i, j);
#endif
  double trace = 0;
  for (std::size_t i = 0; i < rows; ++i) trace += gram(i, i);
  return trace;
}

// Squared Frobenius norm of one tile as a dot product of its columns with themselves.
template <class TileView>
double tile_dot2(const TileView& t) {
  double s = 0;
  for (std::size_t j = 0; j < t.extent(1); ++j) {
    const auto col = Kokkos::subview(t, Kokkos::ALL, j);
#if REDIST_HAVE_KOKKOS_KERNELS
    s += KokkosBlas::dot(col, col);
#else
    for (std::size_t i = 0; i < col.extent(0); ++i) s += col(i) * col(i);
#endif
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  using namespace redist;
  const int np = world.size();
  const int p = np % 2 == 0 ? 2 : 1;  // a 2 x (np/2) grid when np is even

  const Layout producer{Tiling{UniformAxis<>(700, 37), UniformAxis<>(500, 53)}, BlockCyclic(1, np)};
  const Layout consumer{Tiling{UniformAxis<64>(700), UniformAxis<64>(500)}, BlockCyclic(p, np / p)};
  TiledMatrix<double, decltype(producer), PackedTiles<>> a(producer, {}, world.rank());
  TiledMatrix<double, decltype(consumer), TilePerAllocation<>> b(consumer, {}, world.rank());
  a.for_each_element([](ElementIndex e, double& v) { v = std::sin(0.01 * e.i) + 0.001 * e.j; });

  Redistributor move(a, b, world);
  move.redistribute();

  double before = 0, after = 0;
  a.for_each_tile([&](TileIndex t) { before += tile_dot2(a.tile(t)); });
  b.for_each_tile([&](TileIndex t) { after += tile_norm2(b.tile(t)); });
  before = boost::mpi::all_reduce(world, before, std::plus<double>());
  after = boost::mpi::all_reduce(world, after, std::plus<double>());
  const double rel = std::abs(after - before) / before;
  if (world.rank() == 0)
    std::printf(
        "tile_gemm: ||A||_F^2 producer %.12g, consumer %.12g, relative difference %.2e: %s\n",
        before, after, rel, rel < 1e-12 ? "OK" : "MISMATCH");
  return rel < 1e-12 ? 0 : 1;
}
