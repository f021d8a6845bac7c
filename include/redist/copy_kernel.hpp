#pragma once
/// @file copy_kernel.hpp
/// The one data-movement primitive: copy a rows x cols column-major block between two
/// strided locations in one memory space. Packing (tile -> message buffer), unpacking
/// (buffer -> tile) and local copies (tile -> tile) are all this kernel. Runs in the
/// memory space's default execution space.

#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <redist/index.hpp>

namespace redist {

/// A block copy: dst[i + j * ldd] = src[i + j * lds] for i < rows, j < cols.
template <class T>
struct BlockCopy {
  const T* src = nullptr;
  index_t lds = 0;
  T* dst = nullptr;
  index_t ldd = 0;
  index_t rows = 0;
  index_t cols = 0;
};

/// Runs one BlockCopy in MemorySpace as a Kokkos kernel. Host memory: one memcpy per
/// column (one for a contiguous block), parallel over columns; on the Serial backend the
/// launch costs nothing measurable (redist-bench, standard suite). Device memory: a 2-D
/// range kernel.
template <class MemorySpace, class T>
void copy_block(const BlockCopy<T>& c) {
  using exec = typename MemorySpace::execution_space;
  if (c.rows == 0 || c.cols == 0) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    // A contiguous block is one long column: one memcpy.
    const bool contiguous = (c.rows == c.lds && c.rows == c.ldd) || c.cols == 1;
    const index_t cols = contiguous ? 1 : c.cols;
    const std::size_t bytes =
        static_cast<std::size_t>(contiguous ? c.rows * c.cols : c.rows) * sizeof(T);
    Kokkos::parallel_for("redist::copy_block", Kokkos::RangePolicy<exec>(0, cols), [=](index_t j) {
      std::memcpy(c.dst + j * c.ldd, c.src + j * c.lds, bytes);
    });
  } else {
    const T* src = c.src;
    T* dst = c.dst;
    const index_t lds = c.lds, ldd = c.ldd;
    Kokkos::parallel_for(
        "redist::copy_block",
        Kokkos::MDRangePolicy<exec, Kokkos::Rank<2, Kokkos::Iterate::Left>>({0, 0},
                                                                            {c.rows, c.cols}),
        KOKKOS_LAMBDA(index_t i, index_t j) { dst[i + j * ldd] = src[i + j * lds]; });
  }
}

}  // namespace redist
