// The copy kernel: streaming copies must equal memcpy for every length and alignment
// (head and tail handling), and run_copies must move exactly the blocks, with or without
// streaming stores, touching nothing around it.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy_kernel.hpp>
#include <redist/copy_program.hpp>

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

TEST_CASE("run_copies moves strided blocks exactly, streaming or not, few or many") {
  // Many blocks run one per work item, a few run column-parallel: both must copy exactly
  // the blocks and nothing else.
  const index_t lds = 37, ldd = 45, rows = 29, cols = 11;
  std::vector<double> src(static_cast<std::size_t>(lds * cols));
  std::iota(src.begin(), src.end(), 1.0);
  Kokkos::DefaultHostExecutionSpace exec;
  for (bool streaming : {false, true})
    for (index_t blocks : {1, 2, 7, 64}) {
      // Block b copies rows [b * r, (b + 1) * r) of the strip; rows split evenly-ish.
      std::vector<double> dst(static_cast<std::size_t>(ldd * (cols + 1)), -1.0);
      std::vector<BlockCopy<double>> copies;
      for (index_t b = 0; b < blocks; ++b) {
        const index_t r0 = rows * b / blocks, r1 = rows * (b + 1) / blocks;
        copies.push_back(
            {src.data() + 3 + r0, lds, dst.data() + 5 + r0, ldd, r1 - r0, cols, streaming});
      }
      run_copies(exec, copies.data(), copies.size());
      exec.fence();
      detail::streaming_fence();
      long bad = 0;
      for (index_t k = 0; k < static_cast<index_t>(dst.size()); ++k) {
        const index_t i = k % ldd - 5, j = k / ldd;
        const bool in = i >= 0 && i < rows && j < cols;
        bad += dst[static_cast<std::size_t>(k)] !=
               (in ? src[static_cast<std::size_t>(3 + i + j * lds)] : -1.0);
      }
      CAPTURE(streaming);
      CAPTURE(blocks);
      CHECK(bad == 0);
    }
}

TEST_CASE("fuse_adjacent joins copies that continue each other, and only those") {
  // A 12 x 4 column-major source and a 20 x 4 target: rows [0, 3), [3, 7), [7, 12) of the
  // source go to rows [2, 5), [5, 9), [9, 14) of the target: one 12 x 4 copy. A fourth
  // copy starting elsewhere stays on its own.
  std::vector<double> src(48), dst(80, -1.0);
  std::iota(src.begin(), src.end(), 0.0);
  std::vector<BlockCopy<double>> copies{{src.data(), 12, dst.data() + 2, 20, 3, 4},
                                        {src.data() + 3, 12, dst.data() + 5, 20, 4, 4},
                                        {src.data() + 7, 12, dst.data() + 9, 20, 5, 4},
                                        {src.data(), 12, dst.data() + 15, 20, 2, 4}};
  fuse_adjacent(copies, 0, copies.size());
  CHECK(copies[0].rows == 12);
  CHECK(copies[1].rows == 0);
  CHECK(copies[2].rows == 0);
  CHECK(copies[3].rows == 2);
  run_copies(Kokkos::DefaultHostExecutionSpace{}, copies.data(), copies.size());
  Kokkos::fence();
  long bad = 0;
  for (index_t j = 0; j < 4; ++j)
    for (index_t i = 0; i < 20; ++i) {
      const double v = dst[static_cast<std::size_t>(i + 20 * j)];
      const double want = i >= 2 && i < 14    ? src[static_cast<std::size_t>(i - 2 + 12 * j)]
                          : i >= 15 && i < 17 ? src[static_cast<std::size_t>(i - 15 + 12 * j)]
                                              : -1.0;
      bad += v != want;
    }
  CHECK(bad == 0);
  // A different leading dimension breaks the chain.
  std::vector<BlockCopy<double>> other{{src.data(), 12, dst.data(), 20, 3, 4},
                                       {src.data() + 3, 12, dst.data() + 3, 21, 3, 4}};
  fuse_adjacent(other, 0, other.size());
  CHECK(other[0].rows == 3);
  CHECK(other[1].rows == 3);
}
