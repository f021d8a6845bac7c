#pragma once
/// @file plan/part_overlaps_definitions.hpp
/// The definitions of part_overlaps.hpp's out-of-line functions: included by that header
/// when redist is header-only, compiled once into redist::engine otherwise
/// (compiled/front.cpp, REDIST_COMPILED_INLINE in compiled_engine.hpp).

#include <redist/plan/part_overlaps.hpp>

namespace redist::detail {

REDIST_COMPILED_INLINE PartOverlapResult find_part_overlap(std::vector<PartSpan> spans) {
  PartOverlapResult out;
  index_t& steps = out.steps;
  std::erase_if(spans, [](const PartSpan& s) { return s.begin >= s.end; });
  const std::size_t n = spans.size();
  steps += static_cast<index_t>(n);
  const auto by_begin = [&](const PartSpan& x, const PartSpan& y) {
    ++steps;
    return x.begin < y.begin;
  };
  std::sort(spans.begin(), spans.end(), by_begin);

  // Prefix [0, i): the largest end and its part, and the largest end of any other part;
  // so the largest end of the prefix outside any one part is known in O(1).
  struct Ends {
    std::uintptr_t end = 0;
    index_t part = -1;
    std::uintptr_t other = 0;
  };
  std::vector<Ends> prefix(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    Ends e = prefix[i];
    const PartSpan& s = spans[i];
    if (s.part == e.part) {
      e.end = std::max(e.end, s.end);
    } else if (s.end > e.end) {
      e.other = e.end;
      e.end = s.end;
      e.part = s.part;
    } else {
      e.other = std::max(e.other, s.end);
    }
    prefix[i + 1] = e;
  }
  // next_other[i]: the first j >= i whose part differs from spans[i]'s (n if none).
  std::vector<std::size_t> next_other(n + 1, n);
  for (std::size_t i = n; i-- > 0;)
    next_other[i] = i + 1 < n && spans[i + 1].part == spans[i].part ? next_other[i + 1] : i + 1;
  steps += static_cast<index_t>(2 * n);

  // Whether target range spans[i] meets a range of another part. Those beginning at or
  // before it (the prefix [0, i0)) meet it iff their end passes its begin; those beginning
  // inside it ([i0, i1)) all meet it. i0 only grows along the sorted ranges, and i1 is
  // found by galloping from i0: O(1) per range when few overlap, O(log n) at worst.
  std::size_t i0 = 0;
  const auto meets_other = [&](std::size_t i) {
    const PartSpan& d = spans[i];
    for (i0 = std::max(i0, i + 1); i0 < n && spans[i0].begin <= d.begin; ++i0) ++steps;
    std::size_t lo = i0, step = 1;
    while (lo + step <= n && spans[lo + step - 1].begin < d.end) lo += step, step *= 2, ++steps;
    const std::size_t i1 = static_cast<std::size_t>(
        std::partition_point(spans.begin() + static_cast<std::ptrdiff_t>(lo),
                             spans.begin() + static_cast<std::ptrdiff_t>(std::min(n, lo + step)),
                             [&](const PartSpan& s) {
                               ++steps;
                               return s.begin < d.end;
                             }) -
        spans.begin());
    const Ends& e = prefix[i0];
    if ((e.part != d.part ? e.end : e.other) > d.begin) return true;
    return i0 < i1 && (spans[i0].part != d.part || next_other[i0] < i1);
  };
  index_t k = -1;
  for (std::size_t i = 0; i < n; ++i)
    if (spans[i].target && (k < 0 || spans[i].part < k) && meets_other(i)) k = spans[i].part;
  if (k < 0) return out;

  // The union of a set of ranges, sorted and disjoint, and whether a range meets it.
  using Union = std::vector<std::pair<std::uintptr_t, std::uintptr_t>>;
  const auto union_of = [&](auto&& keep) {
    Union u;
    for (const PartSpan& s : spans) {  // sorted by begin
      ++steps;
      if (!keep(s)) continue;
      if (!u.empty() && s.begin <= u.back().second)
        u.back().second = std::max(u.back().second, s.end);
      else
        u.emplace_back(s.begin, s.end);
    }
    return u;
  };
  const auto meets = [&](const Union& u, const PartSpan& s) {
    const auto it = std::partition_point(u.begin(), u.end(), [&](const auto& r) {
      ++steps;
      return r.second <= s.begin;
    });
    return it != u.end() && it->first < s.end;
  };
  // The least other part meeting k's targets, then k's first target meeting that part.
  const Union k_targets = union_of([&](const PartSpan& s) { return s.part == k && s.target; });
  index_t l = -1;
  for (const PartSpan& s : spans) {
    ++steps;
    if (s.part != k && (l < 0 || s.part < l) && meets(k_targets, s)) l = s.part;
  }
  const Union l_all = union_of([&](const PartSpan& s) { return s.part == l; });
  const Union l_targets = union_of([&](const PartSpan& s) { return s.part == l && s.target; });
  const PartSpan* first = nullptr;
  for (const PartSpan& s : spans) {
    ++steps;
    if (s.part == k && s.target && (!first || s.alloc < first->alloc) && meets(l_all, s))
      first = &s;
  }
  out.overlap = PartOverlap{k, l, first->alloc, meets(l_targets, *first)};
  return out;
}

}  // namespace redist::detail
