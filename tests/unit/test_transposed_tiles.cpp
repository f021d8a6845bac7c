// The host transpose under transposed copies (copy/host_transpose.hpp, detail::transpose): every
// element of blocks whose edges are tiles overlapping the line-aligned tile grid, for each
// offset of source and target in their cache lines, streaming or not, touching nothing
// around the block.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <redist/copy/host_primitives.hpp>
#include <redist/copy/host_transpose.hpp>

#include <doctest/doctest.h>

using namespace redist;

TEST_CASE("next_tile_start: whole tiles from 0 that cover every element, on the boundaries") {
  constexpr index_t B = 8;
  long bad = 0;
  for (index_t n = B; n < 6 * B; ++n)
    for (index_t h = 0; h < B; ++h) {
      std::vector<int> covered(static_cast<std::size_t>(n), 0);
      index_t prev = -1;
      for (index_t x = 0; x < n; x = detail::next_tile_start<B>(x, h, n)) {
        // Starts increase, whole tiles stay inside, and none leaves a gap.
        bad += x <= prev || x + B > n || (prev >= 0 && x > prev + B);
        // Between the first tile and the remainder, tiles sit on the line boundaries.
        bad += x != 0 && x != n - B && (x - h) % B != 0;
        for (index_t i = x; i < x + B && i < n; ++i) ++covered[static_cast<std::size_t>(i)];
        prev = x;
      }
      for (int c : covered) bad += c == 0;
    }
  CHECK(bad == 0);
}

namespace {

/// 64-byte aligned storage of n elements of T.
template <class T>
struct Aligned {
  T* p;
  explicit Aligned(std::size_t n)
      : p(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64))) {}
  ~Aligned() { std::free(p); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
};

/// Wrong elements after transpose() of a rows x cols block: B(x, y) = A(y, x), where
/// A(i, j) = src[so + j + i * lds] (op-rows i, rows of the source in memory order j) and
/// B(i, j) = dst[doff + i + j * ldd]; every other element of dst keeps its value.
template <class T>
long transpose_errors(index_t lds, index_t ldd, index_t rows, index_t cols, index_t so,
                      index_t doff, bool streaming) {
  const std::size_t ns = static_cast<std::size_t>(so + lds * rows + 64);
  const std::size_t nd = static_cast<std::size_t>(doff + ldd * cols + 64);
  Aligned<T> src(ns), dst(nd);
  for (std::size_t k = 0; k < ns; ++k) src.p[k] = T(static_cast<int>(k % 4093) + 1);
  for (std::size_t k = 0; k < nd; ++k) dst.p[k] = T(-1);
  detail::transpose(src.p + so, lds, dst.p + doff, ldd, rows, cols, streaming);
  detail::streaming_fence();
  long bad = 0;
  for (std::size_t k = 0; k < nd; ++k) {
    const index_t off = static_cast<index_t>(k) - doff;
    const index_t i = off % ldd, j = off / ldd;
    const bool inside = off >= 0 && i < rows && j < cols;
    const T want = inside ? src.p[static_cast<std::size_t>(so + j + i * lds)] : T(-1);
    bad += !(dst.p[k] == want);
  }
  return bad;
}

/// Every offset of source and target in a cache line, lds and ldd of whole lines (the
/// line-aligned grid with heads) or not, sides around multiples of the tile.
template <class T>
void check_every_offset() {
  constexpr index_t line = 64 / static_cast<index_t>(sizeof(T)) > 0 ? 64 / sizeof(T) : 1;
  const index_t sides[] = {1, line - 1, line, line + 1, 2 * line - 1, 2 * line + 3, 37, 70};
  long bad = 0;
  for (const index_t rows : sides)
    for (const index_t cols : sides)
      for (const index_t pad : {index_t{0}, index_t{3}})
        for (index_t so = 0; so < line; so += (line > 4 ? 3 : 1))
          for (index_t doff = 0; doff < line; doff += (line > 4 ? 3 : 1))
            for (const bool streaming : {false, true}) {
              // ld of whole lines: at least the side, rounded up; pad breaks the alignment.
              const index_t lds = (cols + line - 1) / line * line + pad;
              const index_t ldd = (rows + line - 1) / line * line + 2 * line + pad;
              const long b = transpose_errors<T>(lds, ldd, rows, cols, so, doff, streaming);
              if (b) {
                INFO("rows ", rows, " cols ", cols, " lds ", lds, " ldd ", ldd, " so ", so,
                     " doff ", doff, " streaming ", streaming);
                CHECK(b == 0);
              }
              bad += b;
            }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("transpose: every element at every line offset, edges as overlapping tiles", T,
                   double, float, std::int32_t, std::int64_t, std::complex<float>,
                   std::complex<double>) {
  check_every_offset<T>();
}

TEST_CASE_TEMPLATE("transpose: long runs of op-rows, streaming or not, odd remainders", T, double,
                   float, std::complex<double>) {
  // Hundreds of tile rows in one call (a run as long as a ScaLAPACK block), a remainder
  // tile that overlaps its neighbour, a target one element off its lines.
  constexpr index_t line = 64 / static_cast<index_t>(sizeof(T));
  long bad = 0;
  for (const index_t rows : {64 * line, 64 * line + 5, 130 * line + 3})
    for (const index_t cols : {line, index_t{37}})
      for (const index_t doff : {index_t{0}, index_t{1}})
        for (const bool streaming : {false, true}) {
          const index_t lds = (cols + line - 1) / line * line;
          const index_t ldd = (rows + line - 1) / line * line + line;
          const long b = transpose_errors<T>(lds, ldd, rows, cols, 1, doff, streaming);
          if (b) INFO("rows ", rows, " cols ", cols, " doff ", doff, " streaming ", streaming);
          CHECK(b == 0);
          bad += b;
        }
  CHECK(bad == 0);
}
