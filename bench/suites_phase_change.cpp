/// @file bench/suites_phase_change.cpp
/// Suite phase-change (issue 13): the move between two phases of a multi-phase application
/// on heterogeneous nodes (Nesi et al. 2023, section 4.4). The factorization layout is
/// 1D-1D on a near-square P x Q grid, the first half of the ranks slow (power 1), the
/// others fast (power 8 here, a GPU node); the generation phase wants the lower
/// triangle's tiles evenly over the ranks. Two generation layouts move the lower
/// triangle to the factorization layout (upper-triangle tiles stay on their owner in
/// both):
///
/// - synthesized: Algorithm 2 (synthesize.hpp) from the factorization layout, moving the
///   lower bound sum_r max(0, held_r - wanted_r) of tiles;
/// - independent: P x Q block-cyclic in the lower triangle (the usual default), and the
///   same grid with its best first owner (what aligning the grids alone gains).
///
/// Per case and layout: tiles moved, bytes sent (all ranks), time of redistribute()
/// (median / best over --repeat, max over ranks), verified element by element. Tile
/// storage (packed tiles) on both sides. Sizes: 8192² in 256² tiles and 4096² in 128²
/// tiles (2048² / 1024² with --quick), 32 x 32 tiles each.

#include <redist/distributions/heterogeneous.hpp>
#include <redist/synthesize.hpp>

#include "bench.hpp"

