#pragma once
/// @file tiled_matrix.hpp
/// TiledMatrix<T, Layout, Placement>: the tiles one rank owns, in the placement's
/// Kokkos memory space, either allocated here or wrapping the caller's storage.

#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/sysinfo.h>
#endif

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/detail/huge_pages.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>

namespace redist {

namespace detail {
/// Physical memory plus swap of this node in bytes, 0 if unknown. A single host allocation
/// above it cannot succeed (Linux refuses it under its default overcommit heuristic); with
/// overcommit on it would succeed and the zero-fill would be killed by the OOM killer.
inline index_t node_memory_bytes() {
#if defined(__linux__)
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return 0;
  const auto unit = static_cast<unsigned long long>(info.mem_unit ? info.mem_unit : 1);
  const unsigned long long pages = static_cast<unsigned long long>(info.totalram) +
                                   static_cast<unsigned long long>(info.totalswap);
  unsigned long long bytes = 0;
  if (__builtin_mul_overflow(pages, unit, &bytes) || bytes > INT64_MAX) return 0;
  return static_cast<index_t>(bytes);
#else
  return 0;
#endif
}
}  // namespace detail

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
  /// Local: no communication (see docs/errors.md for agreeing on a failure).
  /// @throws invalid_argument if the byte count overflows 64 bits; storage_error naming
  /// the bytes asked for if the memory cannot be had (more than the node's memory and
  /// swap in host memory, or a failed allocation).
  TiledMatrix(L layout, P placement, int rank)
      : layout_(std::move(layout)),
        placement_(std::move(placement)),
        rank_(rank),
        map_(map_storage(placement_, layout_, rank)) {
    const auto& sizes = map_.allocation_sizes();
    index_t total = 0;
    for (std::size_t a = 0; a < sizes.size(); ++a)
      total = detail::checked_add(
          total, detail::checked_mul(sizes[a], index_t{sizeof(T)}, "allocation bytes"),
          "allocation bytes");
    if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>) {
      const index_t node = detail::node_memory_bytes();
      if (node > 0 && total > node)
        throw storage_error(
            detail::describe("tile storage larger than this node's memory", "bytes", total) +
            " (memory + swap = " + std::to_string(node) + ", rank = " + std::to_string(rank) + ")");
    }
    if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>) carve_small(sizes, total);
    for (std::size_t a = allocations_.size(); a < sizes.size(); ++a) {
      try {
        allocate(a, sizes[a]);
      } catch (const std::exception&) {
        // Kokkos reports a failed allocation as a many-line std::runtime_error; one line
        // with the size is what a user can act on.
        throw storage_error(detail::describe("cannot allocate tile storage", "bytes",
                                             sizes[a] * index_t{sizeof(T)}) +
                            " (allocation " + std::to_string(a) + " of rank " +
                            std::to_string(rank) + ", " + std::to_string(total) + " bytes in all)");
      }
    }
  }

  /// Wraps the caller's allocations (e.g. an existing ScaLAPACK local array); `owner`,
  /// if given, is kept alive as long as the matrix (e.g. a NodeSharedArray's memory).
  /// @throws storage_error if their number or sizes do not match the placement.
  TiledMatrix(L layout, P placement, int rank, std::vector<allocation_view> storage,
              std::shared_ptr<const void> owner = {})
      : layout_(std::move(layout)),
        placement_(std::move(placement)),
        rank_(rank),
        map_(map_storage(placement_, layout_, rank)),
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
    map_.for_each_tile(f);
  }

  /// Host only: calls f(ElementIndex global, T& value) for every stored element.
  template <class F>
  void for_each_element(F&& f) const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible,
                  "redist: for_each_element needs host-accessible memory");
    map_.for_each_tile([&](TileIndex t) {
      const TileRef<T> r = tile_ref(t);
      const ElementIndex o = tile_origin(layout_.shape(), t);
      for (index_t j = 0; j < r.extent.cols; ++j)
        for (index_t i = 0; i < r.extent.rows; ++i)
          f(ElementIndex{o.i + i, o.j + j}, r.data[i + j * r.ld]);
    });
  }

 private:
  /// The placement's storage map; running out of memory while listing the owned tiles (a
  /// layout of too many tiles) is a storage_error, not a std::bad_alloc.
  static StorageMap map_storage(const P& placement, const L& layout, int rank) {
    // Before listing tiles: a matrix of 2^62 one-element tiles has a 64-bit element count
    // but no byte count, and listing its tiles would only run out of memory slowly.
    const Extents e = layout.extents();
    (void)detail::checked_mul(detail::checked_mul(e.rows, e.cols, "matrix elements"),
                              index_t{sizeof(T)}, "matrix bytes");
    try {
      StorageMap map = placement.map(layout, rank);
      map.find_separation();  // copies bind per axis where the tiles allow it
      return map;
    } catch (const std::bad_alloc&) {
      throw storage_error(
          detail::describe("out of memory listing this rank's tiles", "tiles", layout.tiles()) +
          " (rank = " + std::to_string(rank) + ")");
    } catch (const std::length_error&) {
      throw storage_error(
          detail::describe("out of memory listing this rank's tiles", "tiles", layout.tiles()) +
          " (rank = " + std::to_string(rank) + ")");
    }
  }

  /// Host allocations too small for huge pages on their own (a tile per allocation: 512 KB
  /// tiles of 256^2 doubles) as ranges of one arena, when together they reach the advice
  /// threshold: the arena's pages are advised huge like a large allocation's, and each range
  /// is still its own allocation to the engine (its own base; detail/huge_pages.hpp). On
  /// 4 KiB pages a copy that reads with gaps misses the TLB on every new page
  /// (bench/README.md, "Tiles on huge pages"). Ranges start on cache lines. Only when every
  /// allocation is small; fills allocations_ for all of them, or leaves it empty.
  void carve_small(const std::vector<index_t>& sizes, index_t total_bytes) {
    constexpr index_t line = 64 / std::gcd(index_t{64}, static_cast<index_t>(sizeof(T)));
    const auto small = [](index_t n) {
      return n * static_cast<index_t>(sizeof(T)) <
             static_cast<index_t>(detail::huge_page_advice_bytes);
    };
    if (sizes.size() < 2 || total_bytes < static_cast<index_t>(detail::huge_page_advice_bytes) ||
        !std::all_of(sizes.begin(), sizes.end(), small))
      return;
    std::vector<index_t> offsets(sizes.size());
    index_t at = 0;
    for (std::size_t a = 0; a < sizes.size(); ++a) {
      offsets[a] = at;
      at = detail::checked_add(at, (sizes[a] + line - 1) / line * line, "arena elements");
    }
    try {
      arena_ = zeroed_host_view("redist::tiles", at);
    } catch (const std::exception&) {
      throw storage_error(
          detail::describe("cannot allocate tile storage", "bytes", at * index_t{sizeof(T)}) +
          " (one arena for " + std::to_string(sizes.size()) + " allocations of rank " +
          std::to_string(rank_) + ")");
    }
    for (std::size_t a = 0; a < sizes.size(); ++a)
      allocations_.emplace_back(arena_.data() + offsets[a], static_cast<std::size_t>(sizes[a]));
  }
  /// n host elements, their pages advised huge before the zero fill touches them.
  static allocation_view zeroed_host_view(const std::string& label, index_t n) {
    const auto count = static_cast<std::size_t>(n);
    allocation_view view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), count);
    detail::advise_huge_pages(view.data(), count * sizeof(T));
    Kokkos::deep_copy(view, T{});
    return view;
  }

  /// Allocation a of n elements, value-initialised as Kokkos would; in host memory its pages
  /// are advised huge before that first touch (detail/huge_pages.hpp).
  void allocate(std::size_t a, index_t n) {
    const std::string label = std::string("redist::tiles") + std::to_string(a);
    if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>)
      allocations_.push_back(zeroed_host_view(label, n));
    else
      allocations_.emplace_back(Kokkos::view_alloc(label), static_cast<std::size_t>(n));
  }

  L layout_;
  P placement_;
  int rank_;
  StorageMap map_;
  std::vector<allocation_view> allocations_;
  allocation_view arena_;  ///< holds small host allocations (carve_small), or empty
  std::shared_ptr<const void> owner_;
};

}  // namespace redist
