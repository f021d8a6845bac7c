/// @file bench/streaming_order.cpp
/// Streaming stores (copy/host_primitives.hpp) into the same pieces in two orders: one
/// rank re-blocking a ScaLAPACK-stored matrix whose row layout is the same on both sides
/// (1024-row source blocks, 32-row target blocks, columns of 8192 doubles). Bound as the
/// host binds it, a column is 256 runs taken family by family (every 1024-row block's
/// k-th piece, then the (k+1)-th: eight interleaved streams); merged in target order it
/// is one run of 64 KiB. Also memcpy of the same bytes. Results in bench/README.md
/// ("Device copies").
///
///   build/bench/streaming_order [MiB repeat]
///
/// Prints the median seconds of each over `repeat` passes (default 512 MiB, 7).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <redist/copy/host_primitives.hpp>

namespace {

constexpr std::size_t column = 65536;  // 8192 doubles
constexpr std::size_t piece = 256;     // 32 doubles
constexpr std::size_t blocks = 8;      // 1024-row source blocks per column

template <class F>
double median_seconds(int repeat, F&& pass) {
  std::vector<double> t;
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = (argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512) << 20;
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 7;
  if (bytes < column || repeat < 1) {
    std::fprintf(stderr, "usage: streaming_order [MiB >= 1] [repeat >= 1]\n");
    return 2;
  }
  const std::size_t n = bytes / column * column;
  // Page-aligned, as Kokkos' allocations are at least line-aligned: a piece that starts
  // inside a cache line has a head and a tail written with ordinary stores.
  const std::unique_ptr<char, decltype(&std::free)> src(
      static_cast<char*>(std::aligned_alloc(4096, n)), &std::free),
      dst(static_cast<char*>(std::aligned_alloc(4096, n)), &std::free);
  if (!src || !dst) {
    std::fprintf(stderr, "streaming_order: cannot allocate 2 x %zu bytes\n", n);
    return 1;
  }
  char* const d = dst.get();
  const char* const s = src.get();
  std::memset(d, 2, n);
  std::memset(src.get(), 1, n);
  const double families = median_seconds(repeat, [&] {
    for (std::size_t c = 0; c < n; c += column)
      for (std::size_t k = 0; k < column / piece / blocks; ++k)
        for (std::size_t b = 0; b < blocks; ++b) {
          const std::size_t at = c + (k + b * column / piece / blocks) * piece;
          redist::detail::copy_streaming(d + at, s + at, piece);
        }
    redist::detail::streaming_fence();
  });
  const double merged = median_seconds(repeat, [&] {
    for (std::size_t c = 0; c < n; c += column)
      redist::detail::copy_streaming(d + c, s + c, column);
    redist::detail::streaming_fence();
  });
  const double plain = median_seconds(repeat, [&] { std::memcpy(d, s, n); });
  std::printf("%zu MiB, median of %d\n", n >> 20, repeat);
  std::printf("streamed, families' order (256 B pieces): %.4f s  %.1f GB/s\n", families,
              static_cast<double>(n) / families * 1e-9);
  std::printf("streamed, merged (one 64 KiB run a column): %.4f s  %.1f GB/s\n", merged,
              static_cast<double>(n) / merged * 1e-9);
  std::printf("memcpy:                                     %.4f s  %.1f GB/s\n", plain,
              static_cast<double>(n) / plain * 1e-9);
  return 0;
}
