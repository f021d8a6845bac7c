#pragma once
/// @file axis_cut.hpp
/// AxisCut: every 1-D piece of a region along one axis, computed once per axis. The
/// region maps source to target by a shift, which is monotone, so the pieces sorted by
/// target position are also sorted by source position: the pieces of one target tile
/// and the pieces of one source tile are both contiguous index ranges. Planning a rank
/// then costs O(pieces on this axis) once plus O(segments it touches), never a scan of
/// all tiles (Prylli and Tourancheau 1996: the scan of two sorted boundary lists).

#include <vector>

#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

class AxisCut {
 public:
  /// Cuts the region's extent on one axis by both tilings.
  /// @pre the region fits both axes (validate_region).
  template <TileAxis SA, TileAxis TA>
  AxisCut(const SA& src, const TA& dst, const AxisRegion& r) {
    if (r.length == 0) return;
    dst_begin_ = dst.tile_of(r.dst_origin);
    dst_end_ = dst.tile_of(r.dst_origin + r.length - 1) + 1;
    src_begin_ = src.tile_of(r.src_origin);
    src_end_ = src.tile_of(r.src_origin + r.length - 1) + 1;
    dst_first_.reserve(static_cast<std::size_t>(dst_end_ - dst_begin_ + 1));
    for (index_t k = dst_begin_; k < dst_end_; ++k) {
      dst_first_.push_back(static_cast<index_t>(pieces_.size()));
      for_each_piece(src, dst, r, k, [&](const Piece& p) { pieces_.push_back(p); });
    }
    dst_first_.push_back(static_cast<index_t>(pieces_.size()));
    src_first_.assign(static_cast<std::size_t>(src_end_ - src_begin_ + 1),
                      static_cast<index_t>(pieces_.size()));
    for (index_t p = static_cast<index_t>(pieces_.size()) - 1; p >= 0; --p)
      src_first_[static_cast<std::size_t>(pieces_[static_cast<std::size_t>(p)].src_tile -
                                          src_begin_)] = p;
    // Source tiles are contiguous in the piece order: src_first is non-decreasing.
  }

  const std::vector<Piece>& pieces() const { return pieces_; }
  const Piece& piece(index_t p) const { return pieces_[static_cast<std::size_t>(p)]; }
  /// Target tiles [dst_begin, dst_end) and source tiles [src_begin, src_end) touched.
  index_t dst_begin() const { return dst_begin_; }
  index_t dst_end() const { return dst_end_; }
  index_t src_begin() const { return src_begin_; }
  index_t src_end() const { return src_end_; }

  /// Piece indices [first, last) of target tile k (empty if untouched).
  std::pair<index_t, index_t> pieces_of_dst(index_t k) const {
    if (k < dst_begin_ || k >= dst_end_) return {0, 0};
    const auto i = static_cast<std::size_t>(k - dst_begin_);
    return {dst_first_[i], dst_first_[i + 1]};
  }
  /// Where piece p sits among the pieces of its target tile (whole, first, inner, last).
  Position position(index_t p) const {
    const auto [first, last] = pieces_of_dst(piece(p).dst_tile);
    return position_of(p - first, last - first);
  }
  /// Piece indices [first, last) of source tile k (empty if untouched).
  std::pair<index_t, index_t> pieces_of_src(index_t k) const {
    if (k < src_begin_ || k >= src_end_) return {0, 0};
    const auto i = static_cast<std::size_t>(k - src_begin_);
    return {src_first_[i], src_first_[i + 1]};
  }

 private:
  std::vector<Piece> pieces_;
  std::vector<index_t> dst_first_;
  std::vector<index_t> src_first_;
  index_t dst_begin_ = 0, dst_end_ = 0, src_begin_ = 0, src_end_ = 0;
};

}  // namespace redist
