// redist.Layout: a layout of redist-run's grammar or from a ScaLAPACK descriptor, and the
// local storage a rank needs for it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <redist/error.hpp>

#include "bindings.hpp"
#include "bound_layout.hpp"
#include "communicator.hpp"
#include "local_arrays.hpp"
#include "py_layout.hpp"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace redist_python {
namespace {

// The communicator size and rank of `comm`: an mpi4py communicator, an int (the size), or
// None.
std::pair<int, std::optional<int>> size_and_rank(py::handle comm) {
  if (comm.is_none()) return {0, std::nullopt};
  if (py::isinstance<py::int_>(comm)) {
    const int n = comm.cast<int>();
    if (n < 1)
      throw redist::invalid_argument(
          redist::describe("layout: communicator size must be positive", "comm", n));
    return {n, std::nullopt};
  }
  const boost::mpi::communicator c = communicator_of(comm);
  return {c.size(), c.rank()};
}

// numpy.empty(shape, dtype, order) starting on a page: NumPy aligns its own to 16 bytes only,
// and where an array starts within its page changes how fast the same move runs (bench/python/
// README.md: a move into columns that straddle cache lines took 1.15x as long, and case c's
// source at 64 bytes into a page 1.07x as long as at 0). From 4 MiB on, NumPy advises huge
// pages from the allocation's first 2 MiB boundary: starting the array there puts all of it
// in huge pages, as TiledMatrix's own allocations (detail/huge_pages.hpp).
py::object aligned_empty(py::tuple shape, const py::dtype& dtype, const char* order) {
  py::ssize_t elements = 1;
  for (py::handle n : shape) elements *= n.cast<py::ssize_t>();
  const py::ssize_t bytes = elements * dtype.itemsize();
  const py::ssize_t align = bytes >= (py::ssize_t{4} << 20) ? py::ssize_t{2} << 20 : 4096;
  py::array_t<std::uint8_t> raw(bytes + align);
  const auto address = reinterpret_cast<std::uintptr_t>(raw.data());
  const py::ssize_t skip = static_cast<py::ssize_t>((align - address % align) % align);
  py::object bytes_view = raw[py::slice(skip, skip + bytes, 1)];
  return bytes_view.attr("view")(dtype).attr("reshape")(shape, py::arg("order") = order);
}

py::tuple shape_tuple(const std::vector<index_t>& shape) {
  py::tuple t(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k) t[k] = py::int_(shape[k]);
  return t;
}

// What `rank` stores, as NumPy arrays of `dtype` made by `make(shape, order)`: one array, or
// a list of them where the layout has several allocations.
template <class Make>
py::object local_arrays(const BoundLayout& l, int rank, Make&& make) {
  const bool grid = l.layout.scalapack_storage();
  const auto shapes = local_shapes(l.layout.local(rank), grid);
  const char* order = grid ? "F" : "C";
  if (shapes.size() == 1) return make(shape_tuple(shapes[0]), order);
  py::list out;
  for (const auto& s : shapes) out.append(make(shape_tuple(s), order));
  return std::move(out);
}

}  // namespace

