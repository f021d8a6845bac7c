#pragma once
/// @file engine/matrix_sides.hpp
/// The two ends of a copy as the binding (engine/bind_copies.hpp) sees them: a matrix's
/// tiles, a message buffer, or a peer's source read in place (direct transport). Sides
/// turn the pieces of a family (plan/block_family.hpp) into addresses; they are the first
/// step of wiring an engine (engine/wired.hpp): the transports are chosen from the
/// source addresses they give.

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/index.hpp>
#include <redist/placement.hpp>
#include <redist/plan.hpp>
#include <redist/tile_shape.hpp>
#include <redist/views/matrix_view.hpp>

namespace redist::engine {

/// A segment's start and leading dimension.
template <class T>
using Address = std::pair<const T*, index_t>;

/// One side of a copy: a matrix's tiles (as the source or as the target of the pieces),
/// or a message buffer. A transposed source (transform.hpp) is addressed by pieces of
/// op(A): a row piece is a piece of A's columns, a column piece one of A's rows.
template <class T, class MemorySpace>
class MatrixSide {
 public:
  using Matrix = MatrixView<T, MemorySpace>;

  /// `separate_tiles`: tiles that separate (StorageMap::separation) bind per axis too;
  /// only where messages are not laid flat (MatrixSides), whose layout needs a copy per
  /// segment. @pre m outlives the side.
  MatrixSide(const Matrix& m, bool source, bool transposed = false, bool separate_tiles = false)
      : matrix_(&m), source_(source), transposed_(transposed) {
    if (m.placement_stores_local_matrix())
      local_ = m.storage().local_matrix();
    else if (separate_tiles)
      local_ = m.storage().separation();
    if (local_ && m.has_allocations()) base_ = m.allocation(local_->allocation);
  }
  MatrixSide(const Matrix&&, bool, bool = false, bool = false) = delete;  // it keeps a pointer
  bool separable() const { return local_ != nullptr; }
  bool transposed() const { return transposed_; }
  /// Separable sides: base, row part of row piece p, column part of column piece p, ld,
  /// and the step from one element of a run to the next.
  T* base() const { return base_; }
  index_t row(const Piece& p) const { return transposed_ ? local_col(p) : local_row(p); }
  index_t col(const Piece& p) const { return transposed_ ? local_row(p) : local_col(p); }
  index_t ld() const { return local_->ld; }
  index_t run_step() const { return transposed_ ? local_->ld : 1; }
  /// Any side: the address of the segment (row piece r x column piece c) and its ld.
  std::pair<T*, index_t> at(const Piece& r, const Piece& c) const {
    const Located l = located(r, c);
    return {l.base + l.offset, l.ld};
  }
  /// Any side: where the segment (row piece r x column piece c) lies: its allocation's
  /// start, its offset there, its ld, and the start of what it may share a copy with:
  /// its tile, or the whole allocation for a local matrix.
  struct Located {
    T* base;
    index_t offset, ld, tile;
  };
  Located located(const Piece& r, const Piece& c) const {
    const TileSlot s = matrix_->storage().slot(transposed_ ? TileIndex{tile(c), tile(r)}
                                                           : TileIndex{tile(r), tile(c)});
    const index_t in_tile =
        transposed_ ? offset(c) + offset(r) * s.ld : offset(r) + offset(c) * s.ld;
    return {matrix_->allocation(s.allocation), s.offset + in_tile, s.ld, local_ ? 0 : s.offset};
  }

 private:
  index_t tile(const Piece& p) const { return source_ ? p.src_tile : p.dst_tile; }
  index_t offset(const Piece& p) const { return source_ ? p.src_offset : p.dst_offset; }
  index_t local_row(const Piece& p) const {
    return local_->row_offset[static_cast<std::size_t>(tile(p))] + offset(p);
  }
  index_t local_col(const Piece& p) const {
    return (local_->col_offset[static_cast<std::size_t>(tile(p))] + offset(p)) * local_->ld;
  }

