#pragma once
/// @file plan/part_overlaps.hpp
/// The memory check of a move of several parts (Redistributor's parts): no part's target
/// may share a byte with another part's target or source. Compared pair by pair that is
/// O(K^2) allocation pairs for K parts; here it is a sorted sweep, O(n log n) for n
/// allocations, and it names the same pair the pair-by-pair check names:
///
///   for k, for l != k, for each target allocation a of part k (in order):
///     a meets a target allocation of l -> (k, l, a, target), else
///     a meets a source allocation of l -> (k, l, a, source)
///
/// i.e. the least k with any overlap, then the least l it meets, then the first of k's
/// target allocations meeting l, a target of l before a source. Pure: byte ranges in, no
/// Kokkos, no MPI.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <redist/compiled_engine.hpp>
#include <redist/config.hpp>

namespace redist::detail {

/// One allocation of one part as the byte range [begin, end); empty ranges meet nothing.
struct PartSpan {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  index_t part = 0;     ///< index of the part
  index_t alloc = 0;    ///< index among the part's target (or source) allocations
  bool target = false;  ///< a target allocation (else a source one)
};

/// Part k's target allocation `alloc` overlaps part l's targets (`target`) or sources.
struct PartOverlap {
  index_t k = 0;
  index_t l = 0;
  index_t alloc = 0;
  bool target = false;
  friend constexpr bool operator==(const PartOverlap&, const PartOverlap&) = default;
};

struct PartOverlapResult {
  std::optional<PartOverlap> overlap;  ///< the pair the pair-by-pair check names, if any
  /// Work done: comparisons (sorts, binary searches) plus ranges visited. A test asserts it
  /// stays O(n log n), so a pairwise check coming back is caught without a clock.
  index_t steps = 0;
};

/// The first offending pair of `spans` (see the file comment), in O(n log n).
/// @post overlap is empty iff no target range of a part meets a range of another part.
REDIST_COMPILED_INLINE PartOverlapResult find_part_overlap(std::vector<PartSpan> spans);

}  // namespace redist::detail

#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/plan/part_overlaps_definitions.hpp>
#endif