void bind_layout(py::module_& m) {
  py::class_<BoundLayout>(m, "Layout", R"doc(
A distributed matrix layout in redist-run's grammar, MxN/MBxNB/DIST[/STORAGE]
(docs/redist-run.md), e.g. "8192x8192/256x256/bc:1x4/scalapack".

comm: the mpi4py communicator it is used on (or its size as an int); random:SEED needs
it, and with it the local-storage methods default to this process's rank.
source: the layout a synth:... target is synthesized from.
Raises redist.Error naming the offending piece and the whole text.)doc")
      .def(py::init([](const std::string& text, py::handle comm, const BoundLayout* source) {
             const auto [size, rank] = size_and_rank(comm);
             return BoundLayout{PyLayout(text, size, source ? &source->layout : nullptr), rank};
           }),
           py::arg("text"), py::arg("comm") = py::none(), py::arg("source") = nullptr)
      .def_static(
          "from_descriptor",
          [](const std::vector<index_t>& desc, std::pair<int, int> grid, const std::string& order,
             py::handle comm) {
            if (desc.size() < 9)
              throw redist::invalid_argument(redist::describe(
                  "descriptor: a ScaLAPACK descriptor has 9 entries", "len(desc)", desc.size()));
            if (order != "R" && order != "C")
              throw redist::invalid_argument(
                  "redist: descriptor: order must be 'R' (row-major, "
                  "Cblacs_gridinit's \"Row\") or 'C', got '" +
                  order + "'");
            const auto [size, rank] = size_and_rank(comm);
            return BoundLayout{
                PyLayout::from_descriptor(
                    scalapack::Descriptor::from_array(desc.data()), grid.first, grid.second,
                    order == "R" ? GridOrder::row_major : GridOrder::column_major, size),
                rank};
          },
          py::arg("desc"), py::arg("grid"), py::arg("order") = "R", py::arg("comm") = py::none(),
          R"doc(The layout of ScaLAPACK descriptor `desc` (9 integers) on a BLACS grid of
grid = (nprow, npcol) processes numbered row-major ('R', Cblacs_gridinit's "Row") or
column-major ('C'). RSRC_/CSRC_ become the first owner; LLD_ is kept for descriptor().
Raises redist.Error for an entry ScaLAPACK's p?gemr2d refuses.)doc")
      .def_property_readonly(
          "text", [](const BoundLayout& l) { return l.layout.text(); },
          "The layout in redist-run's grammar (canonical form).")
      .def_property_readonly(
          "extent",
          [](const BoundLayout& l) {
            return std::pair{l.layout.spec().extent.rows, l.layout.spec().extent.cols};
          })
      .def_property_readonly(
          "tile",
          [](const BoundLayout& l) {
            return std::pair{l.layout.spec().tile.rows, l.layout.spec().tile.cols};
          })
      .def_property_readonly(
          "storage",
          [](const BoundLayout& l) { return l.layout.scalapack_storage() ? "scalapack" : "tile"; })
      .def_property_readonly(
          "ranks", [](const BoundLayout& l) { return l.layout.ranks(); },
          "Ranks the distribution uses.")
      .def_property_readonly(
          "first_owner",
          [](const BoundLayout& l) {
            return std::pair{l.layout.first_owner().p, l.layout.first_owner().q};
          },
          "Grid coordinate of the first tile (a descriptor's RSRC_, CSRC_).")
      .def_property_readonly("grid_order",
                             [](const BoundLayout& l) {
                               return l.layout.grid_order() == GridOrder::row_major ? "R" : "C";
                             })
      .def(
          "local_shapes",
          [](const BoundLayout& l, std::optional<int> rank) {
            std::vector<py::tuple> out;
            for (const auto& s :
                 local_shapes(l.layout.local(l.rank_or(rank)), l.layout.scalapack_storage()))
              out.push_back(shape_tuple(s));
            return out;
          },
          py::arg("rank") = py::none(),
          "Shapes of the arrays `rank` stores: [(LOCr, LOCc)] for ScaLAPACK storage (Fortran "
          "order), [(elements,)] per allocation for tile storage.")
      .def(
          "local_shape",
          [](const BoundLayout& l, std::optional<int> rank) {
            const auto shapes =
                local_shapes(l.layout.local(l.rank_or(rank)), l.layout.scalapack_storage());
            if (shapes.size() != 1)
              throw redist::invalid_argument("redist: layout '" + l.layout.text() + "' stores " +
                                             std::to_string(shapes.size()) +
                                             " allocations a rank: use local_shapes()");
            return shape_tuple(shapes[0]);
          },
          py::arg("rank") = py::none(), "The shape of the one array `rank` stores.")
      .def(
          "empty",
          [](const BoundLayout& l, std::optional<int> rank, py::handle dtype) {
            const py::dtype dt = element_dtype(dtype);
            return local_arrays(l, l.rank_or(rank), [&](py::tuple shape, const char* order) {
              return aligned_empty(shape, dt, order);
            });
          },
          py::arg("rank") = py::none(), py::arg("dtype") = py::dtype::of<double>(),
          "Uninitialised local storage of `rank`: one array (a list for several allocations) "
          "of the right shape, order and dtype, starting on a page (a 2 MiB one from 4 MiB on).")
      .def(
          "global_indices",
          [](const BoundLayout& l, std::optional<int> rank) {
            const int r = l.rank_or(rank);
            std::vector<index_t> rows, cols;
            l.layout.global_indices(r, rows, cols);
            // Cut into the storage's arrays, each shaped and ordered like empty()'s.
            std::size_t at = 0;
            const auto take = [&](const std::vector<index_t>& from) {
              return [&](py::tuple shape, const char* order) {
                const py::module_ np = py::module_::import("numpy");
                py::object out = np.attr("empty")(shape, py::dtype::of<index_t>(), order);
                auto buf = out.cast<py::array_t<index_t>>();
                std::copy(from.begin() + static_cast<std::ptrdiff_t>(at),
                          from.begin() + static_cast<std::ptrdiff_t>(at + buf.size()),
                          buf.mutable_data());
                at += static_cast<std::size_t>(buf.size());
                return out;
              };
            };
            py::object i = local_arrays(l, r, take(rows));
            at = 0;
            py::object j = local_arrays(l, r, take(cols));
            return py::make_tuple(i, j);
          },
          py::arg("rank") = py::none(),
          "(I, J): the global row and column of every element `rank` stores, int64 arrays "
          "shaped like empty()'s; -1 where the storage holds no element (padding).")
      .def(
          "descriptor",
          [](const BoundLayout& l, std::optional<int> rank, index_t ctxt) {
            const scalapack::Descriptor d = l.layout.descriptor(l.rank_or(rank), ctxt);
            return std::vector<index_t>{d.dtype, d.ctxt, d.m,    d.n,  d.mb,
                                        d.nb,    d.rsrc, d.csrc, d.lld};
          },
          py::arg("rank") = py::none(), py::arg("ctxt") = 0,
          "The ScaLAPACK descriptor of `rank`'s local array, 9 integers, in BLACS context "
          "`ctxt`. Raises redist.Error for tile storage.")
      .def("__eq__",
           [](const BoundLayout& a, const BoundLayout& b) { return a.layout.same_as(b.layout); })
      .def("__str__", [](const BoundLayout& l) { return l.layout.text(); })
      .def("__repr__", [](const BoundLayout& l) {
        std::string s = "redist.Layout('" + l.layout.text() + "'";
        const GridCoord f = l.layout.first_owner();
        if (f.p != 0 || f.q != 0)
          s += ", first_owner=(" + std::to_string(f.p) + ", " + std::to_string(f.q) + ")";
        if (l.layout.grid_order() == GridOrder::column_major) s += ", grid_order='C'";
        return s + ")";
      });
}

}  // namespace redist_python
