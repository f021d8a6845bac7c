// Stitched streaming stores (copy/stitched_stores.hpp) and the copies they serve
// (engine/stitched_runs.hpp, copy/host_walkers.hpp). Runs of every length and alignment,
// continuing each other in the target or not, must land exactly where plain copies put
// them, nothing else written; a partial line waits only until flush() or the next run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <redist/copy/host_primitives.hpp>
#include <redist/copy/host_walkers.hpp>
#include <redist/copy/stitched_stores.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/engine/stitched_runs.hpp>

#include <doctest/doctest.h>

using namespace redist;

namespace {

constexpr double untouched = -1;

/// A target of n doubles, all `untouched`, whose first element is `offset` doubles past a
/// 64-byte boundary (so that runs start at every position in a line); 16 spare elements.
struct Target {
  std::vector<double> storage;
  double* base;
  Target(std::size_t n, std::size_t offset) : storage(n + 16, untouched) {
    auto at = reinterpret_cast<std::uintptr_t>(storage.data());
    base = storage.data() + ((64 - at % 64) % 64) / sizeof(double) + offset;
  }
};

double value(index_t i) { return 0.5 + static_cast<double>(i); }

}  // namespace

TEST_CASE("StitchedStores: runs of every length and alignment land as plain copies do") {
  std::mt19937 gen(7);
  std::vector<double> src(4096);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = value(static_cast<index_t>(i));
  for (std::size_t offset = 0; offset < 8; ++offset)
    for (int trial = 0; trial < 40; ++trial) {
      Target got(3000, offset), want(3000, offset);
      // Runs one after another in the target: most continue the one before, some leave a
      // gap; lengths from 1 element to many lines.
      index_t at = 0, from = 0;
      {
        detail::StitchedStores stores;
        while (true) {
          const index_t gap = gen() % 4 == 0 ? static_cast<index_t>(gen() % 11) : 0;
          const index_t n = 1 + static_cast<index_t>(gen() % (trial % 2 ? 40 : 130));
          if (at + gap + n > 2900 || from + n > 4000) break;
          at += gap;
          stores.put(got.base + at, src.data() + from, n);
          std::copy_n(src.data() + from, n, want.base + at);
          at += n;
          from += n + static_cast<index_t>(gen() % 3);
        }
        stores.flush();
        stores.flush();  // a second flush writes nothing again
      }
      redist::detail::streaming_fence();
      CHECK(std::equal(got.base - offset, got.base + 3000, want.base - offset));
    }
}

TEST_CASE("StitchedStores: a run that continues a pending line completes it; another flushes it") {
  std::vector<double> src(64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = value(static_cast<index_t>(i));
  Target got(64, 0);
  detail::StitchedStores stores;
  stores.put(got.base, src.data(), 3);          // 24 bytes pending in line 0
  CHECK(got.base[0] == untouched);              // not written yet
  stores.put(got.base + 3, src.data() + 3, 7);  // completes line 0, 16 bytes pending in line 1
  redist::detail::streaming_fence();
  for (int i = 0; i < 8; ++i) CHECK(got.base[i] == value(i));
  CHECK(got.base[8] == untouched);
  stores.put(got.base + 20, src.data() + 20, 2);  // elsewhere: line 1's pending bytes written
  CHECK(got.base[8] == value(8));
  CHECK(got.base[9] == value(9));
  CHECK(got.base[10] == untouched);
  stores.flush();
  CHECK(got.base[20] == value(20));
  CHECK(got.base[21] == value(21));
}

TEST_CASE("StitchedRuns: case a's runs in family order become target order, and stitch") {
  // Source rows 0..799 of a column in runs of 100, every other one to this target: family
  // order lists each period's pieces (period 400 rows here) before the next period's.
  std::vector<RowRun> runs = {{0, 0, 100}, {400, 200, 100}, {200, 100, 100}, {600, 300, 100}};
  StridedCopy<double> c;
  c.run_first = 0;
  c.runs = 4;
  engine::StitchedRuns stitched;
  CHECK(stitched.order(c, runs));
  for (std::size_t r = 0; r < runs.size(); ++r) {
    CHECK(runs[r].dst == static_cast<index_t>(100 * r));
    CHECK(runs[r].src == static_cast<index_t>(200 * r));
  }
  // The same list again (the next copy sharing it): the same answer, nothing changed.
  CHECK(stitched.order(c, runs));
  CHECK(runs[1].src == 200);
}

TEST_CASE("StitchedRuns: runs that seldom continue, or whose source goes back, stay as they are") {
  engine::StitchedRuns stitched;
  StridedCopy<double> c;
  c.run_first = 0;
  c.runs = 3;
  std::vector<RowRun> gaps = {{0, 0, 10}, {20, 20, 10}, {40, 40, 10}};  // no run continues
  CHECK_FALSE(stitched.order(c, gaps));
  StridedCopy<double> d = c;
  d.run_first = 3;
  std::vector<RowRun> back = {{0, 0, 1},   {0, 0, 1},   {0, 0, 1},      // copy c's place, unused
                              {50, 0, 10}, {0, 10, 10}, {20, 20, 10}};  // source goes back
  const std::vector<RowRun> before = back;
  CHECK_FALSE(stitched.order(d, back));
  CHECK(std::equal(back.begin(), back.end(), before.begin(), [](const RowRun& x, const RowRun& y) {
    return x.src == y.src && x.dst == y.dst && x.length == y.length;
  }));
  StridedCopy<double> t = c;
  t.transposed = true;  // a transposed source has no front-to-back order to keep
  std::vector<RowRun> transposed = {{0, 0, 10}, {10, 10, 10}, {20, 20, 10}};
  CHECK_FALSE(stitched.order(t, transposed));
  StridedCopy<double> one = c;
  one.runs = 1;  // one run: nothing to stitch
  CHECK_FALSE(stitched.order(one, transposed));
}

TEST_CASE("host walker: a stitched copy writes what a run-by-run copy writes") {
  // 300 x 5 source (ld 307), runs of 25 rows, every other one, packed one after another
  // in a target column (ld 160): the runs continue each other mid-line.
  constexpr index_t M = 300, lds = 307, ldd = 160, cols = 5, R = 25;
  std::vector<double> src(static_cast<std::size_t>(lds * cols));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = value(static_cast<index_t>(i));
  CopyPool<double> pool;
  for (index_t r = 1, packed = 0; r * R < M; r += 2, packed += R)
    pool.runs.push_back(RowRun{r * R, packed, R});
  pool.members.push_back(ColumnMember{0, 0});
  for (const bool stitched : {false, true}) {
    Target got(static_cast<std::size_t>(ldd * cols), 3);
    StridedCopy<double> c;
    c.src = src.data();
    c.dst = got.base;
    c.lds = lds;
    c.ldd = ldd;
    c.runs = static_cast<index_t>(pool.runs.size());
    c.members = 1;
    c.col_len = cols;
    c.streaming = stitched;
    c.stitched = stitched;
    for (index_t j = 0; j < cols; ++j)
      redist::detail::copy_column(c, pool.runs.data(), pool.members.data(), j, Assign{});
    redist::detail::streaming_fence();
    long wrong = 0;
    for (index_t j = 0; j < cols; ++j)
      for (index_t i = 0; i < ldd; ++i) {
        const index_t packed = i / R, row = (2 * packed + 1) * R + i % R;
        const double want = i < 6 * R ? src[static_cast<std::size_t>(row + j * lds)] : untouched;
        wrong += got.base[i + j * ldd] != want;
      }
    CHECK(wrong == 0);
  }
}
