#pragma once
/// @file copy/run_copies.hpp
/// Runs copies [first, end) of a pool (copy/strided_copy.hpp) as one program on an
/// execution-space instance: one Kokkos launch over all of them, or, for a host task of
/// fewer copies than twice the space's threads, one launch per copy over its columns, so
/// every thread of the space takes part either way; fencing that instance waits for this
/// work only. On a rank's progress thread (detail/progress_thread_mark.hpp) host copies
/// run in a plain loop on that thread.
///
/// One runner per backend, specialised on the execution space as Kokkos specialises
/// its ParallelFor: CopyRunner<ExecSpace, true> for spaces that read host memory (host
/// walkers, copy/host_walkers.hpp), CopyRunner<ExecSpace, false> for the others (the
/// device kernel, copy/device_kernel.hpp). Each gets the pool's element operation once
/// per launch: Assign when it is plain, so plain copies stay memory copies.
///
///   static void run(exec, copies, runs, members, put, first, end)
///     copies, runs, members: the pool's arrays, in memory ExecSpace can read
///     put:                   Assign or ElementOp<T> (copy/element_op.hpp)
///     @pre first < end, no two copies write the same element

#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <redist/copy/device_kernel.hpp>
#include <redist/copy/element_op.hpp>
#include <redist/copy/host_walkers.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/detail/progress_thread_mark.hpp>
#include <redist/index.hpp>

namespace redist {

/// How copies run on ExecSpace (see the file comment).
template <class ExecSpace,
          bool Host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible>
struct CopyRunner;

/// Host: parallel over the copies, or over the columns of each when there are fewer
/// than twice as many copies as threads. A scaling operation is fixed first
/// (detail::with_fixed_op): the loops then test beta and the conjugation once, not per
/// element.
template <class ExecSpace>
struct CopyRunner<ExecSpace, true> {
  template <class T, class Put>
  static void run(const ExecSpace& exec, const StridedCopy<T>* copies, const RowRun* runs,
                  const ColumnMember* members, Put put, std::size_t first, std::size_t end) {
    if constexpr (std::is_same_v<Put, ElementOp<T>>)
      detail::with_fixed_op(
          put, [&](auto fixed) { launch(exec, copies, runs, members, fixed, first, end); });
    else
      launch(exec, copies, runs, members, put, first, end);
  }

 private:
  template <class T, class Put>
  static void launch(const ExecSpace& exec, const StridedCopy<T>* copies, const RowRun* runs,
                     const ColumnMember* members, Put put, std::size_t first, std::size_t end) {
    if (detail::on_progress_thread) {  // one core of its own, not the caller's team
      for (std::size_t k = first; k < end; ++k) detail::copy_whole(copies[k], runs, members, put);
      return;
    }
    const auto threads = static_cast<std::size_t>(ExecSpace::concurrency());
    if (threads > 1 && end - first < 2 * threads) {
      for (std::size_t k = first; k < end; ++k) {
        const StridedCopy<T> c = copies[k];
        if (c.columns() == 0) continue;
        Kokkos::parallel_for("redist::copy_columns",
                             Kokkos::RangePolicy<ExecSpace>(exec, 0, c.columns()),
                             [=](index_t col) { detail::copy_column(c, runs, members, col, put); });
      }
      return;
    }
    Kokkos::parallel_for(
        "redist::copy_blocks",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, first, end),
        [=](std::size_t k) { detail::copy_whole(copies[k], runs, members, put); });
  }
};

/// Device: the team kernel, `split` teams per copy.
template <class ExecSpace>
struct CopyRunner<ExecSpace, false> {
  template <class T, class Put>
  static void run(const ExecSpace& exec, const StridedCopy<T>* copies, const RowRun* runs,
                  const ColumnMember* members, Put put, std::size_t first, std::size_t end) {
    using Kernel = detail::DeviceCopyKernel<ExecSpace, T, Put>;
    const std::size_t n = end - first;
    const int split = Kernel::split_for(n);
    Kokkos::parallel_for("redist::copy_blocks", Kernel::policy(exec, n, split),
                         Kernel{copies, runs, members, first, split, put});
  }
};

/// Runs copies [first, end) of a pool as one program on `exec`, each element written by
/// `op` (asynchronous: fence `exec` before reading the targets). `copies`, `runs`,
/// `members` point to the pool's arrays in memory ExecSpace can read.
/// @pre no two copies write the same element.
template <class ExecSpace, class T>
void run_copies(const ExecSpace& exec, const StridedCopy<T>* copies, const RowRun* runs,
                const ColumnMember* members, const ElementOp<T>& op, std::size_t first,
                std::size_t end) {
  if (end <= first) return;
  // An element type without arithmetic is always plain: one kernel, not two.
  if constexpr (ScalableElement<T>) {
    if (!op.plain()) {
      CopyRunner<ExecSpace>::run(exec, copies, runs, members, op, first, end);
      return;
    }
  }
  CopyRunner<ExecSpace>::run(exec, copies, runs, members, Assign{}, first, end);
}

/// Host pools: runs copies [first, end) of `pool`.
template <class ExecSpace, class T>
void run_copies(const ExecSpace& exec, const CopyPool<T>& pool, std::size_t first,
                std::size_t end) {
  run_copies(exec, pool.copies.data(), pool.runs.data(), pool.members.data(), pool.op, first, end);
}

}  // namespace redist
