#pragma once
/// @file plan/block_family_definitions.hpp
/// The definitions of block_family.hpp's out-of-line functions: included by that header
/// when redist is header-only, compiled once into redist::engine otherwise
/// (compiled/front.cpp, REDIST_COMPILED_INLINE in compiled_engine.hpp).

#include <redist/plan/block_family.hpp>

namespace redist::detail {

REDIST_COMPILED_INLINE void lay_out_message(FamilyList& d, int peer, index_t batch,
                                            std::size_t first, std::size_t count,
                                            const std::vector<PieceGroup>& rows,
                                            const std::vector<PieceGroup>& cols) {
  REDIST_EXPECTS(count > 0 && first + count <= d.families.size());
  REDIST_EXPECTS(d.messages.empty() || d.messages.back().batch < batch ||
                 (d.messages.back().batch == batch && d.messages.back().peer < peer));
  const auto begin = d.families.begin() + static_cast<std::ptrdiff_t>(first);
  const auto end = begin + static_cast<std::ptrdiff_t>(count);
  if (!std::is_sorted(begin, end, family_order)) std::sort(begin, end, family_order);
  const std::size_t last = first + count;
  index_t& batch_elements = d.batch_elements[static_cast<std::size_t>(batch)];
  Message m{peer, batch, static_cast<index_t>(first), 0, 0, batch_elements};
  const auto rows_of = [&](const BlockFamily& f) {
    return f.rows.count * rows[static_cast<std::size_t>(f.rows.group)].length;
  };
  for (std::size_t k0 = first, k1 = first; k0 < last; k0 = k1) {
    // The column block [k0, k1): stacked, so its leading dimension is the rows' sum.
    index_t ld = 0;
    for (k1 = k0; k1 < last && same_columns(d.families[k0], d.families[k1]); ++k1)
      ld += rows_of(d.families[k1]);
    const BlockFamily& head = d.families[k0];
    const index_t width = head.cols.count * cols[static_cast<std::size_t>(head.cols.group)].length;
    index_t row = 0;
    for (std::size_t k = k0; k < k1; ++k) {
      BlockFamily& f = d.families[k];
      f.buffer_offset = m.buffer_offset + m.elements + row;
      f.buffer_ld = ld;
      row += rows_of(f);
      m.count += 1;
      d.segments += f.rows.count * f.cols.count;
    }
    m.elements += ld * width;
  }
  batch_elements += m.elements;
  d.elements += m.elements;
  d.messages.push_back(m);
}

REDIST_COMPILED_INLINE void append_message(FamilyList& d, int peer, index_t batch,
                                           const std::vector<BlockFamily>& families,
                                           const std::vector<PieceGroup>& rows,
                                           const std::vector<PieceGroup>& cols) {
  REDIST_EXPECTS(!families.empty());
  const std::size_t first = d.families.size();
  d.families.insert(d.families.end(), families.begin(), families.end());
  lay_out_message(d, peer, batch, first, families.size(), rows, cols);
}

}  // namespace redist::detail
