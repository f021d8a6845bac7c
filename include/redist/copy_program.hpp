#pragma once
/// @file copy_program.hpp
/// A copy program: the block copies of one task (a message chunk packed or unpacked, a
/// part of a batch's local copies) run as one Kokkos launch on an execution-space
/// instance, so a task costs one launch however many blocks it has, every thread of the
/// space takes part, and fencing that instance waits for this work only.
///
/// Host memory: the launch is parallel over the blocks; a task of fewer blocks than the
/// space has threads is parallel over the columns of each block instead (one large fused
/// block still uses every thread). Device memory: one team per block, threads over
/// columns, vector lanes over rows; the block list must then live in device memory.

#include <cstddef>
#include <cstring>

#include <Kokkos_Core.hpp>

#include <redist/copy_kernel.hpp>
#include <redist/index.hpp>

namespace redist {

namespace detail {

template <class T>
inline void copy_column(const BlockCopy<T>& c, index_t j) {
  const std::size_t bytes = static_cast<std::size_t>(c.rows) * sizeof(T);
  if (c.streaming)
    copy_streaming(c.dst + j * c.ldd, c.src + j * c.lds, bytes);
  else
    std::memcpy(c.dst + j * c.ldd, c.src + j * c.lds, bytes);
}

/// Host: the whole block, one memcpy when it is contiguous.
template <class T>
void copy_whole(const BlockCopy<T>& c) {
  if (c.rows == 0 || c.cols == 0) return;
  if ((c.rows == c.lds && c.rows == c.ldd) || c.cols == 1) {
    BlockCopy<T> one = c;
    one.rows = c.rows * c.cols;
    copy_column(one, 0);
    return;
  }
  for (index_t j = 0; j < c.cols; ++j) copy_column(c, j);
}

}  // namespace detail

/// Runs copies [0, n) of `copies` as one launch on `exec` (asynchronous: fence `exec`
/// before reading the targets).
/// @pre `copies` is readable from ExecSpace (host memory for host spaces, memory of the
/// device for device spaces); no two copies write the same element.
template <class ExecSpace, class T>
void run_copies(const ExecSpace& exec, const BlockCopy<T>* copies, std::size_t n) {
  if (n == 0) return;
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    const std::size_t threads = static_cast<std::size_t>(ExecSpace::concurrency());
    if (threads > 1 && n < 2 * threads) {
      // Few blocks: parallel over each block's columns.
      for (std::size_t k = 0; k < n; ++k) {
        const BlockCopy<T> c = copies[k];
        if (c.rows == 0 || c.cols == 0) continue;
        Kokkos::parallel_for("redist::copy_columns",
                             Kokkos::RangePolicy<ExecSpace>(exec, 0, c.cols),
                             [=](index_t j) { detail::copy_column(c, j); });
      }
      return;
    }
    Kokkos::parallel_for(
        "redist::copy_blocks",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, n),
        [=](std::size_t k) { detail::copy_whole(copies[k]); });
  } else {
    using team_policy = Kokkos::TeamPolicy<ExecSpace>;
    using member = typename team_policy::member_type;
    Kokkos::parallel_for(
        "redist::copy_blocks", team_policy(exec, static_cast<int>(n), Kokkos::AUTO),
        KOKKOS_LAMBDA(const member& team) {
          const BlockCopy<T> c = copies[team.league_rank()];
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c.cols), [&](index_t j) {
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, c.rows),
                                 [&](index_t i) { c.dst[i + j * c.ldd] = c.src[i + j * c.lds]; });
          });
        });
  }
}

}  // namespace redist
