#pragma once
/// @file plan/block_family_definitions.hpp
/// The definitions of block_family.hpp's out-of-line functions: included by that header
/// when redist is header-only, compiled once into redist::engine otherwise
/// (compiled/front.cpp, REDIST_COMPILED_INLINE in compiled_engine.hpp).

#include <redist/plan/block_family.hpp>

namespace redist::detail {

REDIST_COMPILED_INLINE void append_message(FamilyList& d, int peer, index_t batch,
                                           std::vector<BlockFamily>& families,
                                           const std::vector<PieceGroup>& rows,
                                           const std::vector<PieceGroup>& cols) {
  REDIST_EXPECTS(!families.empty());
  REDIST_EXPECTS(d.messages.empty() || d.messages.back().batch < batch ||
                 (d.messages.back().batch == batch && d.messages.back().peer < peer));
  if (!std::is_sorted(families.begin(), families.end(), family_order))
    std::sort(families.begin(), families.end(), family_order);
  index_t& batch_elements = d.batch_elements[static_cast<std::size_t>(batch)];
  Message m{peer, batch, static_cast<index_t>(d.families.size()), 0, 0, batch_elements};
  const auto rows_of = [&](const BlockFamily& f) {
    return f.rows.count * rows[static_cast<std::size_t>(f.rows.group)].length;
  };
  for (std::size_t k0 = 0, k1 = 0; k0 < families.size(); k0 = k1) {
    // The column block [k0, k1): stacked, so its leading dimension is the rows' sum.
    index_t ld = 0;
    for (k1 = k0; k1 < families.size() && same_columns(families[k0], families[k1]); ++k1)
      ld += rows_of(families[k1]);
    const BlockFamily& first = families[k0];
    const index_t width =
        first.cols.count * cols[static_cast<std::size_t>(first.cols.group)].length;
    index_t row = 0;
    for (std::size_t k = k0; k < k1; ++k) {
      BlockFamily f = families[k];
      f.buffer_offset = m.buffer_offset + m.elements + row;
      f.buffer_ld = ld;
      row += rows_of(f);
      d.families.push_back(f);
      m.count += 1;
      d.segments += f.rows.count * f.cols.count;
    }
    m.elements += ld * width;
  }
  batch_elements += m.elements;
  d.elements += m.elements;
  d.messages.push_back(m);
}

}  // namespace redist::detail
