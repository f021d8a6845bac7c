// The copy kernel: streaming copies must equal memcpy for every length and alignment
// (head and tail handling), and run_copies must move exactly its strided copies, with or
// without streaming stores, touching nothing around them.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/host_primitives.hpp>
#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>

#include <doctest/doctest.h>

using namespace redist;

TEST_CASE("copy_streaming equals memcpy for every length and alignment") {
  std::vector<unsigned char> src(1024), dst(1100), want(1100);
  std::iota(src.begin(), src.end(), static_cast<unsigned char>(1));
  long bad = 0;
  for (std::size_t s_off = 0; s_off < 16; s_off += 3)
    for (std::size_t d_off = 0; d_off < 64; ++d_off)
      for (std::size_t n = 0; n < 700; n += (n < 200 ? 1 : 37)) {
        std::fill(dst.begin(), dst.end(), 0xEE);
        want = dst;
        std::memcpy(want.data() + d_off, src.data() + s_off, n);
        detail::copy_streaming(dst.data() + d_off, src.data() + s_off, n);
        detail::streaming_fence();
        bad += dst != want;
      }
  CHECK(bad == 0);
}

TEST_CASE("run_copies moves strided copies exactly, streaming or not, few or many") {
  // A 37 x 11 source strip into a 45 x 12 target. Each copy takes some columns; each has
  // two runs (rows [0, 10) and [10, 29) of the strip, at other places in the target) and
  // two column members of its columns' halves. Many copies run one per work item, a few
  // run column-parallel: both must copy exactly the copies and nothing else.
  const index_t lds = 37, ldd = 45, cols = 11;
  std::vector<double> src(static_cast<std::size_t>(lds * cols));
  std::iota(src.begin(), src.end(), 1.0);
  // Target row of source row i: rows [0, 10) go to [20, 30), rows [10, 29) to [0, 19).
  const auto target_row = [](index_t i) { return i < 10 ? i + 20 : i - 10; };
  Kokkos::DefaultHostExecutionSpace exec;
  for (bool streaming : {false, true})
    for (index_t copies : {1, 2, 5, 11}) {
      std::vector<double> dst(static_cast<std::size_t>(ldd * (cols + 1)), -1.0);
      CopyPool<double> pool;
      pool.runs = {{0, 20, 10}, {10, 0, 19}};
      for (index_t c = 0; c < copies; ++c) {
        const index_t c0 = cols * c / copies, c1 = cols * (c + 1) / copies;
        if (c1 == c0) continue;
        // Columns [c0, c1) as two members: the first half and the rest (col_len each,
        // the last member may be shorter: then it is its own copy).
        const index_t half = (c1 - c0) / 2;
        const auto add = [&](index_t first, index_t members, index_t len) {
          StridedCopy<double> sc;
          sc.src = src.data();
          sc.dst = dst.data();
          sc.lds = lds;
          sc.ldd = ldd;
          sc.run_first = 0;
          sc.runs = 2;
          sc.member_first = static_cast<index_t>(pool.members.size());
          for (index_t m = 0; m < members; ++m)
            pool.members.push_back({(first + m * len) * lds, (first + m * len) * ldd});
          sc.members = members;
          sc.col_len = len;
          sc.streaming = streaming;
          pool.copies.push_back(sc);
        };
        if (half > 0 && (c1 - c0) % 2 == 0)
          add(c0, 2, half);
        else
          add(c0, 1, c1 - c0);
      }
      run_copies(exec, pool, 0, pool.copies.size());
      exec.fence();
      detail::streaming_fence();
      long bad = 0;
      for (index_t k = 0; k < static_cast<index_t>(dst.size()); ++k) {
        const index_t i = k % ldd, j = k / ldd;
        double want = -1.0;
        if (j < cols && i < 30)
          for (index_t r = 0; r < 29; ++r)
            if (target_row(r) == i) want = src[static_cast<std::size_t>(r + j * lds)];
        bad += dst[static_cast<std::size_t>(k)] != want;
      }
      CAPTURE(streaming);
      CAPTURE(copies);
      CHECK(bad == 0);
    }
}

