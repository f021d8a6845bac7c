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

#include <algorithm>
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
  /// Tiles the rank stores: owned tile rows x owned tile columns.
  index_t tiles() const { return owned(row_offset) * owned(col_offset); }

 private:
  static index_t owned(const std::vector<index_t>& offsets) {
    return static_cast<index_t>(
        std::count_if(offsets.begin(), offsets.end(), [](index_t x) { return x >= 0; }));
  }
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
    separation_.reset();
    index_.emplace(t, tiles_.size());
    tiles_.push_back(t);
    slots_.push_back(slot);
  }
  /// Stores every owned tile in one column-major local matrix. @pre no add_tile().
  void set_local_matrix(LocalMatrix local) { local_ = std::move(local); }
  /// The local matrix, or null when tiles are listed one by one.
  const LocalMatrix* local_matrix() const { return local_ ? &*local_ : nullptr; }
  /// The addresses as a row part plus a column part, where they separate: the local
  /// matrix, or the one find_separation() found in listed tiles; else null. Copies then
  /// bind per axis (engine/bind_copies.hpp).
  const LocalMatrix* separation() const {
    return local_ ? &*local_ : separation_ ? &*separation_ : nullptr;
  }
  /// Looks for the separation of listed tiles: one allocation, one ld, owned tiles a
  /// product of tile rows and tile columns, and tile (m, n) at row_offset[m] +
  /// col_offset[n] * ld, every tile checked. O(tiles); the tiles stay listed as they were.
  void find_separation() {
    separation_.reset();
    if (local_ || tiles_.empty()) return;
    const TileSlot& s0 = slots_.front();
    index_t rows = 0, cols = 0;
    for (std::size_t k = 0; k < tiles_.size(); ++k) {
      if (slots_[k].allocation != s0.allocation || slots_[k].ld != s0.ld) return;
      rows = std::max(rows, tiles_[k].m + 1);
      cols = std::max(cols, tiles_[k].n + 1);
    }
    LocalMatrix l{s0.allocation, s0.ld, std::vector<index_t>(static_cast<std::size_t>(rows), -1),
                  std::vector<index_t>(static_cast<std::size_t>(cols), -1)};
    const TileIndex t0 = tiles_.front();
    auto& row_of = l.row_offset;
    auto& col_of = l.col_offset;
    for (std::size_t k = 0; k < tiles_.size(); ++k)  // the row parts: tile column t0.n
      if (tiles_[k].n == t0.n) row_of[static_cast<std::size_t>(tiles_[k].m)] = slots_[k].offset;
    for (std::size_t k = 0; k < tiles_.size(); ++k) {  // the column parts: tile row t0.m
      if (tiles_[k].m != t0.m) continue;
      const index_t part = slots_[k].offset - row_of[static_cast<std::size_t>(t0.m)];
      if (part < 0 || part % s0.ld != 0) return;
      col_of[static_cast<std::size_t>(tiles_[k].n)] = part / s0.ld;
    }
    if (l.tiles() != static_cast<index_t>(tiles_.size())) return;
    for (std::size_t k = 0; k < tiles_.size(); ++k) {
      const index_t r = row_of[static_cast<std::size_t>(tiles_[k].m)];
      const index_t c = col_of[static_cast<std::size_t>(tiles_[k].n)];
      if (r < 0 || c < 0 || slots_[k].offset != r + c * s0.ld) return;
    }
    separation_ = std::move(l);
  }

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
  std::optional<LocalMatrix> separation_;  ///< of listed tiles (find_separation)
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
