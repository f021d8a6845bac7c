// Scaled copies (copy/element_op.hpp): the host runner fixes beta = 0 and the conjugation
// once per launch (detail::with_fixed_op), and contiguous runs become vectorised loops.
// Every combination, on runs of every length up to past two vector widths (loop tails),
// with leading dimensions larger than the runs and odd offsets, straight and transposed,
// against C = alpha * op(A) + beta * C element by element; with beta = 0 the target starts
// as NaN, so a read of it would show. Nothing outside the copy changes.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>

#include <doctest/doctest.h>

using namespace redist;

namespace {

template <class T>
struct Traits {
  static T value(index_t k) { return T(static_cast<int>(k % 9) - 4); }
  static T conj(T v) { return v; }
  static T alpha() { return T(2); }
  static T beta() { return T(-3); }
  static T untouched() { return T(7); }
  static T unread() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
    return T(7);
  }
};
template <class R>
struct Traits<std::complex<R>> {
  using T = std::complex<R>;
  static T value(index_t k) {
    return T(R(static_cast<int>(k % 9) - 4), R(static_cast<int>(k % 5) - 2));
  }
  static T conj(T v) { return std::conj(v); }
  static T alpha() { return T(2, -1); }
  static T beta() { return T(R(0.5), 3); }
  static T untouched() { return T(7, 7); }
  static T unread() { return T(std::numeric_limits<R>::quiet_NaN(), R(1)); }
};

/// Wrong elements of dst after one copy of an m x n block: B(i, j) = alpha * op(A)(i, j) +
/// beta * B(i, j), B at element 5 of dst (ld m + 4), op(A) at element 3 of src (ld m + 3
/// straight, A read transposed with ld n + 3). Straight copies take two runs (rows [0, h)
/// and [h, m), the second 1 row further down in B, so ldd leaves room).
template <class T>
long scaled_copy_errors(index_t m, index_t n, Op op, bool beta_zero) {
  using X = Traits<T>;
  const bool transposed = op != Op::none;
  const index_t lds = (transposed ? n : m) + 3, ldd = m + 4, h = m / 2;
  std::vector<T> src(static_cast<std::size_t>(3 + lds * (transposed ? m : n) + 8));
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = X::value(static_cast<index_t>(k));
  const T beta = beta_zero ? T(0) : X::beta();
  const T start = beta_zero ? X::unread() : X::untouched();
  std::vector<T> dst(static_cast<std::size_t>(5 + ldd * n + 8), X::untouched());
  const auto b_at = [&](index_t i, index_t j) {  // B(i, j); straight rows >= h one lower
    return static_cast<std::size_t>(5 + i + (transposed || i < h ? 0 : 1) + j * ldd);
  };
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < m; ++i) dst[b_at(i, j)] = start;
  const auto a_at = [&](index_t i, index_t j) {  // op(A)(i, j)
    return static_cast<std::size_t>(transposed ? 3 + j + i * lds : 3 + i + j * lds);
  };
  CopyPool<T> pool;
  if (transposed)
    pool.runs = {RowRun{0, 0, m}};
  else
    pool.runs = {RowRun{0, 0, h}, RowRun{h, h + 1, m - h}};
  pool.members.push_back(ColumnMember{0, 0});
  StridedCopy<T> c;
  c.src = src.data() + 3;
  c.dst = dst.data() + 5;
  c.lds = lds, c.ldd = ldd;
  c.run_first = 0, c.runs = static_cast<index_t>(pool.runs.size());
  c.member_first = 0, c.members = 1, c.col_len = n;
  c.transposed = transposed;
  pool.op = ElementOp<T>(Transform<T>{op, X::alpha(), beta});
  pool.copies.push_back(c);
  run_copies(Kokkos::DefaultHostExecutionSpace{}, pool, 0, 1);
  Kokkos::fence();
  std::vector<T> want(dst.size(), X::untouched());
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < m; ++i) {
      const T a = src[a_at(i, j)];
      const T x = op == Op::conj_transpose ? X::conj(a) : a;
      want[b_at(i, j)] = beta_zero ? T(X::alpha() * x) : T(X::alpha() * x + beta * start);
    }
  long bad = 0;
  for (std::size_t k = 0; k < dst.size(); ++k) bad += !(dst[k] == want[k]);
  return bad;
}

template <class T>
void check_scaled_copies() {
  constexpr bool complex = !std::is_arithmetic_v<T>;
  for (const Op op : {Op::none, Op::transpose, Op::conj_transpose}) {
    if (op == Op::conj_transpose && !complex) continue;
    for (const bool beta_zero : {true, false})
      for (index_t m = 1; m <= 37; m += (m < 18 ? 1 : 9)) {
        CAPTURE(static_cast<int>(op));
        CAPTURE(beta_zero);
        CAPTURE(m);
        CHECK(scaled_copy_errors<T>(m, 3, op, beta_zero) == 0);
      }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("scaled copies: beta = 0 or not, conjugated or not, every run length", T, double,
                   float, int, std::int64_t, std::complex<float>, std::complex<double>) {
  check_scaled_copies<T>();
}
