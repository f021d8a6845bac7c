#pragma once
/// @file engine/separated_source.hpp
/// A peer's source read in place arrives as one address per segment (DescribedSide,
/// engine/matrix_sides.hpp). When the peer keeps its part as one local matrix (ScaLAPACK
/// storage), every address of a slice is a row part plus a column part, and the slice can
/// be bound as one StridedCopy, as a local copy between two such matrices is
/// (engine/bind_copies.hpp), instead of one copy per segment.
///
/// Why it matters on a device: one copy per segment gives the kernel thousands of tiny
/// copies (32 x 32 elements for case c of redist-device-bench on 2 ranks), each a team's
/// work for a moment; one copy per slice gives it runs and columns to spread over the
/// whole device. The addresses are not trusted to separate: `separate` checks every one,
/// so a copy bound from them touches exactly the published segments.
///
/// A peer's target written in place (DescribedTarget, push) separates the same way. On the
/// host it matters for the sweep (engine/fused_sweeps.hpp): one copy per slice reads each
/// source column from its top, as the local copies do, and the two merge run by run into
/// one pass down the column; a copy per segment starts at its own row and is swept apart.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/index.hpp>

namespace redist::engine {

/// A slice's described side that separates: segment (row piece r, column piece b) of the
/// slice starts at base + rows[r] + cols[b] (element offsets), every one with leading
/// dimension ld. A separable side for bind_slice (row and column parts by piece index).
/// E is the element type as the side is accessed: const for a source, not for a target.
template <class E>
struct SeparatedSide {
  E* base_address = nullptr;
  index_t leading = 0;
  bool is_transposed = false;
  std::vector<index_t> rows, cols;

  bool separable() const { return true; }
  bool transposed() const { return is_transposed; }
  E* base() const { return base_address; }
  index_t ld() const { return leading; }
  index_t run_step() const { return is_transposed ? leading : 1; }
};
template <class T>
using SeparatedSource = SeparatedSide<const T>;
template <class T>
using SeparatedTarget = SeparatedSide<T>;

template <class S>
struct is_separated : std::false_type {};
template <class E>
struct is_separated<SeparatedSide<E>> : std::true_type {};

/// The row and column parts of `row_pieces` x `col_pieces` segments listed column piece by
/// column piece (for_each_slice_segment's order), or nothing when they do not separate:
/// leading dimensions differ, an address is not a whole number of elements from the
/// first, or one is not the sum of its row's and its column's parts.
template <class E>
std::optional<SeparatedSide<E>> separate(const std::pair<E*, index_t>* segments, index_t row_pieces,
                                         index_t col_pieces, bool transposed) {
  using T = std::remove_const_t<E>;
  if (row_pieces <= 0 || col_pieces <= 0) return std::nullopt;
  SeparatedSide<E> s;
  s.base_address = segments[0].first;
  s.leading = segments[0].second;
  s.is_transposed = transposed;
  const auto origin = reinterpret_cast<std::uintptr_t>(s.base_address);
  const auto offset = [&](const E* p, index_t& out) {
    // Unsigned wrap-around, then signed: the distance either way.
    const auto bytes = static_cast<std::intptr_t>(reinterpret_cast<std::uintptr_t>(p) - origin);
    if (bytes % static_cast<std::intptr_t>(sizeof(T)) != 0) return false;
    out = static_cast<index_t>(bytes / static_cast<std::intptr_t>(sizeof(T)));
    return true;
  };
  s.rows.resize(static_cast<std::size_t>(row_pieces));
  s.cols.resize(static_cast<std::size_t>(col_pieces));
  for (index_t r = 0; r < row_pieces; ++r)
    if (!offset(segments[r].first, s.rows[static_cast<std::size_t>(r)])) return std::nullopt;
  for (index_t b = 0; b < col_pieces; ++b)
    if (!offset(segments[b * row_pieces].first, s.cols[static_cast<std::size_t>(b)]))
      return std::nullopt;
  for (index_t b = 0; b < col_pieces; ++b)
    for (index_t r = 0; r < row_pieces; ++r) {
      const auto& [p, ld] = segments[b * row_pieces + r];
      index_t at = 0;
      if (ld != s.leading || !offset(p, at) ||
          at != s.rows[static_cast<std::size_t>(r)] + s.cols[static_cast<std::size_t>(b)])
        return std::nullopt;
    }
  return s;
}

}  // namespace redist::engine
