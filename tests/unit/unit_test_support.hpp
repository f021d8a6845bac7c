#pragma once
// Helpers shared by the unit tests.
#include <cstdint>
#include <random>
#include <string>

#include <redist/index.hpp>

namespace redist::test {

/// Reproducible integers: mt19937_64's output is specified by the standard, and so is this
/// mapping (std::uniform_int_distribution's is not).
struct Rng {
  std::mt19937_64 engine;
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  /// Uniform-ish in [lo, hi] (modulo bias is irrelevant here).
  index_t in(index_t lo, index_t hi) {
    return lo + static_cast<index_t>(engine() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return in(0, 99) < percent; }
};

/// The what() of the E that f throws, or "<no exception>".
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no exception>";
}

}  // namespace redist::test