namespace {

/// Wrong target elements after one transposed copy of a rows x cols block of A (ld lds, at
/// element so of src) into B (ld ldd, at element doff of dst): B(x, y) = A(y, x), or
/// 2 * A(y, x) + 0.5 * B(x, y) when scaled; nothing else in dst changes.
template <class T>
long transposed_copy_errors(index_t lds, index_t ldd, index_t rows, index_t cols, index_t so,
                            index_t doff, bool streaming, bool scaled) {
  std::vector<T> src(static_cast<std::size_t>(so + lds * cols + 8));
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = T(static_cast<int>(k % 1000) + 1);
  std::vector<T> dst(static_cast<std::size_t>(doff + ldd * rows + 40), T(-1));
  CopyPool<T> pool;
  // Op(A) rows are A's columns: one run of `cols` op-rows, one member of `rows` columns.
  pool.runs.push_back(RowRun{0, 0, cols});
  pool.members.push_back(ColumnMember{0, 0});
  StridedCopy<T> c;
  c.src = src.data() + so;    // A(i, j) = src[so + i + j * lds]
  c.dst = dst.data() + doff;  // B(x, y) = dst[doff + x + y * ldd]
  c.lds = lds, c.ldd = ldd;
  c.run_first = 0, c.runs = 1, c.member_first = 0, c.members = 1, c.col_len = rows;
  c.transposed = true;
  c.streaming = streaming;
  if constexpr (!std::is_integral_v<T>)
    if (scaled) pool.op = ElementOp<T>(Transform<T>{Op::transpose, T(2), T(0.5)});
  pool.copies.push_back(c);
  run_copies(Kokkos::DefaultHostExecutionSpace{}, pool, 0, 1);
  Kokkos::fence();
  detail::streaming_fence();
  long bad = 0;
  for (std::size_t k = 0; k < dst.size(); ++k) {
    const index_t off = static_cast<index_t>(k) - doff;
    const index_t x = off % ldd, y = off / ldd;  // B(x, y) = A(y, x)
    const bool inside = off >= 0 && x < cols && y < rows;
    const T a = inside ? src[static_cast<std::size_t>(so + y + x * lds)] : T(0);
    const T want = !inside ? T(-1) : !pool.op.plain() ? T(T(2) * a + T(0.5) * T(-1)) : a;
    bad += !(dst[k] == want);
  }
  return bad;
}

template <class T>
void check_transposed_copies() {
  // clang-format off
  // lds ldd rows cols: odd strides; strides of whole cache lines (the aligned tile grid)
  // with blocks that are or are not a multiple of the tile; one-element and thin blocks.
  const index_t shapes[][4] = {
    {29,  31,  19, 23},
    {64,  32,  64, 32},
    {128, 96,  70, 45},
    {48,  40,  33, 17},
    {16,  16,  16, 16},
    {5,   7,   1,  1},
    {64,  64,  3,  64},
  };
  // clang-format on
  long bad = 0;
  for (const auto& sh : shapes)
    for (const index_t so : {0, 3})
      for (const index_t doff : {0, 1, 5})
        for (const bool streaming : {false, true})
          for (const bool scaled : {false, true}) {
            const long b =
                transposed_copy_errors<T>(sh[0], sh[1], std::min(sh[2], sh[0]),
                                          std::min(sh[3], sh[1]), so, doff, streaming, scaled);
            if (b) {
              INFO("lds ", sh[0], " ldd ", sh[1], " rows ", sh[2], " cols ", sh[3], " so ", so,
                   " doff ", doff, " streaming ", streaming, " scaled ", scaled);
              CHECK(b == 0);
            }
            bad += b;
          }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("transposed copies of every element type: SIMD widths, edges, alignment", T,
                   double, float, int, std::int64_t, std::complex<float>, std::complex<double>) {
  check_transposed_copies<T>();
}

TEST_CASE("transposed and scaled copies: every element, streaming or not, odd sizes") {
  // A 19 x 23 block of a source with ld 29 lands transposed (23 x 19) in a target with ld
  // 31, at element offsets that break cache-line alignment; partial 8 x 8 blocks on both
  // edges. Then the same with alpha, beta: target = 2 * source^T + 0.5 * target.
  const index_t lds = 29, ldd = 31, rows = 19, cols = 23;
  for (const bool streaming : {false, true})
    for (const bool scaled : {false, true}) {
      CAPTURE(streaming);
      CAPTURE(scaled);
      std::vector<double> src(static_cast<std::size_t>(lds * cols + 8));
      std::iota(src.begin(), src.end(), 1.0);
      std::vector<double> dst(static_cast<std::size_t>(ldd * rows + 40), -1.0);
      CopyPool<double> pool;
      // Op(A) rows are A's columns: one run of `cols` op-rows, one member of `rows` columns.
      pool.runs.push_back(RowRun{0, 0, cols});
      pool.members.push_back(ColumnMember{0, 0});
      StridedCopy<double> c;
      c.src = src.data() + 3;  // A(0, 0) at offset 3: A(i, j) = src[3 + i + j * lds]
      c.dst = dst.data() + 5;  // B(0, 0) at offset 5: B(x, y) = dst[5 + x + y * ldd]
      c.lds = lds, c.ldd = ldd;
      c.run_first = 0, c.runs = 1, c.member_first = 0, c.members = 1, c.col_len = rows;
      c.transposed = true;
      c.streaming = streaming;
      if (scaled) pool.op = ElementOp<double>(Transform<double>{Op::transpose, 2.0, 0.5});
      pool.copies.push_back(c);
      run_copies(Kokkos::DefaultHostExecutionSpace{}, pool, 0, 1);
      Kokkos::fence();
      detail::streaming_fence();
      long bad = 0;
      for (std::size_t k = 0; k < dst.size(); ++k) {
        const index_t off = static_cast<index_t>(k) - 5;
        const index_t x = off % ldd, y = off / ldd;  // B(x, y) = A(y, x)
        const bool inside = off >= 0 && x < cols && y < rows;
        const double a = inside ? src[static_cast<std::size_t>(3 + y + x * lds)] : 0;
        const double want = !inside ? -1.0 : scaled ? 2.0 * a + 0.5 * -1.0 : a;
        bad += dst[k] != want;
      }
      CHECK(bad == 0);
    }
}

TEST_CASE("transposed copies of thin blocks: members of a few columns, runs of a few rows") {
  // What element- and small-block-cyclic layouts make: many members of col_len columns
  // (1..9, either side of the plain-loop threshold) whose target columns are 3 apart, and
  // runs of 1..10 op-rows that skip rows on both sides. Every element is checked against
  // the StridedCopy formula (copy/strided_copy.hpp), plain and scaled, and nothing else
  // in the target may change.
  const index_t lds = 53, ldd = 61;
  std::vector<double> src(static_cast<std::size_t>(lds * 80));
  std::iota(src.begin(), src.end(), 1.0);
  long bad = 0;
  for (const index_t col_len : {1, 2, 3, 7, 8, 9})
    for (const index_t run_len : {1, 4, 7, 8, 10})
      for (const bool scaled : {false, true}) {
        CopyPool<double> pool;
        // one-column members go 8 at a time (copy_transposed_columns): 19 leaves 3 over
        const index_t members = col_len == 1 ? 19 : std::max<index_t>(1, 50 / (3 * col_len));
        for (index_t m = 0; m < members; ++m)  // source rows m * col_len..., target columns 3 apart
          pool.members.push_back(ColumnMember{m * col_len, 3 * m * col_len * ldd});
        for (index_t r = 0; r * (run_len + 1) + run_len <= 50; ++r)  // a gap of one row
          pool.runs.push_back(RowRun{r * (run_len + 2) * lds, r * (run_len + 1), run_len});
        std::vector<double> dst(static_cast<std::size_t>(ldd * 3 * members * col_len + ldd), -1.0);
        StridedCopy<double> c;
        c.src = src.data(), c.dst = dst.data(), c.lds = lds, c.ldd = ldd;
        c.runs = static_cast<index_t>(pool.runs.size()), c.members = members;
        c.col_len = col_len;
        c.transposed = true;
        if (scaled) pool.op = ElementOp<double>(Transform<double>{Op::transpose, 2.0, 0.5});
        pool.copies.push_back(c);
        std::vector<double> want = dst;
        for (const ColumnMember& m : pool.members)
          for (index_t j = 0; j < col_len; ++j)
            for (const RowRun& r : pool.runs)
              for (index_t i = 0; i < r.length; ++i) {
                const double a = src[static_cast<std::size_t>(m.src + j + r.src + i * lds)];
                double& w = want[static_cast<std::size_t>(m.dst + j * ldd + r.dst + i)];
                w = scaled ? 2.0 * a + 0.5 * w : a;
              }
        run_copies(Kokkos::DefaultHostExecutionSpace{}, pool, 0, 1);
        Kokkos::fence();
        const long b = static_cast<long>(
            std::inner_product(dst.begin(), dst.end(), want.begin(), 0L, std::plus<>(),
                               [](double x, double y) { return x != y ? 1L : 0L; }));
        INFO("col_len ", col_len, " run_len ", run_len, " scaled ", scaled);
        CHECK(b == 0);
        bad += b;
      }
  CHECK(bad == 0);
}
