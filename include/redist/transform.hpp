#pragma once
/// @file transform.hpp
/// Transform while moving (Transform, transform_op.hpp): the target region receives
/// alpha * op(source region) + beta * target. This header plans it.
///
/// A transposed move is planned as a plain move from the *transposed view* of the
/// source layout (its tile rows are the source's tile columns, tile (m, n) belongs to
/// the owner of source tile (n, m)), so the nine categories, the plan and the
/// task graph apply to op(A) unchanged; only the copies that read the source read it
/// transposed (copy/strided_copy.hpp), and only the copies that write the target scale
/// (copy/element_op.hpp).
///
///   source region R x C at (i, j)           target region C x R at (k, l)
///   op(A)(a, b) = A(i + b, j + a)   ->      B(k + a, l + b) = alpha op(A)(a, b) + beta B(..)
///
/// Example: `static_assert(category(src, dst, r, {0, 0}, Op::transpose) == 4);` cuts
/// target tile (0, 0) by the transposed source tiling.

#include <concepts>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>
#include <redist/transform_op.hpp>

namespace redist {

/// A tile shape seen transposed: its rows are s's columns.
template <TileShape S>
class TransposedShape {
 public:
  constexpr explicit TransposedShape(S s) : s_(std::move(s)) {}
  constexpr const auto& rows() const { return s_.cols(); }
  constexpr const auto& cols() const { return s_.rows(); }
  constexpr const S& base() const { return s_; }
  friend constexpr bool operator==(const TransposedShape&, const TransposedShape&) = default;

 private:
  S s_;
};

/// A distribution seen transposed: tile (m, n) belongs to the owner of d's tile (n, m).
/// A grid distribution stays one (grid and coordinates swapped), so transposed moves
/// take the plan's per-axis path; a stated period (super_tile) is kept.
template <Distribution D>
class TransposedDistribution {
 public:
  static constexpr bool owners_in_range = OwnersInRange<D>;

  constexpr explicit TransposedDistribution(D d) : d_(std::move(d)) {}
  constexpr int ranks() const { return static_cast<int>(d_.ranks()); }
  constexpr int owner(TileIndex t) const { return static_cast<int>(d_.owner(TileIndex{t.n, t.m})); }
  constexpr const D& base() const { return d_; }

  constexpr Extents grid() const requires GridDistribution<D> {
    const Extents g = d_.grid();
    return Extents{g.cols, g.rows};
  }
  constexpr int grid_row(index_t k) const requires GridDistribution<D> {
    return static_cast<int>(d_.grid_col(k));
  }
  constexpr int grid_col(index_t k) const requires GridDistribution<D> {
    return static_cast<int>(d_.grid_row(k));
  }
  constexpr int rank_of(GridCoord g) const requires GridDistribution<D> {
    return static_cast<int>(d_.rank_of(GridCoord{g.q, g.p}));
  }
  constexpr Extents super_tile() const requires requires(const D& d) {
    { d.super_tile() } -> std::same_as<Extents>;
  }
  {
    const Extents s = d_.super_tile();
    return Extents{s.cols, s.rows};
  }
  constexpr Extents tiles() const requires BoundedDistribution<D> {
    const Extents t = d_.tiles();
    return Extents{t.cols, t.rows};
  }

 private:
  D d_;
};

/// The layout of op(A) when A has layout `l` (op = transpose or conj_transpose).
template <class S, class D>
constexpr Layout<TransposedShape<S>, TransposedDistribution<D>> transposed(const Layout<S, D>& l) {
  return {TransposedShape<S>(l.shape()), TransposedDistribution<D>(l.distribution())};
}

/// The region of op(A) that a region of A (extent: the source's R x C) becomes: C x R,
/// source origin swapped, target origin kept.
constexpr Region transposed(const Region& r) {
  return Region{Extents{r.extent.cols, r.extent.rows}, ElementIndex{r.src_origin.j, r.src_origin.i},
                r.dst_origin};
}

/// The target rectangle's extent: R x C, or C x R when op transposes.
constexpr Extents target_extent(const Region& r, Op op) {
  return op == Op::none ? r.extent : Extents{r.extent.cols, r.extent.rows};
}

/// Category 0..8 of target tile t when op(source region) moves (segment.hpp's
/// category for op = none; the transposed source tiling cuts the tile otherwise).
/// @throws invalid_argument if t is outside the target or does not meet the region.
template <TileShape Src, TileShape Dst>
constexpr int category(const Src& src, const Dst& dst, const Region& r, TileIndex t, Op op) {
  if (op == Op::none) return category(src, dst, r, t);
  return category(TransposedShape<Src>(src), dst, transposed(r), t);
}

/// Checks that op(region) fits: the source rectangle R x C in the source, the target
/// rectangle (C x R when op transposes) in the target.
/// @throws region_error naming the field and value (region.cols for the target's rows
/// when op transposes), invalid_argument if the element count overflows.
template <TileShape Src, TileShape Dst>
void validate_region(const Region& r, const Src& src, const Dst& dst, Op op) {
  if (op == Op::none) return validate_region(r, src, dst);
  // The source side and the sizes as for op = none (the target extents are not used).
  validate_region(Region{r.extent, r.src_origin, ElementIndex{0, 0}}, src, src);
  const Extents d = element_extents(dst);
  detail::check_axis_fits(r.dst_origin.i, r.extent.cols, d.rows, "target (transposed)",
                          "region.dst_origin.i", "region.cols");
  detail::check_axis_fits(r.dst_origin.j, r.extent.rows, d.cols, "target (transposed)",
                          "region.dst_origin.j", "region.rows");
}

namespace detail {

/// A value's bytes as a fingerprint (alpha and beta are agreed bit for bit).
template <class T>
std::uint64_t bytes_fingerprint(const T& v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  Hasher h;
  for (unsigned char c : b) h.add(static_cast<std::uint64_t>(c));
  return h.value();
}

/// What the ranks must agree on about a transform.
template <class T>
std::vector<AgreementItem> transform_items(const Transform<T>& t) {
  std::vector<AgreementItem> items{
      value_item("Transform::op", static_cast<index_t>(t.op)),
      value_item("Transform::triangle.uplo", static_cast<index_t>(t.triangle.uplo)),
      value_item("Transform::triangle.diag", static_cast<index_t>(t.triangle.diag))};
  if constexpr (ScalableElement<T>) {
    items.push_back({"Transform::alpha", bytes_fingerprint(t.alpha)});
    items.push_back({"Transform::beta", bytes_fingerprint(t.beta)});
  }
  return items;
}

}  // namespace detail

}  // namespace redist
