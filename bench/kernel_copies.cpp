/// @file bench/kernel_copies.cpp
/// Microbenchmark of run_copies on the host: blk x blk blocks of an n x n column-major
/// matrix (ld n) into another (ld n + 8, so a block is never one contiguous run), one
/// StridedCopy per block, as separate tile segments bind. Plain, scaled (alpha = 2,
/// beta = 0 and beta = 0.5) and transposed copies, double and complex<double>, against
/// memcpy of the same bytes. The default execution space's threads; results in
/// bench/README.md ("Copy programs").
///
///   build/bench/kernel_copies [n blk repeat]
///
/// Prints median seconds, GB/s (bytes read from the source) and the best call's seconds
/// per variant.

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>

#include "kernel_timing.hpp"

namespace {

using bench::sorted_seconds;
using redist::index_t;

/// alpha and beta of a variant; scaled: through the scaled path.
struct Variant {
  const char* name;
  bool transposed, scaled;
  double alpha, beta;
};

template <class T>
void run_variants(const char* type, index_t n, index_t blk, int repeat) {
  const index_t lds = n, ldd = n + 8, blocks = n / blk;
  std::vector<T> a(static_cast<std::size_t>(lds * n)), b(static_cast<std::size_t>(ldd * n));
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = T(static_cast<double>(k % 1000));
  const double gb =
      static_cast<double>(blocks * blk) * static_cast<double>(blocks * blk) * sizeof(T) / 1e9;
  // Median (and GB/s at it), and the best call: a loaded machine shows in the median.
  const auto report = [&](const std::string& name, const std::vector<double>& t) {
    const double s = t[t.size() / 2];
    std::printf("%-16s %-28s %10.5f s %7.2f GB/s  best %10.5f s\n", type, name.c_str(), s, gb / s,
                t.front());
  };
  report("memcpy", sorted_seconds(repeat, [&] {
           std::memcpy(b.data(), a.data(), static_cast<std::size_t>(gb * 1e9));
         }));
  // clang-format off
  const Variant variants[] = {
    // name                          transposed scaled alpha beta
    {"plain",                        false,     false, 1.0,  0.0},
    {"scaled a=2 b=0",               false,     true,  2.0,  0.0},
    {"scaled a=2 b=0.5",             false,     true,  2.0,  0.5},
    {"transposed",                   true,      false, 1.0,  0.0},
    {"transposed scaled a=2 b=0.5",  true,      true,  2.0,  0.5},
  };
  // clang-format on
  const Kokkos::DefaultHostExecutionSpace exec;
  for (const Variant& v : variants) {
    redist::CopyPool<T> pool;
    if (v.scaled)
      pool.op = redist::ElementOp<T>(redist::Transform<T>{
          v.transposed ? redist::Op::transpose : redist::Op::none, T(v.alpha), T(v.beta)});
    pool.runs.push_back(redist::RowRun{0, 0, blk});
    for (index_t bj = 0; bj < blocks; ++bj)
      for (index_t bi = 0; bi < blocks; ++bi) {
        // Target block (bi, bj) from source block (bi, bj), or (bj, bi) read transposed.
        const index_t src = v.transposed ? bj * blk + bi * blk * lds : bi * blk + bj * blk * lds;
        pool.members.push_back(redist::ColumnMember{src, bi * blk + bj * blk * ldd});
        pool.copies.push_back(redist::StridedCopy<T>{
            .src = a.data(),
            .dst = b.data(),
            .lds = lds,
            .ldd = ldd,
            .run_first = 0,
            .runs = 1,
            .member_first = static_cast<index_t>(pool.members.size()) - 1,
            .members = 1,
            .col_len = blk,
            .transposed = v.transposed,
        });
      }
    report(v.name, sorted_seconds(repeat, [&] {
             redist::run_copies(exec, pool, 0, pool.copies.size());
             exec.fence();
           }));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto arg = [&](int k, index_t d) { return argc > k ? std::atol(argv[k]) : d; };
  const index_t n = arg(1, 4096), blk = arg(2, 32);
  const int repeat = static_cast<int>(arg(3, 9));
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::printf("n %ld, blocks %ld x %ld, repeat %d\n", static_cast<long>(n), static_cast<long>(blk),
              static_cast<long>(blk), repeat);
  run_variants<double>("double", n, blk, repeat);
  run_variants<std::complex<double>>("complex<double>", n, blk, repeat);
}
