#pragma once
/// @file bench/compute_units.hpp
/// The caller's work that overlap runs put between start() and wait(): units of about
/// 100 µs of DAXPY on two cache-resident vectors, calibrated in the same run.

#include <cmath>
#include <vector>

#include "bench.hpp"

namespace bench {

/// y += a x on vectors that stay in cache; `reps` passes make one unit.
struct Daxpy {
  std::vector<double> x = std::vector<double>(2048, 1.0);
  std::vector<double> y = std::vector<double>(2048, 0.0);
  int reps = 1;
  void unit() {
    const double a = 1e-9;
    double* __restrict yp = y.data();
    const double* __restrict xp = x.data();
    const std::size_t n = x.size();
    for (int r = 0; r < reps; ++r) {
      for (std::size_t i = 0; i < n; ++i) yp[i] += a * xp[i];
      // Keep the compiler from fusing passes.
      asm volatile("" : : "r"(yp) : "memory");
    }
  }
};

/// Calibrates `d.reps` so one unit takes about `target` seconds on every rank (the
/// slowest rank's speed decides); returns the unit's duration (max over ranks), measured
/// over batches of 50 units (a few ms, like the compute phases, so that the time the rank
/// is not scheduled counts as it will there), median of 10 batches.
inline double calibrate(const mpi::communicator& comm, Daxpy& d, double target) {
  d.reps = 1;
  for (int k = 0; k < 5; ++k) d.unit();  // warm the cache
  const int probe = 2000;
  const double t0 = now();
  for (int k = 0; k < probe; ++k) d.unit();
  const double per_rep = max_over(comm, (now() - t0) / probe);
  d.reps = std::max(1, static_cast<int>(std::lround(target / per_rep)));
  const int batch = 50;
  std::vector<double> t;
  for (int k = 0; k < 10; ++k) {
    const double t1 = now();
    for (int u = 0; u < batch; ++u) d.unit();
    t.push_back((now() - t1) / batch);
  }
  return max_over(comm, median_of(t));
}

}  // namespace bench
