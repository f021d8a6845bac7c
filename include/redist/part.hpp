#pragma once
/// @file part.hpp
/// Part: one (source, target, region) of a move, several of which travel in one exchange
/// (redistributor.hpp); and the checks every rank makes of a move's parts before planning:
/// each matrix built for this rank, no target overlapping a source or another target.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/error.hpp>
#include <redist/plan/part_overlaps.hpp>
#include <redist/plan/source_target_overlap.hpp>
#include <redist/region.hpp>

namespace redist {

/// One (source, target, region) of a move of several matrices in one exchange.
template <class Src, class Dst>
struct Part {
  const Src* src = nullptr;
  Dst* dst = nullptr;
  Region region;
};
template <class Src, class Dst>
Part(const Src*, Dst*, Region) -> Part<Src, Dst>;

namespace detail {

/// Allocation `a` (a Kokkos view) as a byte range.
template <class A>
ByteRange byte_range(const A& a) {
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  return {begin, begin + a.span() * sizeof(typename A::value_type)};
}

/// Allocation `alloc` of part `part` as a byte range.
template <class A>
PartSpan part_span(const A& a, index_t part, index_t alloc, bool target) {
  const auto [begin, end] = byte_range(a);
  return PartSpan{begin, end, part, alloc, target};
}

template <class Allocations>
std::vector<ByteRange> byte_ranges(const Allocations& allocations) {
  std::vector<ByteRange> out;
  out.reserve(allocations.size());
  for (const auto& a : allocations) out.push_back(byte_range(a));
  return out;
}

/// src and dst built for `rank`, their storage disjoint.
/// @throws invalid_argument naming the matrix of another rank; storage_error naming the
/// overlapping allocations.
template <class Src, class Dst>
void check_matrices(const Src& src, const Dst& dst, int rank) {
  if (src.rank() != rank)
    throw invalid_argument(
        detail::describe("source matrix was built for another rank", "src.rank()", src.rank()) +
        " (this rank = " + std::to_string(rank) + ")");
  if (dst.rank() != rank)
    throw invalid_argument(
        detail::describe("target matrix was built for another rank", "dst.rank()", dst.rank()) +
        " (this rank = " + std::to_string(rank) + ")");
  // A sorted sweep (plan/source_target_overlap.hpp), not A x B comparisons: a tile per
  // allocation makes both counts grow with the matrix.
  const auto found =
      find_source_target_overlap(byte_ranges(src.allocations()), byte_ranges(dst.allocations()))
          .pair;
  if (found)
    throw storage_error(
        detail::describe("source and target storage overlap in memory",
                         "src.allocations()[" + std::to_string(found->first) + "]",
                         "dst.allocations()[" + std::to_string(found->second) + "]"));
}

/// Each part's matrices (check_matrices), and no target overlapping another part's
/// source or target: two parts must not write, or write and read, the same memory.
/// @throws invalid_argument (no part, a null matrix, a matrix of another rank) or
/// storage_error (overlapping memory), naming the part.
template <class Src, class Dst>
void check_parts(const std::vector<Part<Src, Dst>>& parts, int rank) {
  if (parts.empty())
    throw invalid_argument(detail::describe("a move needs at least one part", "parts.size()", 0));
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].src || !parts[k].dst)
      throw invalid_argument(
          detail::describe("null matrix in a part", "part", static_cast<index_t>(k)));
    check_matrices(*parts[k].src, *parts[k].dst, rank);
  }
  // A sorted sweep (plan/part_overlaps.hpp): the pair a pair-by-pair check would
  // name, without its K^2 comparisons.
  std::vector<detail::PartSpan> spans;
  const auto add = [&](const auto& allocations, std::size_t k, bool target) {
    for (std::size_t a = 0; a < allocations.size(); ++a)
      spans.push_back(detail::part_span(allocations[a], static_cast<index_t>(k),
                                        static_cast<index_t>(a), target));
  };
  for (std::size_t k = 0; k < parts.size(); ++k) {
    add(parts[k].dst->allocations(), k, true);
    add(parts[k].src->allocations(), k, false);
  }
  const std::optional<detail::PartOverlap> found =
      detail::find_part_overlap(std::move(spans)).overlap;
  if (!found) return;
  if (found->target)
    throw storage_error(
        detail::describe("the targets of two parts overlap in memory", "part", found->k) +
        " and part " + std::to_string(found->l));
  throw storage_error(detail::describe("a part's target overlaps another part's source in memory",
                                       "part", found->k) +
                      " and part " + std::to_string(found->l));
}

}  // namespace detail

}  // namespace redist
