// The copy kernel: streaming copies must equal memcpy for every length and alignment
// (head and tail handling), and copy_block must move exactly the block, with or without
// streaming stores, touching nothing around it.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy_kernel.hpp>

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

TEST_CASE("copy_block moves a strided block exactly, streaming or not") {
  const index_t lds = 37, ldd = 45, rows = 29, cols = 11;
  std::vector<double> src(static_cast<std::size_t>(lds * cols));
  std::iota(src.begin(), src.end(), 1.0);
  for (bool streaming : {false, true}) {
    std::vector<double> dst(static_cast<std::size_t>(ldd * (cols + 1)), -1.0);
    const BlockCopy<double> c{src.data() + 3, lds, dst.data() + 5, ldd, rows, cols, streaming};
    copy_block<Kokkos::HostSpace>(c);
    detail::streaming_fence();
    long bad = 0;
    for (index_t k = 0; k < static_cast<index_t>(dst.size()); ++k) {
      const index_t i = k % ldd - 5, j = k / ldd;
      const bool in = i >= 0 && i < rows && j < cols;
      bad += dst[static_cast<std::size_t>(k)] !=
             (in ? src[static_cast<std::size_t>(3 + i + j * lds)] : -1.0);
    }
    CAPTURE(streaming);
    CHECK(bad == 0);
  }
}
