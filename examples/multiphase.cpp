// multiphase: the layouts of a two-phase application on heterogeneous nodes (Nesi et al.
// 2023, ExaGeoStat: a CPU-only generation phase, then a Cholesky factorization that GPUs
// speed up). 1. Per-node powers of each phase from the linear program (Eq. 12-13, GLPK).
// 2. The factorization layout: 1D-1D from the factorization powers. 3. The generation
// layout: Algorithm 2 from the factorization layout and the generation tile counts.
// 4. The redistribution generation -> factorization, verified element by element, and the
// tiles it moves against an independent block-cyclic generation layout.
// Walked through in docs/heterogeneous.md. Run with: mpirun -np 4 ./multiphase
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/distributions/heterogeneous.hpp>
#include <redist/redist.hpp>
#include <redist/synthesize.hpp>
#if REDIST_HAVE_GLPK
#include <redist/phase_powers.hpp>
#endif

namespace {

using namespace redist;

constexpr index_t nb = 24;  // tiles per side; the matrix is nb x nb tiles of 32 x 32
constexpr index_t tile = 32;

/// Per-node powers of the two phases: [0] generation, [1] factorization.
std::vector<std::vector<double>> powers(int nodes, const std::vector<bool>& gpu) {
#if REDIST_HAVE_GLPK
  // Steps: two anti-diagonals of the lower triangle each (Nesi et al. 2023, section 4.3);
  // type 0 generation (one task per tile, phase 1), type 1 factorization (tile (i, j) takes
  // j + 1 kernels, phase 2).
  PhaseModel m;
  m.tasks.assign(static_cast<std::size_t>(nb), {0.0, 0.0});
  for (index_t i = 0; i < nb; ++i)
    for (index_t j = 0; j <= i; ++j) {
      auto& step = m.tasks[static_cast<std::size_t>((i + j) / 2)];
      step[0] += 1;
      step[1] += static_cast<double>(j + 1);
    }
  m.phase = {1, 2};
  // Groups: every node's CPU (32 cores), then the GPUs (two) of the nodes that have them.
  // Time per task of a group: one task's time over its workers (20 ms generation and 40 ms
  // factorization kernels per core, 0.5 ms per factorization kernel on a GPU).
  const double inf = std::numeric_limits<double>::infinity();
  m.duration.assign(2, {});
  for (int x = 0; x < nodes; ++x) {
    m.duration[0].push_back(20.0 / 32);
    m.duration[1].push_back(40.0 / 32);
    m.node.push_back(x);
  }
  for (int x = 0; x < nodes; ++x)
    if (gpu[static_cast<std::size_t>(x)]) {
      m.duration[0].push_back(inf);
      m.duration[1].push_back(0.5 / 2);
      m.node.push_back(x);
    }
  const PhasePowers p = phase_powers(m);
  // The generation counts come from the LP's task amounts (section 4.4): use them as the
  // generation "powers"; apportion() below rounds them to tiles.
  return {p.tasks[0], p.power[1]};
#else
  // Without GLPK: a GPU node is five times a CPU-only node at the factorization, all nodes
  // are alike at the generation.
  std::vector<double> gen(static_cast<std::size_t>(nodes), 1.0), fact;
  for (int x = 0; x < nodes; ++x) fact.push_back(gpu[static_cast<std::size_t>(x)] ? 5.0 : 1.0);
  return {gen, fact};
#endif
}

std::string list(const std::vector<index_t>& v) {
  std::string s;
  for (index_t x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

/// Redistributes a matrix filled with f from `src` to `dst` (whole matrix) and checks every
/// target element; returns {wrong elements, elements sent} summed over ranks. Collective.
template <class SrcLayout, class DstLayout>
std::pair<long long, long long> move(const boost::mpi::communicator& world, const SrcLayout& src,
                                     const DstLayout& dst) {
  TiledMatrix<double, SrcLayout, PackedTiles<>> a(src, {}, world.rank());
  TiledMatrix<double, DstLayout, PackedTiles<>> b(dst, {}, world.rank());
  const auto f = [](ElementIndex e) { return static_cast<double>(e.i * 100000 + e.j); };
  a.for_each_element([&](ElementIndex e, double& v) { v = f(e); });
  b.for_each_element([](ElementIndex, double& v) { v = -1.0; });
  Redistributor r(a, b, world, Region::whole(src.extents()));
  r.redistribute();
  long long bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) { bad += v != f(e); });
  const long long sent = r.plan().stats.elements_sent;
  return {boost::mpi::all_reduce(world, bad, std::plus<long long>()),
          boost::mpi::all_reduce(world, sent, std::plus<long long>())};
}

}  // namespace

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int np = world.size();
  const bool root = world.rank() == 0;

  // The nodes: the first half CPU-only, the others with GPUs (one rank per node).
  std::vector<bool> gpu(static_cast<std::size_t>(np));
  for (int x = 0; x < np; ++x) gpu[static_cast<std::size_t>(x)] = x >= np / 2;
  const std::vector<std::vector<double>> w = powers(np, gpu);

  // 2. The factorization layout: 1D-1D on a near-square P x Q grid (P <= Q).
  int P = 1;
  for (int p = 1; p * p <= np; ++p)
    if (np % p == 0) P = p;
  const int Q = np / P;
  using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
  const Shape shape{UniformAxis<>(nb * tile, tile), UniformAxis<>(nb * tile, tile)};
  const Layout fact{shape, HeterogeneousGrid(P, Q, w[1], {nb, nb})};

  // 3. The generation layout: the lower triangle (the symmetric matrix ExaGeoStat
  //    generates) dealt by the generation shares, synthesized from the factorization layout.
  const TileMask lower{fact.all_tiles(), TileTriangle::lower};
  const std::vector<index_t> fact_counts = tiles_per_rank(fact.distribution(), lower, np);
  const std::vector<index_t> gen_counts = apportion(lower.size(), w[0]);
  const Layout gen{shape, synthesize(fact, gen_counts, lower)};
  const index_t moved = tiles_moved(gen.distribution(), fact.distribution(), lower);
  const index_t bound = moves_lower_bound(fact_counts, gen_counts);

  //    Independent generation layout: block-cyclic on the same grid in the lower triangle
  //    (the upper triangle as in the factorization, so only the lower one counts).
  std::vector<int> owners;
  const BlockCyclic bc(P, Q);
  for (index_t n = 0; n < nb; ++n)
    for (index_t m = 0; m < nb; ++m)
      owners.push_back(m >= n ? bc.owner({m, n}) : fact.owner({m, n}));
  const Layout independent{shape, OwnerTable({nb, nb}, owners, np)};
  const index_t moved_independent =
      tiles_moved(independent.distribution(), fact.distribution(), lower);
  //    How much of that is the grid's alignment: the best first owner of the same grid.
  index_t moved_aligned = moved_independent;
  for (int p0 = 0; p0 < P; ++p0)
    for (int q0 = 0; q0 < Q; ++q0)
      moved_aligned = std::min(moved_aligned, tiles_moved(BlockCyclic(P, Q, 1, 1, {p0, q0}),
                                                          fact.distribution(), lower));

  // 4. Generation -> factorization, verified; and the same from the independent layout.
  const auto [bad, sent] = move(world, gen, fact);
  const auto [bad_i, sent_i] = move(world, independent, fact);

  if (root) {
    std::printf(
        "multiphase: %d nodes (%d CPU-only, %d with GPUs), %lldx%lld tiles of %lldx%lld, "
        "lower triangle %lld tiles\n",
        np, np / 2, np - np / 2, static_cast<long long>(nb), static_cast<long long>(nb),
        static_cast<long long>(tile), static_cast<long long>(tile),
        static_cast<long long>(lower.size()));
#if REDIST_HAVE_GLPK
    std::printf("  powers   from the phase LP (GLPK, Nesi et al. 2023 Eq. 12-13)\n");
#else
    std::printf("  powers   fixed (built without GLPK): GPU nodes 5x at the factorization\n");
#endif
    std::printf("  factorization  1D-1D on %dx%d, powers", P, Q);
    for (double x : w[1]) std::printf(" %.3f", x);
    std::printf("; lower-triangle tiles per rank %s\n", list(fact_counts).c_str());
    std::printf("  generation     Algorithm 2, tiles per rank %s\n", list(gen_counts).c_str());
    std::printf(
        "  moved tiles    %lld synthesized (lower bound %lld), %lld with an independent "
        "%dx%d block-cyclic generation layout (%lld with its best first owner)\n",
        static_cast<long long>(moved), static_cast<long long>(bound),
        static_cast<long long>(moved_independent), P, Q, static_cast<long long>(moved_aligned));
    std::printf(
        "  redistribution generation -> factorization: %s, %lld elements sent "
        "(independent: %lld, %s)\n",
        bad == 0 ? "verified" : "FAILED", sent, sent_i, bad_i == 0 ? "verified" : "FAILED");
  }
  return bad == 0 && bad_i == 0 && moved == bound && moved <= moved_independent ? 0 : 1;
}
