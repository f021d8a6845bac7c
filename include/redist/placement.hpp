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
#include <string>
#include <unordered_map>
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

/// The storage of one rank: what to allocate and where each owned tile goes.
class StorageMap {
 public:
  StorageMap() = default;

  /// Adds an allocation of `elements` elements and returns its number.
  index_t add_allocation(index_t elements) {
    sizes_.push_back(elements);
    return static_cast<index_t>(sizes_.size()) - 1;
  }
  /// Records that owned tile t lives at `slot`. @pre t not added before.
  void add_tile(TileIndex t, TileSlot slot) {
    index_.emplace(t, tiles_.size());
    tiles_.push_back(t);
    slots_.push_back(slot);
  }

  const std::vector<index_t>& allocation_sizes() const { return sizes_; }
  const std::vector<TileIndex>& tiles() const { return tiles_; }
  bool contains(TileIndex t) const { return index_.count(t) != 0; }
  /// @throws storage_error if t is not stored here.
  TileSlot slot(TileIndex t) const {
    auto it = index_.find(t);
    if (it == index_.end())
      throw storage_error(detail::describe("tile is not stored on this rank", "tile", t));
    return slots_[it->second];
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
};

/// A placement for layouts of type L.
template <class P, class L>
concept Placement = requires(const P& p, const L& layout, int rank) {
  typename P::memory_space;
  requires Kokkos::is_memory_space<typename P::memory_space>::value;
  { p.map(layout, rank) } -> std::same_as<StorageMap>;
};

}  // namespace redist