  const Matrix* matrix_;
  bool source_;
  bool transposed_;
  const LocalMatrix* local_ = nullptr;
  T* base_ = nullptr;
};

/// A message buffer side of one slice: rows a * Lr, columns b * Lc * ld, relative to
/// the slice's start; pointers are set per message (rebase()).
struct BufferSide {};

/// A source read in place from another rank's memory (direct transport): the address
/// and ld of each segment, in the order of for_each_slice_segment.
template <class T>
struct DescribedSide {
  mutable const std::pair<const T*, index_t>* next;  ///< advanced as segments are bound
  bool transposed = false;                           ///< the sender's source is op(A)'s
};

template <class S>
struct is_described : std::false_type {};
template <class T>
struct is_described<DescribedSide<T>> : std::true_type {};

/// A target written in place in another rank's memory (push transport,
/// transport/push.hpp): the address and ld of each segment, in the order of
/// for_each_slice_segment.
template <class T>
struct DescribedTarget {
  mutable const std::pair<T*, index_t>* next;  ///< advanced as segments are bound
};

template <class S>
struct is_described_target : std::false_type {};
template <class T>
struct is_described_target<DescribedTarget<T>> : std::true_type {};

/// Messages between two tile-stored sides are laid flat (segment after segment,
/// engine/bind_copies.hpp) when the first tile of every layout on both sides has at least
/// this many elements; smaller tiles are stacked when some rank's tiles separate, and bind
/// per axis there. Flat messages bind a copy per tile: set-up and copy programs grow with
/// the tiles (1 x 1 tiles at 2048^2 on 2 ranks: 2-3 s, 268 MB). Stacked, tiles of 8 x 8
/// and more moved 1.3-1.6x slower than flat, and tiles that separate nowhere up to 1.35x
/// slower (bench/README.md, "Small tiles in tile storage").
inline constexpr index_t flat_tile_elements = 64;

/// ... and at least this many where the two sides' tile rows cut each other (cuts_rows):
/// a flat segment is then a few short runs, as in a stacked block, and binding a copy per
/// segment only costs set-up (8 x 8 -> 9 x 9 at 8192^2: 0.7-0.9 s and 322 MB flat,
/// 0.07-0.09 s and 1.5 MB stacked, the moves alike, transposed too; bench/README.md,
/// "Tile rows that cut each other").
inline constexpr index_t flat_cut_tile_elements = 300;

/// The matrix sides of every part of a move (plan/plan_parts.hpp): srcs[k] and dsts[k]
/// are part k's matrices. `flat`: messages are laid segment after segment
/// (engine/bind_copies.hpp): between two tile-stored sides (placement types without a
/// local matrix) unless their tiles are small (flat_tile_elements, or
/// flat_cut_tile_elements where some rank's rows are cut) and some rank's tiles separate.
/// Every rank derives it alike, from the types, the layouts' tile shapes and the flags in
/// `Agreed` (ors over the ranks of separates_here() and cuts_rows()).
template <class T, class MemorySpace>
struct MatrixSides {
  using Matrix = MatrixView<T, MemorySpace>;
  using Matrices = std::vector<Matrix>;
  std::vector<MatrixSide<T, MemorySpace>> src;
  std::vector<MatrixSide<T, MemorySpace>> dst;
  bool flat = false;

  /// What the ranks agreed on: the or over the ranks of each rank's `here()`, carried as
  /// `bits()` in one all-reduce (engine/wired.hpp).
  struct Agreed {
    bool separate_somewhere = false;  ///< or of separates_here()
    bool rows_cut_somewhere = false;  ///< or of cuts_rows()

    /// This rank's flags.
    static Agreed here(const Plan& plan, const Matrices& srcs, const Matrices& dsts,
                       bool transposed) {
      return {separates_here(srcs, dsts), cuts_rows(plan, srcs, dsts, transposed)};
    }
    int bits() const { return (separate_somewhere ? 1 : 0) | (rows_cut_somewhere ? 2 : 0); }
    static Agreed from_bits(int b) { return {(b & 1) != 0, (b & 2) != 0}; }
  };

