// The copy runner of the default execution space (copy/run_copies.hpp): the device kernel
// under a device Kokkos, the host walkers otherwise. Blocks of every shape the device
// kernel treats apart (short columns several at a time, long runs by a team's threads, one
// element), two runs each, read plain or transposed, written plain or through the pool's
// element operation (alpha, beta, conjugation); every target element is checked against
// its formula, and nothing outside the blocks may change.
#include <complex>
#include <cstddef>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

template <class T>
T source_at(index_t k) {
  if constexpr (detail::is_complex<T>::value)
    return T(static_cast<double>(k % 997), static_cast<double>(k % 13) - 6.0);
  else
    return T(static_cast<double>(k % 997));
}

template <class T>
T conj_of(const T& v) {
  if constexpr (detail::is_complex<T>::value)
    return std::conj(v);
  else
    return v;
}

template <class V, class E>
V device_copy(const std::vector<E>& list) {
  V view("redist::test::copies", list.size());
  const Kokkos::View<const E*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(list.data(),
                                                                                list.size());
  Kokkos::deep_copy(view, host);
  return view;
}

/// Wrong target elements after one launch of blocks of a 300 x 300 region, source ld 311,
/// target ld 307.
template <class T>
index_t runner_errors(Op op, bool scaled) {
  using Space = Kokkos::DefaultExecutionSpace;
  const index_t n = 300, lds = 311, ldd = 307;
  const bool transposed = op != Op::none;
  std::vector<T> src(static_cast<std::size_t>(lds * n)), dst(static_cast<std::size_t>(ldd * n));
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = source_at<T>(static_cast<index_t>(k));
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = source_at<T>(static_cast<index_t>(7 * k));
  const std::vector<T> initial = dst;
  std::vector<T> want = dst;
  CopyPool<T> pool;
  const Transform<T> t{op, T(2), T(0.5)};
  if (scaled) pool.op = ElementOp<T>(t);
  // clang-format off
  // rows x cols of the blocks of one band of columns: short and long runs, few and many
  // columns, one element.
  const index_t shapes[][2] = {
    {37, 41}, {3, 90}, {64, 5}, {200, 33}, {1, 1}, {129, 7},
  };
  // clang-format on
  index_t j0 = 0;
  for (const auto& shape : shapes) {
    const index_t rows = shape[0], cols = shape[1];
    for (index_t i0 = 0; i0 + rows <= n && j0 + cols <= n; i0 += rows + 3) {
      // Target block (i0, j0), from source block (i0, j0) or, transposed, (j0, i0); its
      // rows in two runs where it has two or more.
      StridedCopy<T> c;
      c.lds = lds, c.ldd = ldd;
      c.transposed = transposed;
      c.run_first = static_cast<index_t>(pool.runs.size());
      const index_t half = rows / 2;
      if (half > 0) pool.runs.push_back(RowRun{0, 0, half});
      pool.runs.push_back(RowRun{transposed ? half * lds : half, half, rows - half});
      c.runs = static_cast<index_t>(pool.runs.size()) - c.run_first;
      c.member_first = static_cast<index_t>(pool.members.size());
      pool.members.push_back(
          ColumnMember{transposed ? j0 + i0 * lds : i0 + j0 * lds, i0 + j0 * ldd});
      c.members = 1;
      c.col_len = cols;
      pool.copies.push_back(c);
      for (index_t j = 0; j < cols; ++j)
        for (index_t i = 0; i < rows; ++i) {
          const index_t s = transposed ? j0 + j + (i0 + i) * lds : i0 + i + (j0 + j) * lds;
          const T v = src[static_cast<std::size_t>(s)];
          T& d = want[static_cast<std::size_t>(i0 + i + (j0 + j) * ldd)];
          d = !scaled ? v : T(t.alpha * (op == Op::conj_transpose ? conj_of(v) : v) + t.beta * d);
        }
    }
    j0 += cols + 2;
  }
  Kokkos::View<T*, Space::memory_space> a("redist::test::src", src.size()),
      b("redist::test::dst", dst.size());
  Kokkos::deep_copy(a, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           src.data(), src.size()));
  Kokkos::deep_copy(b, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           dst.data(), dst.size()));
  for (StridedCopy<T>& c : pool.copies) c.src = a.data(), c.dst = b.data();
  const auto copies = device_copy<Kokkos::View<StridedCopy<T>*, Space::memory_space>>(pool.copies);
  const auto runs = device_copy<Kokkos::View<RowRun*, Space::memory_space>>(pool.runs);
  const auto members = device_copy<Kokkos::View<ColumnMember*, Space::memory_space>>(pool.members);
  const Space exec;
  run_copies(exec, copies.data(), runs.data(), members.data(), pool.op, 0, pool.copies.size());
  exec.fence();
  Kokkos::deep_copy(
      Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(dst.data(), dst.size()), b);
  index_t bad = 0, written = 0;
  for (std::size_t k = 0; k < dst.size(); ++k) {
    bad += !(dst[k] == want[k]);
    written += !(want[k] == initial[k]);
  }
  CHECK(written > 30000);  // the blocks cover about a third of the target
  return bad;
}

}  // namespace

TEST_CASE_TEMPLATE("device: the copy runner of the default space, plain, transposed, scaled", T,
                   double, std::complex<double>) {
  std::vector<Op> ops{Op::none, Op::transpose};
  if (detail::is_complex<T>::value) ops.push_back(Op::conj_transpose);
  for (const Op op : ops)
    for (const bool scaled : {false, true}) {
      CAPTURE(static_cast<int>(op));
      CAPTURE(scaled);
      CHECK(runner_errors<T>(op, scaled) == 0);
    }
}
