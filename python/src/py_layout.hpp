#pragma once
// A layout as the Python module holds it: a spec of redist-run's grammar
// (tools/layout_spec.hpp), or a ScaLAPACK descriptor on a BLACS grid, which is the same
// block-cyclic spec with a first owner and a grid order the grammar does not write; and
// what one rank stores of it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>
#include <redist/scalapack/descriptor.hpp>
#include <redist/tools/layout_spec.hpp>

namespace redist_python {

using namespace redist;
using redist::tools::LayoutSpec;
using redist::tools::SpecDistribution;
using redist::tools::SpecPlacement;
using redist::tools::SpecShape;
using redist::tools::StorageKind;

/// Tile storage (any distribution, the owned tiles packed in one allocation, several for
/// bc2's devices) and ScaLAPACK storage (a block-cyclic grid, the local column-major
/// array), as redist-run stores them.
using redist::tools::GridMatrixLayout;
using redist::tools::TileMatrixLayout;

/// One rank's share of a layout. Tile storage: one 1-D allocation per entry of
/// `allocations`. ScaLAPACK storage: one column-major local array of rows x cols (LOCr x
/// LOCc), `allocations` its one entry of rows * cols elements.
struct LocalExtents {
  std::vector<index_t> allocations;
  index_t rows = 0, cols = 0;
};

class PyLayout {
 public:
  /// Parses `text` as redist-run parses --src and --dst. `comm_size`: the communicator's
  /// size, 0 if not known (random:SEED needs it). `source`: the layout a synth target is
  /// built from.
  /// @throws redist::parse_error naming the piece and the whole text; invalid_argument when
  /// the distribution needs more ranks than `comm_size` or a synth target cannot be built.
  PyLayout(std::string_view text, int comm_size, const PyLayout* source = nullptr);

  /// The layout of ScaLAPACK descriptor `d` on an nprow x npcol BLACS grid numbered in
  /// `order` (Cblacs_gridinit's "Row" or "Col"). DTYPE_ and CTXT_ are not read; LLD_ is
  /// kept for descriptor().
  /// @throws invalid_argument naming the descriptor entry p?gemr2d would refuse.
  static PyLayout from_descriptor(const scalapack::Descriptor& d, int nprow, int npcol,
                                  GridOrder order, int comm_size);

  /// This layout on a communicator of `comm_size` ranks (random draws over them).
  /// @throws invalid_argument if it was made for another size, or needs more ranks.
  PyLayout on(int comm_size) const;

  const LayoutSpec& spec() const { return spec_; }
  bool scalapack_storage() const { return spec_.storage == StorageKind::scalapack; }
  /// The communicator size given, 0 if none.
  int comm_size() const { return comm_size_; }
  /// Ranks the distribution uses (the communicator's size for random).
  /// @throws invalid_argument for random:SEED without a communicator size.
  int ranks() const;
  GridCoord first_owner() const { return first_; }
  GridOrder grid_order() const { return order_; }

  /// The layout of ScaLAPACK storage. @pre scalapack_storage().
  GridMatrixLayout grid_layout() const;
  /// The layout and placement of tile storage on `comm_size` ranks. @pre !scalapack_storage().
  TileMatrixLayout tile_layout(int comm_size) const;
  SpecPlacement tile_placement() const { return redist::tools::make_placement(spec_); }

  /// What `rank` stores. @throws invalid_argument for a rank outside the communicator.
  LocalExtents local(int rank) const;
  /// Global row and column of every element `rank` stores, in its storage order (tile
  /// storage: allocation after allocation; ScaLAPACK: the LOCr x LOCc array column by
  /// column); -1 for padding between packed tiles.
  void global_indices(int rank, std::vector<index_t>& rows, std::vector<index_t>& cols) const;
  /// The descriptor of `rank`'s local array in context `ctxt`: DTYPE_ 1, MB_ and NB_ the
  /// block (tile times super-tile), RSRC_ and CSRC_ the first owner, LLD_ the one given to
  /// from_descriptor or max(1, LOCr).
  /// @throws invalid_argument for tile storage.
  scalapack::Descriptor descriptor(int rank, index_t ctxt) const;

  /// The spec in redist-run's grammar, e.g. "100x80/16x16/bc:2x2/scalapack".
  std::string text() const { return redist::tools::to_string(spec_); }
  /// Same layouts: same spec, first owner and grid order.
  bool same_as(const PyLayout& o) const;

 private:
  PyLayout() = default;
  /// Whether it can be made on job_size() ranks (check_layout_option, as redist-run checks
  /// --src and --dst). @throws invalid_argument naming the problem.
  void check() const;
  /// The job size every query uses: comm_size_, else the distribution's own ranks.
  int job_size() const;
  StorageMap storage(int rank) const;
  /// The block-cyclic spec as a ScaLAPACK descriptor (block = tile x super-tile) and its
  /// BLACS grid. @pre scalapack_storage()
  scalapack::Descriptor grid_descriptor(index_t ctxt, index_t lld) const;
  scalapack::Grid blacs_grid() const;

  LayoutSpec spec_;
  int comm_size_ = 0;
  GridCoord first_{0, 0};
  GridOrder order_ = GridOrder::row_major;
  index_t lld_ = 0;  ///< a descriptor's LLD_, 0 for a spec
};

}  // namespace redist_python
