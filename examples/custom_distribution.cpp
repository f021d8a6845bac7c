// A user-written Distribution: heterogeneous 1-D "rows by power" (in the spirit of the
// per-node layouts of Nesi et al. 2023). Rank r has power w_r;
// tile rows are dealt in periods of sum(w) rows, rank r taking w_r consecutive rows of each
// period. Walked through in docs/custom-distribution.md.
// Run with: ./custom_distribution
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

/// Tile row m belongs to the rank whose share of the period holds m mod sum(powers).
/// Example, powers {3, 1}: tile rows 0 1 2 3 | 4 5 6 7 | ... go to ranks 0 0 0 1 | 0 0 0 1.
class PowerRows {
 public:
  /// @throws redist::distribution_error if a power is not positive.
  explicit PowerRows(std::vector<int> powers) : powers_(std::move(powers)) {
    if (powers_.empty())
      throw redist::distribution_error(
          redist::describe("need at least one rank", "powers.size()", 0));
    for (std::size_t r = 0; r < powers_.size(); ++r) {
      if (powers_[r] <= 0)
        throw redist::distribution_error(redist::describe(
            "a rank's power must be positive", "powers[" + std::to_string(r) + "]", powers_[r]));
      first_.push_back(period_);
      period_ += powers_[r];
    }
  }

  // --- required by redist::Distribution ---------------------------------------------------
  int ranks() const { return static_cast<int>(powers_.size()); }
  int owner(redist::TileIndex t) const { return grid_row(t.m); }

  // --- optional: redist::EnumeratesOwnedTiles (list own tiles without scanning the box) --
  template <class F>
  void for_each_owned(int rank, redist::TileBox box, F&& f) const {
    if (rank < 0 || rank >= ranks()) return;
    const auto r = static_cast<std::size_t>(rank);
    for (redist::index_t n = box.begin.n; n < box.end.n; ++n)
      for (redist::index_t base = box.begin.m - box.begin.m % period_; base < box.end.m;
           base += period_)
        for (redist::index_t m = base + first_[r]; m < base + first_[r] + powers_[r]; ++m)
          if (m >= box.begin.m && m < box.end.m) f(redist::TileIndex{m, n});
  }

  // --- optional: redist::GridDistribution (a ranks() x 1 grid; enables ScaLAPACK storage) -
  redist::Extents grid() const { return {ranks(), 1}; }
  int grid_row(redist::index_t m) const {
    const redist::index_t k = m % period_;
    int r = 0;
    while (first_[static_cast<std::size_t>(r)] + powers_[static_cast<std::size_t>(r)] <= k) ++r;
    return r;
  }
  int grid_col(redist::index_t) const { return 0; }
  int rank_of(redist::GridCoord g) const { return g.p; }

 private:
  std::vector<int> powers_;
  std::vector<redist::index_t> first_;  // first row of each rank inside a period
  redist::index_t period_ = 0;
};

static_assert(redist::Distribution<PowerRows>);
static_assert(redist::EnumeratesOwnedTiles<PowerRows>);
static_assert(redist::GridDistribution<PowerRows>);

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);

  // Three ranks: one big node (power 4), two small ones (2 and 1).
  const PowerRows dist({4, 2, 1});
  using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;
  const redist::Layout layout(
      Shape{redist::UniformAxis<>(1000, 64), redist::UniformAxis<>(600, 100)}, dist);
  const redist::Extents tiles = layout.tiles();

  std::printf("tile owners (%lld x %lld tiles, powers 4 2 1):\n",
              static_cast<long long>(tiles.rows), static_cast<long long>(tiles.cols));
  for (redist::index_t m = 0; m < tiles.rows; ++m) {
    std::printf("  row %2lld:", static_cast<long long>(m));
    for (redist::index_t n = 0; n < tiles.cols; ++n) std::printf(" %d", layout.owner({m, n}));
    std::printf("\n");
  }

  // Each rank's share, through the user's enumeration, and its storage.
  int status = 0;
  for (int r = 0; r < layout.ranks(); ++r) {
    redist::index_t count = 0;
    redist::for_each_owned_tile(layout.distribution(), r, layout.all_tiles(),
                                [&](redist::TileIndex t) {
                                  if (layout.owner(t) != r)
                                    status = 1;  // the enumeration must agree with owner()
                                  ++count;
                                });
    const redist::TiledMatrix<double, decltype(layout), redist::PackedTiles<>> packed(
        layout, redist::PackedTiles<>{}, r);
    const redist::TiledMatrix<double, decltype(layout), redist::ScalapackColumnMajor<>> scalapack(
        layout, redist::ScalapackColumnMajor<>{}, r);
    std::printf("rank %d: %lld tiles, %lld elements packed, %lld in ScaLAPACK storage\n", r,
                static_cast<long long>(count),
                static_cast<long long>(packed.storage().element_count()),
                static_cast<long long>(scalapack.storage().element_count()));
  }
  return status;
}
