#pragma once
/// @file detail/stopwatch.hpp
/// Seconds since a point, on the steady clock (set-up times, timeouts).

#include <chrono>

namespace redist::detail {

/// Seconds since it was made, on the steady clock.
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace redist::detail
