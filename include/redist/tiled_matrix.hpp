#pragma once
/// @file tiled_matrix.hpp
/// TiledMatrix<T, Layout, Placement>: the tiles one rank owns, in the placement's
/// Kokkos memory space, either allocated here or wrapping the caller's storage.

#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>

namespace redist {

/// A raw, strided, column-major view of one tile: element (i, j) is data[i + j * ld].
template <class T>
struct TileRef {
  T* data = nullptr;
  Extents extent;
  index_t ld = 0;
};

template <class T, class L, class P>
requires Placement<P, L> && std::is_trivially_copyable_v<T>
class TiledMatrix {
 public:
  using value_type = T;
  using layout_type = L;
  using placement_type = P;
  using memory_space = typename P::memory_space;
  using allocation_view = Kokkos::View<T*, memory_space>;
  using tile_view = Kokkos::View<T**, Kokkos::LayoutStride, memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Allocates rank `rank`'s tiles (uninitialised contents are zero, as Kokkos does).
  TiledMatrix(L layout, P placement, int rank)
      : layout_(std::move(layout)),
        placement_(std::move(placement)),
        rank_(rank),
        map_(placement_.map(layout_, rank)) {
    for (std::size_t a = 0; a < map_.allocation_sizes().size(); ++a)
      allocations_.emplace_back(
          Kokkos::view_alloc(std::string("redist::tiles") + std::to_string(a)),
          static_cast<std::size_t>(map_.allocation_sizes()[a]));
  }

  /// Wraps the caller's allocations (e.g. an existing ScaLAPACK local array); `owner`,
  /// if given, is kept alive as long as the matrix (e.g. a NodeSharedArray's memory).
  /// @throws storage_error if their number or sizes do not match the placement.
  TiledMatrix(L layout, P placement, int rank, std::vector<allocation_view> storage,
              std::shared_ptr<const void> owner = {})
      : layout_(std::move(layout)),
        placement_(std::move(placement)),
        rank_(rank),
        map_(placement_.map(layout_, rank)),
        allocations_(std::move(storage)),
        owner_(std::move(owner)) {
    const auto& want = map_.allocation_sizes();
    if (allocations_.size() != want.size())
      throw storage_error(detail::describe("wrong number of allocations for the placement",
                                           "storage.size()", allocations_.size()) +
                          " (expected " + std::to_string(want.size()) + ")");
    for (std::size_t a = 0; a < want.size(); ++a)
      if (static_cast<index_t>(allocations_[a].extent(0)) < want[a])
        throw storage_error(detail::describe("allocation smaller than the placement needs",
                                             "storage[" + std::to_string(a) + "].extent(0)",
                                             allocations_[a].extent(0)) +
                            " (needs " + std::to_string(want[a]) + ")");
  }

  const L& layout() const { return layout_; }
  const P& placement() const { return placement_; }
  int rank() const { return rank_; }
  const StorageMap& storage() const { return map_; }
  const std::vector<allocation_view>& allocations() const { return allocations_; }
  bool owns(TileIndex t) const { return map_.contains(t); }

  /// Pointer, extents and leading dimension of owned tile t. @throws storage_error if
  /// t is not owned by this rank.
  TileRef<T> tile_ref(TileIndex t) const {
    const TileSlot s = map_.slot(t);
    return {allocations_[static_cast<std::size_t>(s.allocation)].data() + s.offset,
            tile_extents(layout_.shape(), t), s.ld};
  }

  /// Owned tile t as a strided 2-D Kokkos view (rows x cols, strides 1 and ld).
  tile_view tile(TileIndex t) const {
    const TileRef<T> r = tile_ref(t);
    const Kokkos::LayoutStride stride(static_cast<std::size_t>(r.extent.rows), 1,
                                      static_cast<std::size_t>(r.extent.cols),
                                      static_cast<std::size_t>(r.ld));
    return tile_view(r.data, stride);
  }

  /// Calls f(TileIndex) for every owned tile, column-major tile order.
  template <class F>
  void for_each_tile(F&& f) const {
    for (const TileIndex& t : map_.tiles()) f(t);
  }

  /// Host only: calls f(ElementIndex global, T& value) for every stored element.
  template <class F>
  void for_each_element(F&& f) const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible,
                  "redist: for_each_element needs host-accessible memory");
    for (const TileIndex& t : map_.tiles()) {
      const TileRef<T> r = tile_ref(t);
      const ElementIndex o = tile_origin(layout_.shape(), t);
      for (index_t j = 0; j < r.extent.cols; ++j)
        for (index_t i = 0; i < r.extent.rows; ++i)
          f(ElementIndex{o.i + i, o.j + j}, r.data[i + j * r.ld]);
    }
  }

 private:
  L layout_;
  P placement_;
  int rank_;
  StorageMap map_;
  std::vector<allocation_view> allocations_;
  std::shared_ptr<const void> owner_;
};

}  // namespace redist