  /// @pre one source and one target per part, the same layouts on every rank, and the
  /// same `agreed`; srcs and dsts outlive the sides.
  MatrixSides(const Matrices& srcs, const Matrices& dsts, bool transposed, Agreed agreed)
      : flat(lays_flat(srcs, dsts, agreed)) {
    src.reserve(srcs.size());
    dst.reserve(dsts.size());
    for (const Matrix& m : srcs) src.emplace_back(m, true, transposed, !flat);
    for (const Matrix& m : dsts) dst.emplace_back(m, false, false, !flat);
  }
  /// Whether messages between these matrices are laid flat (see `flat`).
  /// A placement that stores a local matrix never lays flat: a property of the types,
  /// alike on every rank (every part of a move has the same matrix types).
  static bool lays_flat(const Matrices& srcs, const Matrices& dsts, Agreed agreed) {
    const auto local = [](const Matrix& m) { return m.placement_stores_local_matrix(); };
    if (std::any_of(srcs.begin(), srcs.end(), local) ||
        std::any_of(dsts.begin(), dsts.end(), local))
      return false;
    const index_t least = agreed.rows_cut_somewhere ? flat_cut_tile_elements : flat_tile_elements;
    const auto large = [least](const Matrix& m) {
      const ShapeView& shape = m.shape();
      if (tile_counts(shape).rows == 0 || tile_counts(shape).cols == 0) return true;
      const Extents e = tile_extents(shape, TileIndex{0, 0});
      return e.rows * e.cols >= least;
    };
    return !agreed.separate_somewhere || (std::all_of(srcs.begin(), srcs.end(), large) &&
                                          std::all_of(dsts.begin(), dsts.end(), large));
  }
  /// Whether the source's and the target's tile rows cut each other in most of this
  /// rank's message elements: row pieces shorter than their source or target tile, as
  /// in 8 -> 9 (transposed: the source's tile columns and the target's tile rows). Looked
  /// at only where it changes the layout. A row group's first member stands for the
  /// group: its members share offsets and length.
  static bool cuts_rows(const Plan& plan, const Matrices& srcs, const Matrices& dsts,
                        bool transposed) {
    if (lays_flat(srcs, dsts, {true, false}) == lays_flat(srcs, dsts, {true, true})) return false;
    index_t whole = 0, all = 0;
    for (const FamilyList* list : {&plan.send, &plan.recv})
      for (const BlockFamily& f : list->families) {
        const PieceGroup rows = plan.rows(f);
        if (rows.count == 0) continue;
        const index_t elements = rows.elements() * plan.cols(f).elements();
        const Piece p = rows.member(0);
        const auto part = static_cast<std::size_t>(f.part);
        const ShapeView& src = srcs[part].shape();  // the plan's rows: op(A)'s
        const index_t src_rows =
            transposed ? src.cols().size(p.src_tile) : src.rows().size(p.src_tile);
        const index_t dst_rows = dsts[part].shape().rows().size(p.dst_tile);
        all += elements;
        if (p.src_offset == 0 && p.dst_offset == 0 && p.length == src_rows && p.length == dst_rows)
          whole += elements;
      }
    return 2 * whole < all;
  }
  /// Whether some matrix of this rank stores more than one tile in a separable way
  /// (StorageMap::separation; a single tile always separates and gains nothing).
  static bool separates_here(const Matrices& srcs, const Matrices& dsts) {
    const auto separates = [](const Matrix& m) {
      const LocalMatrix* l = m.storage().separation();
      return l != nullptr && l->tiles() > 1;
    };
    return std::any_of(srcs.begin(), srcs.end(), separates) ||
           std::any_of(dsts.begin(), dsts.end(), separates);
  }
  /// The address of the segment (row piece r x column piece c) in part `part`'s source.
  Address<T> source(index_t part, const Piece& r, const Piece& c) const {
    return src[static_cast<std::size_t>(part)].at(r, c);
  }
  /// ... and in part `part`'s target.
  std::pair<T*, index_t> target(index_t part, const Piece& r, const Piece& c) const {
    return dst[static_cast<std::size_t>(part)].at(r, c);
  }
};

}  // namespace redist::engine
