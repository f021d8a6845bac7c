#pragma once
/// @file region.hpp
/// Region: the sub-matrix to move (Cao et al. 2021, Table I): size_row x size_col
/// elements starting at (disp_row_s, disp_col_s) in the source and at
/// (disp_row_t, disp_col_t) in the target.

#include <string>

#include <redist/checked.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// The 1-D view of a region along one axis.
struct AxisRegion {
  index_t length = 0;      ///< size_row or size_col
  index_t src_origin = 0;  ///< disp_row_s or disp_col_s
  index_t dst_origin = 0;  ///< disp_row_t or disp_col_t
  /// Source index minus target index of the same element.
  constexpr index_t shift() const { return src_origin - dst_origin; }
  friend constexpr bool operator==(const AxisRegion&, const AxisRegion&) = default;
};

struct Region {
  Extents extent;           ///< rows x cols moved
  ElementIndex src_origin;  ///< first element in the source
  ElementIndex dst_origin;  ///< where it lands in the target

  template <Axis A>
  constexpr AxisRegion axis() const {
    return {extent.get<A>(), src_origin.get<A>(), dst_origin.get<A>()};
  }
  constexpr bool empty() const { return extent.rows == 0 || extent.cols == 0; }
  /// The whole of a rows x cols matrix, at the origin on both sides.
  static constexpr Region whole(Extents e) { return {e, {0, 0}, {0, 0}}; }
  friend constexpr bool operator==(const Region&, const Region&) = default;
};

namespace detail {
inline void check_axis_fits(index_t origin, index_t length, index_t extent, const char* side,
                            const char* origin_name, const char* length_name) {
  // The message only when thrown: a move of K parts checks 4 K axes.
  if (origin < 0 || origin > extent)
    throw region_error(describe(std::string("region origin outside the ") + side + " matrix",
                                origin_name, origin) +
                       " (" + side + " extent = " + std::to_string(extent) + ", " + length_name +
                       " = " + std::to_string(length) + ")");
  if (length > extent - origin)
    throw region_error(describe(std::string("region does not fit in the ") + side + " matrix",
                                length_name, length) +
                       " (" + side + " extent = " + std::to_string(extent) + ", " + origin_name +
                       " = " + std::to_string(origin) + ")");
}
}  // namespace detail

/// Checks that `r` lies inside both matrices.
/// @throws region_error naming the field and its value otherwise (negative extents
/// included); invalid_argument if the region's element count overflows 64 bits.
template <TileShape Src, TileShape Dst>
void validate_region(const Region& r, const Src& src, const Dst& dst) {
  if (r.extent.rows < 0)
    throw region_error(detail::describe("negative region extent", "region.rows", r.extent.rows));
  if (r.extent.cols < 0)
    throw region_error(detail::describe("negative region extent", "region.cols", r.extent.cols));
  const Extents s = element_extents(src), d = element_extents(dst);
  detail::check_axis_fits(r.src_origin.i, r.extent.rows, s.rows, "source", "region.src_origin.i",
                          "region.rows");
  detail::check_axis_fits(r.src_origin.j, r.extent.cols, s.cols, "source", "region.src_origin.j",
                          "region.cols");
  detail::check_axis_fits(r.dst_origin.i, r.extent.rows, d.rows, "target", "region.dst_origin.i",
                          "region.rows");
  detail::check_axis_fits(r.dst_origin.j, r.extent.cols, d.cols, "target", "region.dst_origin.j",
                          "region.cols");
  // Fits both matrices, but a shape alone is not checked: its element count may not fit.
  (void)detail::checked_mul(r.extent.rows, r.extent.cols, "region elements");
}

}  // namespace redist
