#pragma once
/// @file distributions/random.hpp
/// Random distribution (Cao et al. 2021, section 6.1, Fig. 5b): each tile's owner is
/// drawn uniformly over the ranks from a seed. The generator is our own counter-based
/// hash (splitmix64 finaliser of seed, m, n), so every rank and every platform computes
/// the same owner for the same tile without storing a table.

#include <cstdint>

#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>

namespace redist {

class RandomDistribution {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @throws distribution_error if ranks <= 0.
  constexpr RandomDistribution(int ranks, std::uint64_t seed) : ranks_(ranks), seed_(seed) {
    if (ranks <= 0)
      throw distribution_error(detail::describe("rank count must be positive", "ranks", ranks));
  }

  constexpr int ranks() const { return ranks_; }
  constexpr std::uint64_t seed() const { return seed_; }
  constexpr int owner(TileIndex t) const {
    std::uint64_t h = mix(seed_ ^ 0x243F6A8885A308D3ull);
    h = mix(h ^ static_cast<std::uint64_t>(t.m));
    h = mix(h ^ (static_cast<std::uint64_t>(t.n) * 0x9E3779B97F4A7C15ull));
    // Multiply-high maps 64 random bits onto [0, ranks) without modulo bias worth noting.
    __extension__ using u128 = unsigned __int128;
    return static_cast<int>((static_cast<u128>(h) * static_cast<unsigned>(ranks_)) >> 64);
  }
  /// Exact: rank count and seed (fingerprint.hpp).
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x52414E44ull).add(ranks_).add(seed_).value();  // "RAND"
  }
  friend constexpr bool operator==(const RandomDistribution&, const RandomDistribution&) = default;

 private:
  static constexpr std::uint64_t mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int ranks_;
  std::uint64_t seed_;
};

}  // namespace redist
