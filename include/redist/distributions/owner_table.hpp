#pragma once
/// @file distributions/owner_table.hpp
/// Explicit owner table: one rank per tile, stored column-major, identical on every
/// rank (the caller builds it the same way everywhere). Models Distribution.

#include <string>
#include <vector>

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>

namespace redist {

class OwnerTable {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @param tiles tile rows x tile columns; @param owners column-major, tiles.size() entries.
  /// @throws distribution_error if the table size does not match or an owner is
  /// outside [0, ranks).
  OwnerTable(Extents tiles, std::vector<int> owners, int ranks)
      : tiles_(tiles), owners_(std::move(owners)), ranks_(ranks) {
    if (ranks <= 0)
      throw distribution_error(detail::describe("rank count must be positive", "ranks", ranks));
    if (tiles.rows < 0 || tiles.cols < 0 ||
        static_cast<index_t>(owners_.size()) !=
            detail::checked_mul(tiles.rows, tiles.cols, "owner table tiles"))
      throw distribution_error(detail::describe("owner table size must be tile rows x tile columns",
                                                "owners.size()", owners_.size()) +
                               " (tiles = " + std::to_string(tiles.rows) + "x" +
                               std::to_string(tiles.cols) + ")");
    for (std::size_t k = 0; k < owners_.size(); ++k)
      if (owners_[k] < 0 || owners_[k] >= ranks)
        throw distribution_error(detail::describe("owner outside [0, ranks)",
                                                  "owners[" + std::to_string(k) + "]", owners_[k]) +
                                 " (ranks = " + std::to_string(ranks) + ")");
  }

  int ranks() const { return ranks_; }
  Extents tiles() const { return tiles_; }
  /// @pre t inside the table.
  int owner(TileIndex t) const {
    REDIST_EXPECTS(0 <= t.m && t.m < tiles_.rows && 0 <= t.n && t.n < tiles_.cols);
    return owners_[static_cast<std::size_t>(t.n * tiles_.rows + t.m)];
  }
  /// Exact: the whole table, O(tiles) (fingerprint.hpp).
  std::uint64_t fingerprint() const {
    detail::Hasher h(0x5441424Cull);  // "TABL"
    h.add(ranks_).add(tiles_.rows).add(tiles_.cols);
    for (int o : owners_) h.add(o);
    return h.value();
  }
  friend bool operator==(const OwnerTable&, const OwnerTable&) = default;

 private:
  Extents tiles_;
  std::vector<int> owners_;
  int ranks_;
};

}  // namespace redist
