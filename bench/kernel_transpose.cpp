/// @file bench/kernel_transpose.cpp
/// Microbenchmark of the host transposed copy (copy/host_transpose.hpp, detail::transpose and
/// the scaled path) against the memory bound measured in the same run: memcpy and
/// streaming memcpy of the same bytes. One core, one matrix; the transpose is called in
/// runs of `run` source columns, as a copy program calls it (case a: runs of 100).
///
///   bench-kernel_transpose [M N run blk repeat lda ldb b_off types]
///
/// The variants run round after round, each once per round, so that all see the same
/// load. Prints median seconds, GB/s (bytes read) and the fraction of memcpy's speed (the
/// floor) per variant.

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <redist/copy/element_op.hpp>
#include <redist/copy/host_primitives.hpp>
#include <redist/copy/host_transpose.hpp>

namespace {

using redist::index_t;

/// Reference: scalar 8 x 8 tiles through a local array, in 64 x 64 panels (source
/// rows outer): what the compiler makes of a plain tiled loop.
template <class T>
void transpose_scalar_tiles(const T* s, index_t lds, T* d, index_t ldd, index_t rows,
                            index_t cols) {
  constexpr index_t B = 8, P = 64;
  for (index_t i1 = 0; i1 < rows; i1 += P)
    for (index_t j1 = 0; j1 < cols; j1 += P) {
      const index_t i_end = std::min(rows, i1 + P), j_end = std::min(cols, j1 + P);
      for (index_t j0 = j1; j0 < j_end; j0 += B)
        for (index_t i0 = i1; i0 < i_end; i0 += B) {
          const T* sb = s + i0 * lds + j0;
          T* db = d + j0 * ldd + i0;
          const index_t ni = std::min(B, i_end - i0), nj = std::min(B, j_end - j0);
          if (ni == B && nj == B) {
            T tile[B][B];
            for (index_t i = 0; i < B; ++i)
              for (index_t j = 0; j < B; ++j) tile[j][i] = sb[i * lds + j];
            for (index_t j = 0; j < B; ++j)
              for (index_t i = 0; i < B; ++i) db[j * ldd + i] = tile[j][i];
          } else {
            for (index_t j = 0; j < nj; ++j)
              for (index_t i = 0; i < ni; ++i) db[j * ldd + i] = sb[i * lds + j];
          }
        }
    }
}

/// Calls f(source block, target block, rows, cols) for the blocks of `run` source columns
/// by `blk` source rows, target block columns outer (the order of a copy program).
template <class T, class F>
void for_blocks(index_t M, index_t N, index_t run_len, index_t blk, const T* a, index_t lda, T* b,
                index_t ldb, F&& f) {
  for (index_t c0 = 0; c0 < M; c0 += blk)
    for (index_t r0 = 0; r0 < N; r0 += run_len)
      f(a + r0 * lda + c0, b + c0 * ldb + r0, std::min(run_len, N - r0), std::min(blk, M - c0));
}

template <class T>
void run(const char* type, index_t M, index_t N, index_t run_len, index_t blk, int repeat,
         index_t lda, index_t ldb, index_t b_off) {
  // A is M x N (ld lda), B = A^T is N x M (ld ldb).
  std::vector<T> a(static_cast<std::size_t>(lda * N)),
      b_store(static_cast<std::size_t>(ldb * M + b_off));
  // The target starts b_off elements into its allocation (a buffer offset).
  const std::span<T> b(b_store.data() + b_off, static_cast<std::size_t>(ldb * M));
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = T(static_cast<double>(k % 1000003));
  const double bytes = static_cast<double>(M * N) * sizeof(T);
  const auto check = [&](const std::string& name) {
    long bad = 0;
    for (index_t j = 0; j < N; j += 7)
      for (index_t i = 0; i < M; i += 3)
        bad += b[static_cast<std::size_t>(j + i * ldb)] != a[static_cast<std::size_t>(i + j * lda)];
    if (bad) std::printf("  %s: %ld WRONG\n", name.c_str(), bad);
  };
  // Variants: name, one call, and whether it transposes (then checked).
  struct Variant {
    std::string name;
    std::function<void()> call;
    bool transposes;
  };
  std::vector<Variant> variants;
  variants.push_back({"memcpy", [&] { std::memcpy(b.data(), a.data(), bytes); }, false});
  variants.push_back({"memcpy streaming",
                      [&] {
                        redist::detail::copy_streaming(b.data(), a.data(),
                                                       static_cast<std::size_t>(bytes));
                        redist::detail::streaming_fence();
                      },
                      false});
  // The blocks through f(source block, target block, rows, cols).
  const auto blocks = [&](const std::string& name, auto f) {
    variants.push_back({name,
                        [&, f] {
                          for_blocks(M, N, run_len, blk, a.data(), lda, b.data(), ldb, f);
                          redist::detail::streaming_fence();
                        },
                        true});
  };
  blocks("scalar tiles", [&](const T* s, T* d, index_t rows, index_t cols) {
    transpose_scalar_tiles(s, lda, d, ldb, rows, cols);
  });
  for (const bool streaming : {false, true})
    blocks(streaming ? "transpose streaming" : "transpose",
           [&, streaming](const T* s, T* d, index_t rows, index_t cols) {
             redist::detail::transpose(s, lda, d, ldb, rows, cols, streaming);
           });
  // The scaled path (alpha = 1, beta = 0 through the scaled loop all the same), its
  // operation fixed as a copy runner fixes it (copy/run_copies.hpp).
  const redist::ElementOp<T> op(redist::Transform<T>{redist::Op::transpose, T(1), T(0)});
  redist::detail::with_fixed_op(op, [&](auto fixed) {
    blocks("transpose scaled (a=1,b=0)", [&, fixed](const T* s, T* d, index_t rows, index_t cols) {
      redist::detail::transpose(s, lda, d, ldb, rows, cols, false, fixed);
    });
  });
  for (const Variant& v : variants)
    if (v.transposes) {
      std::fill(b.begin(), b.end(), T(0));
      v.call();
      check(v.name);
    }
  // Round after round, every variant once per round, so that all see the same load, from
  // a first variant that moves by one each round (the place in a round measured up to 1.5x
  // apart). Each call finds the target as an untimed memcpy into it leaves it: in cache,
  // whatever the variant before it did (a streaming one leaves it in memory).
  std::vector<std::vector<double>> seconds(variants.size());
  for (const Variant& v : variants) v.call();  // warm-up: page faults, caches
  for (int r = 0; r < repeat; ++r)
    for (std::size_t n = 0; n < variants.size(); ++n) {
      const std::size_t k = (n + static_cast<std::size_t>(r)) % variants.size();
      std::memcpy(b.data(), a.data(), static_cast<std::size_t>(bytes));
      const auto t0 = std::chrono::steady_clock::now();
      variants[k].call();
      seconds[k].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  const auto median = [](std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  // The floor: memcpy of the same bytes; each variant also as a fraction of its speed.
  const double floor_s = median(seconds[0]);
  for (std::size_t k = 0; k < variants.size(); ++k) {
    const double s = median(seconds[k]);
    std::printf("%-8s %-28s %9.4f s %7.2f GB/s %5.2f of memcpy\n", type, variants[k].name.c_str(),
                s, bytes / s * 1e-9, floor_s / s);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  // Defaults: case a's transposed packing on rank 0 (runs of 100 op-rows by 100 columns,
  // source ld 8192, buffer ld 2048, the buffer one element off a cache line).
  const auto arg = [&](int k, index_t d) { return argc > k ? std::atol(argv[k]) : d; };
  const index_t M = arg(1, 8192), N = arg(2, 4096), run_len = arg(3, 100), blk = arg(4, 100);
  const int repeat = static_cast<int>(arg(5, 7));
  const index_t lda = arg(6, M), ldb = arg(7, N), b_off = arg(8, 1);
  const std::string types = argc > 9 ? argv[9] : "dfz";
  std::printf("A %ld x %ld (ld %ld), B ld %ld (+%ld), blocks %ld x %ld, median of %d\n",
              static_cast<long>(M), static_cast<long>(N), static_cast<long>(lda),
              static_cast<long>(ldb), static_cast<long>(b_off), static_cast<long>(run_len),
              static_cast<long>(blk), repeat);
  const auto has = [&](char t) { return types.find(t) != std::string::npos; };
  if (has('d')) run<double>("double", M, N, run_len, blk, repeat, lda, ldb, b_off);
  if (has('f')) run<float>("float", M, N, run_len, blk, repeat, lda, ldb, b_off);
  if (has('z'))
    run<std::complex<double>>("zcomplex", M, N / 2, run_len, blk, repeat, lda, ldb / 2, b_off);
  return 0;
}
