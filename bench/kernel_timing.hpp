#pragma once
/// @file bench/kernel_timing.hpp
/// Timing of the one-process kernel microbenchmarks (kernel_*.cpp): seconds per call,
/// after one warm-up call (page faults, caches).

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace bench {

/// Seconds of each of `repeat` calls of f, shortest first.
inline std::vector<double> sorted_seconds(int repeat, const std::function<void()>& f) {
  std::vector<double> t;
  f();
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t;
}

/// Median seconds of `repeat` calls of f. @pre repeat >= 1
inline double median_seconds(int repeat, const std::function<void()>& f) {
  const std::vector<double> t = sorted_seconds(repeat, f);
  return t[t.size() / 2];
}

}  // namespace bench
