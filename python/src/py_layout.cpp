#include "py_layout.hpp"

#include <algorithm>
#include <string>

#include <redist/error.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/scalapack/layout.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/layout_options.hpp>

namespace redist_python {

PyLayout::PyLayout(std::string_view text, int comm_size, const PyLayout* source)
    : spec_(redist::tools::parse_layout(text, "layout")), comm_size_(comm_size) {
  if (source) spec_ = redist::tools::with_source(spec_, source->spec_);
  check();
}

void PyLayout::check() const {
  // Whether it can be made at all (synth from its source, sizes in 64 bits, enough ranks), as
  // redist-run checks --dst; without a communicator size, for the ranks it names itself.
  if (spec_.distribution.is<redist::tools::RandomSpec>() && comm_size_ == 0) return;
  try {
    redist::tools::check_layout_option(spec_, "layout", job_size(), 1);
  } catch (const redist::tools::UsageError& e) {
    throw redist::invalid_argument("redist: " + e.argument + ": " + e.message);
  }
}

PyLayout PyLayout::from_descriptor(const scalapack::Descriptor& d, int nprow, int npcol,
                                   GridOrder order, int comm_size) {
  const auto grid = [&] { return std::to_string(nprow) + "x" + std::to_string(npcol); };
  if (nprow < 1 || npcol < 1)
    throw redist::invalid_argument("redist: descriptor: the BLACS grid must be positive, got " +
                                   grid());
  if (const auto fault = scalapack::descriptor_fault(d, scalapack::Grid{nprow, npcol}))
    throw redist::invalid_argument("redist: descriptor: " + std::string(fault->entry) + "_ " +
                                   fault->rule + ", got " + std::to_string(fault->value) +
                                   " (grid " + grid() + ")");
  // The grammar's spelling of it; the first owner and the grid order ride beside it.
  PyLayout l(std::to_string(d.m) + "x" + std::to_string(d.n) + "/" + std::to_string(d.mb) + "x" +
                 std::to_string(d.nb) + "/bc:" + grid() + "/scalapack",
             comm_size);
  l.first_ = GridCoord{static_cast<int>(d.rsrc), static_cast<int>(d.csrc)};
  l.order_ = order;
  l.lld_ = d.lld;
  return l;
}

PyLayout PyLayout::on(int comm_size) const {
  if (comm_size_ != 0 && comm_size_ != comm_size)
    throw redist::invalid_argument("redist: layout '" + text() + "' was made for " +
                                   std::to_string(comm_size_) + " ranks, the communicator has " +
                                   std::to_string(comm_size));
  PyLayout l = *this;
  l.comm_size_ = comm_size;
  l.check();
  return l;
}

int PyLayout::ranks() const {
  if (spec_.distribution.is<redist::tools::RandomSpec>() && comm_size_ == 0)
    throw redist::invalid_argument(
        "redist: layout: random owners are drawn over the communicator: give its size, "
        "Layout('" +
        spec_.text + "', comm)");
  return static_cast<int>(spec_.ranks(comm_size_));
}

int PyLayout::job_size() const { return comm_size_ > 0 ? comm_size_ : ranks(); }

GridMatrixLayout PyLayout::grid_layout() const {
  const auto& g = spec_.distribution.as<redist::tools::BlockCyclicSpec>().grid;
  return {redist::tools::make_shape(spec_), BlockCyclic(g.P, g.Q, g.kp, g.kq, first_, order_)};
}

TileMatrixLayout PyLayout::tile_layout(int comm_size) const {
  return redist::tools::make_layout(spec_, comm_size);
}

StorageMap PyLayout::storage(int rank) const {
  if (scalapack_storage()) return ScalapackColumnMajor<>{}.map(grid_layout(), rank);
  return tile_placement().map(tile_layout(job_size()), rank);
}

LocalExtents PyLayout::local(int rank) const {
  if (rank < 0 || (comm_size_ > 0 && rank >= comm_size_))
    throw redist::invalid_argument(
        redist::describe("layout: rank outside the communicator", "rank", rank) +
        " (size = " + std::to_string(comm_size_) + ")");
  LocalExtents e;
  if (!scalapack_storage()) {
    e.allocations = storage(rank).allocation_sizes();
    return e;
  }
  // NUMROC on each axis, at the rank's grid coordinate (none outside the grid).
  const Extents x = scalapack::local_extents(grid_descriptor(0, 1), blacs_grid(), rank);
  e.rows = x.rows;
  e.cols = x.cols;
  e.allocations = {e.rows * e.cols};
  return e;
}

void PyLayout::global_indices(int rank, std::vector<index_t>& rows,
                              std::vector<index_t>& cols) const {
  const LocalExtents e = local(rank);
  const StorageMap map = storage(rank);
  std::vector<index_t> base;  // where each allocation starts in the concatenation
  index_t total = 0;
  for (const index_t a : e.allocations) base.push_back(std::exchange(total, total + a));
  rows.assign(static_cast<std::size_t>(total), -1);
  cols.assign(static_cast<std::size_t>(total), -1);
  const SpecShape shape = redist::tools::make_shape(spec_);
  map.for_each_tile([&](TileIndex t) {
    const TileSlot s = map.slot(t);
    const ElementIndex o = tile_origin(shape, t);
    const Extents x = tile_extents(shape, t);
    const index_t start = base[static_cast<std::size_t>(s.allocation)] + s.offset;
    for (index_t j = 0; j < x.cols; ++j)
      for (index_t i = 0; i < x.rows; ++i) {
        const auto k = static_cast<std::size_t>(start + i + j * s.ld);
        rows[k] = o.i + i;
        cols[k] = o.j + j;
      }
  });
}

scalapack::Descriptor PyLayout::descriptor(int rank, index_t ctxt) const {
  if (!scalapack_storage())
    throw redist::invalid_argument("redist: layout: a descriptor needs ScaLAPACK storage, got '" +
                                   text() + "'");
  return grid_descriptor(ctxt, std::max({lld_, local(rank).rows, index_t{1}}));
}

scalapack::Descriptor PyLayout::grid_descriptor(index_t ctxt, index_t lld) const {
  const auto& g = spec_.distribution.as<redist::tools::BlockCyclicSpec>().grid;
  return {1,
          ctxt,
          spec_.extent.rows,
          spec_.extent.cols,
          spec_.tile.rows * g.kp,
          spec_.tile.cols * g.kq,
          first_.p,
          first_.q,
          lld};
}

scalapack::Grid PyLayout::blacs_grid() const {
  const auto& g = spec_.distribution.as<redist::tools::BlockCyclicSpec>().grid;
  return {g.P, g.Q, order_ == GridOrder::column_major};
}

bool PyLayout::same_as(const PyLayout& o) const {
  return redist::tools::to_string(spec_) == redist::tools::to_string(o.spec_) &&
         first_ == o.first_ && order_ == o.order_;
}

}  // namespace redist_python
