#pragma once
/// @file placement.hpp
/// The Placement policy: where and how a rank stores the tiles it owns. Every tile is
/// stored column-major with a leading dimension inside one of the rank's allocations.
///
/// Required (`p` a const placement, `layout` a Layout, `r` a rank):
///
/// | expression               | result       | returns                                   |
/// |--------------------------|--------------|-------------------------------------------|
/// | `P::memory_space`        | type         | the Kokkos memory space of the storage    |
/// | `p.map(layout, r)`       | StorageMap   | the allocations of rank r and the slot of |
/// |                          |              | each tile it owns                         |
///
/// `StorageMap` is the one concrete answer every placement gives: allocation sizes (in
/// elements), the owned tiles in column-major tile order, and for each a `TileSlot`
/// {allocation, offset, ld} with ld >= the tile's rows. Models live in placements/.

#include <concepts>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>

namespace redist {

/// Where one local tile lives: element (i, j) of the tile is at
/// allocation[offset + i + j * ld].
struct TileSlot {
  index_t allocation = 0;
  index_t offset = 0;
  index_t ld = 0;
  friend constexpr bool operator==(const TileSlot&, const TileSlot&) = default;
};

/// A rank's tiles stored as one column-major local matrix (ScaLAPACK's local array):
/// tile (m, n) starts at allocation[row_offset[m] + col_offset[n] * ld]; -1 marks tile
/// rows and columns the rank does not own. Addresses separate into a row part and a
/// column part, which lets copies be bound per axis (O(tiles per axis), not per tile).
struct LocalMatrix {
  index_t allocation = 0;
  index_t ld = 1;
  std::vector<index_t> row_offset;  ///< per tile row of the layout
  std::vector<index_t> col_offset;  ///< per tile column of the layout
};

/// The storage of one rank: what to allocate and where each owned tile goes. Either a
/// list of tiles with their slots, or a LocalMatrix (no per-tile entries).
class StorageMap {
 public:
  StorageMap() = default;

  /// Adds an allocation of `elements` elements and returns its number.
  index_t add_allocation(index_t elements) {
    sizes_.push_back(elements);
    return static_cast<index_t>(sizes_.size()) - 1;
  }
  /// Records that owned tile t lives at `slot`. @pre t not added before; no local matrix.
  void add_tile(TileIndex t, TileSlot slot) {
    index_.emplace(t, tiles_.size());
    tiles_.push_back(t);
    slots_.push_back(slot);
  }
  /// Stores every owned tile in one column-major local matrix. @pre no add_tile().
  void set_local_matrix(LocalMatrix local) { local_ = std::move(local); }
  /// The local matrix, or null when tiles are listed one by one.
  const LocalMatrix* local_matrix() const { return local_ ? &*local_ : nullptr; }

  const std::vector<index_t>& allocation_sizes() const { return sizes_; }
  bool contains(TileIndex t) const {
    if (local_)
      return 0 <= t.m && t.m < static_cast<index_t>(local_->row_offset.size()) && 0 <= t.n &&
             t.n < static_cast<index_t>(local_->col_offset.size()) &&
             local_->row_offset[static_cast<std::size_t>(t.m)] >= 0 &&
             local_->col_offset[static_cast<std::size_t>(t.n)] >= 0;
    return index_.count(t) != 0;
  }
  /// @throws storage_error if t is not stored here.
  TileSlot slot(TileIndex t) const {
    if (!contains(t))
      throw storage_error(detail::describe("tile is not stored on this rank", "tile", t));
    if (local_)
      return TileSlot{local_->allocation,
                      local_->row_offset[static_cast<std::size_t>(t.m)] +
                          local_->col_offset[static_cast<std::size_t>(t.n)] * local_->ld,
                      local_->ld};
    return slots_[index_.find(t)->second];
  }
  /// Calls f(TileIndex) for every stored tile, column-major tile order.
  template <class F>
  void for_each_tile(F&& f) const {
    if (!local_) {
      for (const TileIndex& t : tiles_) f(t);
      return;
    }
    for (index_t n = 0; n < static_cast<index_t>(local_->col_offset.size()); ++n)
      if (local_->col_offset[static_cast<std::size_t>(n)] >= 0)
        for (index_t m = 0; m < static_cast<index_t>(local_->row_offset.size()); ++m)
          if (local_->row_offset[static_cast<std::size_t>(m)] >= 0) f(TileIndex{m, n});
  }
  /// The stored tiles, column-major tile order (for_each_tile as a list).
  std::vector<TileIndex> tiles() const {
    std::vector<TileIndex> list;
    for_each_tile([&](TileIndex t) { list.push_back(t); });
    return list;
  }
  index_t element_count() const {
    index_t s = 0;
    for (auto n : sizes_) s += n;
    return s;
  }

 private:
  std::vector<index_t> sizes_;
  std::vector<TileIndex> tiles_;
  std::vector<TileSlot> slots_;
  std::unordered_map<TileIndex, std::size_t> index_;
  std::optional<LocalMatrix> local_;
};

/// Whether placement P always stores a rank's tiles as one LocalMatrix (it declares
/// `static constexpr bool local_matrix = true`). Messages between two placements that
/// do not are laid segment after segment (engine/bind_copies.hpp): a type property, so
/// that every rank lays them out alike.
template <class P>
inline constexpr bool stores_local_matrix = requires {
  requires P::local_matrix;
};

/// A placement for layouts of type L.
template <class P, class L>
concept Placement = requires(const P& p, const L& layout, int rank) {
  typename P::memory_space;
  requires Kokkos::is_memory_space<typename P::memory_space>::value;
  { p.map(layout, rank) } -> std::same_as<StorageMap>;
};

}  // namespace redist
