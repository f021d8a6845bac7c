// interleaved_pieces_probe: what case a's copies cost when nothing keeps their source in the
// cache (bench/README.md, "Pieces in the cache"). A 256 MiB source of 256-row double
// columns is cut into pieces of R rows that alternate between two copies, as case a's
// 100-row pieces alternate between the local copy and the pack; each copy is a pass of its
// own over the whole source, one after the other, so the second finds none of the columns
// in the cache. Each round also times one memcpy of the same bytes, right before, and
// prints both rates and pieces time / memcpy time. No MPI, no redist; run one per core:
//
//   g++ -O2 -o /tmp/interleaved_pieces_probe bench/interleaved_pieces_probe.cpp
//   mpirun -np 2 /tmp/interleaved_pieces_probe [R]        # R: rows a piece, default 100
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const std::size_t bytes = std::size_t{256} << 20, column = 256 * sizeof(double);
  const long rows = argc > 1 ? std::atol(argv[1]) : 100;
  if (rows < 1 || rows > 256) {
    std::fprintf(stderr, "interleaved_pieces_probe: R = %ld: must be 1 .. 256\n", rows);
    return 2;
  }
  const std::size_t piece = static_cast<std::size_t>(rows) * sizeof(double);
  std::vector<char> source(bytes, 1), first(bytes, 0), second(bytes, 0);
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  for (int round = 0; round < 6; ++round) {
    const auto t0 = clock::now();
    std::memcpy(first.data(), source.data(), bytes);
    const auto t1 = clock::now();
    for (int copy = 0; copy < 2; ++copy) {
      char* to = copy == 0 ? first.data() : second.data();
      for (std::size_t at = 0; at < bytes; at += column)
        for (std::size_t row = 0, k = 0; row < column; row += piece, ++k) {
          if (static_cast<int>(k % 2) != copy) continue;
          const std::size_t n = std::min(piece, column - row);
          std::memcpy(to, source.data() + at + row, n);
          to += n;
        }
    }
    const auto t2 = clock::now();
    std::printf("memcpy %.1f GB/s, pieces of %ld rows %.1f GB/s: %.2fx memcpy's time\n",
                static_cast<double>(bytes) / seconds(t0, t1) * 1e-9, rows,
                static_cast<double>(bytes) / seconds(t1, t2) * 1e-9,
                seconds(t1, t2) / seconds(t0, t1));
  }
  return 0;
}
