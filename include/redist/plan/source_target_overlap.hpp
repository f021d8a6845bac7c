#pragma once
/// @file plan/source_target_overlap.hpp
/// The memory check of one part (part.hpp, check_matrices): no source allocation may share
/// a byte with a target allocation. Compared pair by pair that is A x B allocation pairs,
/// 27 million at 16384^2 in tiles of 256^2 and 100^2 on 2 ranks (a tile per allocation),
/// most of the plan's time there; here it is O((A + B) log B), and it names the same pair
/// the pair-by-pair check names: the first source allocation meeting any target, then the
/// first target allocation it meets. Pure: byte ranges in, no Kokkos, no MPI.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <redist/config.hpp>

namespace redist::detail {

/// An allocation as the byte range [first, second); an empty range meets nothing.
using ByteRange = std::pair<std::uintptr_t, std::uintptr_t>;

struct SourceTargetOverlap {
  /// (source index, target index) of the first overlapping pair, if any.
  std::optional<std::pair<std::size_t, std::size_t>> pair;
  /// Work done: comparisons (sort, binary searches) plus ranges visited. A test asserts it
  /// stays O((A + B) log B), so a pairwise check coming back is caught without a clock.
  index_t steps = 0;
};

/// The first pair (a, b), in the order of `for a: for b:`, with src[a] and dst[b] sharing
/// a byte.
inline SourceTargetOverlap find_source_target_overlap(const std::vector<ByteRange>& src,
                                                      const std::vector<ByteRange>& dst) {
  SourceTargetOverlap out;
  index_t& steps = out.steps;
  const auto meets = [](const ByteRange& x, const ByteRange& y) {
    return x.first < x.second && y.first < y.second && x.first < y.second && y.first < x.second;
  };
  // The targets' union, sorted and disjoint: a source meets a target iff it meets the union.
  std::vector<ByteRange> merged;
  merged.reserve(dst.size());
  for (const ByteRange& d : dst)
    if (d.first < d.second) merged.push_back(d);
  steps += static_cast<index_t>(dst.size());
  std::sort(merged.begin(), merged.end(), [&](const ByteRange& x, const ByteRange& y) {
    ++steps;
    return x.first < y.first;
  });
  std::size_t n = 0;
  for (const ByteRange& d : merged) {
    if (n > 0 && d.first < merged[n - 1].second)
      merged[n - 1].second = std::max(merged[n - 1].second, d.second);
    else
      merged[n++] = d;
  }
  merged.resize(n);
  for (std::size_t a = 0; a < src.size(); ++a) {
    const ByteRange& s = src[a];
    ++steps;
    if (s.first >= s.second) continue;
    // The first merged range ending after s begins; s meets the union iff that one begins
    // before s ends.
    const auto it = std::partition_point(merged.begin(), merged.end(), [&](const ByteRange& m) {
      ++steps;
      return m.second <= s.first;
    });
    if (it == merged.end() || it->first >= s.second) continue;
    for (std::size_t b = 0; b < dst.size(); ++b) {
      ++steps;
      if (meets(s, dst[b])) {
        out.pair = std::pair{a, b};
        return out;
      }
    }
  }
  return out;
}

}  // namespace redist::detail
