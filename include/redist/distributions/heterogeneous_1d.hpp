#pragma once
/// @file distributions/heterogeneous_1d.hpp
/// Heterogeneous1D: tile rows (or columns) dealt to the ranks in proportion to one power
/// per rank, by PowerSequence (distributions/power_sequence.hpp). The family's table is in
/// distributions/heterogeneous.hpp.

#include <cstdint>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/power_sequence.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>

namespace redist {

/// 1-D heterogeneous distribution (Nesi et al. 2023, section 4.4, Diodon's "1D
/// heterogeneous cyclic distribution"): tile rows (or columns) dealt to the ranks by the
/// smooth rule from one power per rank. A grid distribution: ranks() x 1 (rows) or
/// 1 x ranks() (columns), so ScaLAPACK storage can hold it.
/// Example: Heterogeneous1D(Axis::row, {2, 1, 1}, {8, 3}): tile rows 0..7 on ranks
/// 0 1 0 2 0 1 0 2, every column alike.
class Heterogeneous1D {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @param powers one per rank (ranks() == powers.size()); @param tiles the tile grid the
  /// distribution covers (Layout checks it); @param constraint on the distributed axis.
  /// @throws distribution_error (see PowerSequence) or if a tile extent is negative.
  constexpr Heterogeneous1D(Axis axis, std::vector<double> powers, Extents tiles,
                            TailConstraint constraint = {})
      : axis_(axis),
        tiles_(check_tiles(tiles)),
        seq_(std::move(powers), axis == Axis::row ? tiles.rows : tiles.cols,
             std::move(constraint)) {}

  constexpr int ranks() const { return seq_.parts(); }
  constexpr Axis axis() const { return axis_; }
  constexpr Extents tiles() const { return tiles_; }
  constexpr const PowerSequence& sequence() const { return seq_; }
  constexpr int owner(TileIndex t) const { return seq_.owner(axis_ == Axis::row ? t.m : t.n); }
  /// Tiles of rank r (all positions of the axis times the other extent).
  constexpr index_t tile_count(int r) const {
    return seq_.count(r) * (axis_ == Axis::row ? tiles_.cols : tiles_.rows);
  }

  // GridDistribution: P x 1 for rows, 1 x P for columns.
  constexpr Extents grid() const {
    return axis_ == Axis::row ? Extents{ranks(), 1} : Extents{1, ranks()};
  }
  constexpr int grid_row(index_t m) const { return axis_ == Axis::row ? seq_.owner(m) : 0; }
  constexpr int grid_col(index_t n) const { return axis_ == Axis::col ? seq_.owner(n) : 0; }
  constexpr int rank_of(GridCoord g) const { return axis_ == Axis::row ? g.p : g.q; }

  /// Visits the tiles of `box` owned by `rank`, column by column, in O(owned + log).
  template <class F>
  constexpr void for_each_owned(int rank, TileBox box, F&& f) const {
    if (rank < 0 || rank >= ranks() || box.empty()) return;
    const TileBox b = clip(box);
    if (b.empty()) return;
    if (axis_ == Axis::row) {
      for (index_t n = b.begin.n; n < b.end.n; ++n)
        seq_.for_each_position(rank, b.begin.m, b.end.m, [&](index_t m) { f(TileIndex{m, n}); });
    } else {
      seq_.for_each_position(rank, b.begin.n, b.end.n, [&](index_t n) {
        for (index_t m = b.begin.m; m < b.end.m; ++m) f(TileIndex{m, n});
      });
    }
  }

  /// Exact: axis, tile grid and the sequence's parameters.
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x48314Dull)  // "H1D"
        .add(static_cast<int>(axis_))
        .add(tiles_.rows)
        .add(tiles_.cols)
        .add(seq_.fingerprint())
        .value();
  }
  friend constexpr bool operator==(const Heterogeneous1D&, const Heterogeneous1D&) = default;

 private:
  static constexpr Extents check_tiles(Extents tiles) {
    if (tiles.rows < 0 || tiles.cols < 0)
      throw distribution_error(detail::describe("tile grid must be non-negative", "tiles", tiles));
    return tiles;
  }
  constexpr TileBox clip(TileBox box) const {
    const auto lo = [](index_t a, index_t b) { return a < b ? a : b; };
    const auto hi = [](index_t a, index_t b) { return a > b ? a : b; };
    return {{hi(box.begin.m, 0), hi(box.begin.n, 0)},
            {lo(box.end.m, tiles_.rows), lo(box.end.n, tiles_.cols)}};
  }

  Axis axis_;
  Extents tiles_;
  PowerSequence seq_;
};

}  // namespace redist