namespace bench {

namespace {

using redist::ElementIndex;
using redist::Layout;
using redist::OwnerTable;
using redist::TileIndex;
using redist::TileMask;
using redist::TileTriangle;

struct PhaseRow {
  std::string name, layout;
  index_t n = 0, nb = 0;
  index_t moved = 0, bound = 0;
  double bytes = 0;
  Timing timing;
  long bad = 0;
};

/// Redistributes the whole matrix from `src` to `dst` o.repeat times; checks the result.
template <class SrcLayout, class DstLayout>
PhaseRow move(const mpi::communicator& comm, const Options& o, const SrcLayout& src,
              const DstLayout& dst) {
  using Src = redist::TiledMatrix<double, SrcLayout, redist::PackedTiles<>>;
  using Dst = redist::TiledMatrix<double, DstLayout, redist::PackedTiles<>>;
  Src a(src, {}, comm.rank());
  Dst b(dst, {}, comm.rank());
  const index_t n = src.extents().cols;
  const auto value = [n](ElementIndex e) { return static_cast<double>(e.i * n + e.j); };
  a.for_each_element([&](ElementIndex e, double& v) { v = value(e); });
  b.for_each_element([](ElementIndex, double& v) { v = sentinel; });
  redist::Redistributor<Src, Dst> r(a, b, comm, redist::Region::whole(src.extents()));
  PhaseRow row;
  row.timing = time_it(
      comm, o.repeat, [&] { r.redistribute(); }, 1);
  long bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
  row.bad = mpi::all_reduce(comm, bad, std::plus<long>());
  row.bytes = sum_over(comm, static_cast<double>(r.plan().stats.elements_sent) * 8.0);
  return row;
}

}  // namespace

void suite_phase_change(const mpi::communicator& comm, const Options& o, Report& report) {
  const bool root = comm.rank() == 0;
  const int np = comm.size();
  int P = 1;
  for (int p = 1; p * p <= np; ++p)
    if (np % p == 0) P = p;
  const int Q = np / P;
  if (root) {
    std::printf(
        "\n== suite phase-change (%d ranks, 1D-1D %dx%d factorization, ranks %d.. fast) ==\n", np,
        P, Q, np / 2);
    std::printf("%-22s %-24s %8s %8s %12s %11s %11s %s\n", "case", "generation layout", "moved",
                "bound", "sent MiB", "median s", "best s", "check");
  }
  std::vector<double> powers(static_cast<std::size_t>(np));
  for (int r = 0; r < np; ++r) powers[static_cast<std::size_t>(r)] = r < np / 2 ? 1.0 : 8.0;

  std::ostringstream json;
  json << "[";
  bool first = true;
  for (const auto [n, nb] :
       {std::pair<index_t, index_t>{o.quick ? 2048 : 8192, o.quick ? 64 : 256},
        std::pair<index_t, index_t>{o.quick ? 1024 : 4096, o.quick ? 32 : 128}}) {
    const std::string name = std::to_string(n) + "/" + std::to_string(nb);
    if (!selected(o, name)) continue;
    const Shape shape{redist::UniformAxis<>(n, nb), redist::UniformAxis<>(n, nb)};
    const redist::Extents tiles = redist::tile_counts(shape);
    const Layout fact{shape, redist::HeterogeneousGrid(P, Q, powers, tiles)};
    const TileMask lower{fact.all_tiles(), TileTriangle::lower};
    const std::vector<index_t> held = redist::tiles_per_rank(fact.distribution(), lower, np);
    const std::vector<index_t> wanted =
        redist::apportion(lower.size(), std::vector<double>(static_cast<std::size_t>(np), 1.0));
    const index_t bound = redist::moves_lower_bound(held, wanted);

    // The independent layouts: block-cyclic in the lower triangle, the factorization's
    // owners above it; first owner (0, 0) and the best one.
    const auto independent = [&](redist::GridCoord first) {
      const redist::BlockCyclic bc(P, Q, 1, 1, first);
      std::vector<int> owners;
      for (index_t c = 0; c < tiles.cols; ++c)
        for (index_t m = 0; m < tiles.rows; ++m)
          owners.push_back(m >= c ? bc.owner({m, c}) : fact.owner({m, c}));
      return OwnerTable(tiles, std::move(owners), np);
    };
    redist::GridCoord best{0, 0};
    index_t best_moved = -1;
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q) {
        const index_t m = redist::tiles_moved(independent({p, q}), fact.distribution(), lower);
        if (best_moved < 0 || m < best_moved) best_moved = m, best = {p, q};
      }

    std::vector<std::pair<std::string, OwnerTable>> layouts;
    layouts.emplace_back("synthesized (Alg. 2)", redist::synthesize(fact, wanted, lower));
    layouts.emplace_back("block-cyclic", independent({0, 0}));
    layouts.emplace_back("block-cyclic, best first", independent(best));
    for (auto& [label, table] : layouts) {
      const Layout gen{shape, table};
      PhaseRow row = move(comm, o, gen, fact);
      row.name = name;
      row.layout = label;
      row.n = n;
      row.nb = nb;
      row.moved = redist::tiles_moved(table, fact.distribution(), lower);
      row.bound = bound;
      report.mismatches += row.bad;
      if (root) {
        std::printf("%-22s %-24s %8lld %8lld %12.2f %11.6f %11.6f %s\n", name.c_str(),
                    label.c_str(), static_cast<long long>(row.moved),
                    static_cast<long long>(row.bound), row.bytes / 1048576.0, row.timing.median(),
                    row.timing.best(), row.bad ? "MISMATCH" : "ok");
        std::fflush(stdout);
      }
      json << (first ? "" : ",") << "\n    {\"case\": " << json_string(name)
           << ", \"layout\": " << json_string(label) << ", \"n\": " << n << ", \"nb\": " << nb
           << ", \"tiles_moved\": " << row.moved << ", \"lower_bound\": " << row.bound
           << ", \"bytes_sent\": " << json_number(row.bytes)
           << ", \"median_s\": " << json_number(row.timing.median())
           << ", \"best_s\": " << json_number(row.timing.best()) << ", \"mismatches\": " << row.bad
           << "}";
      first = false;
    }
  }
  json << "\n  ]";
  report.sections.emplace_back("phase_change", json.str());
  comm.barrier();
}

}  // namespace bench
