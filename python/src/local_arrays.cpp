#include "local_arrays.hpp"

#include <sstream>

#include <redist/error.hpp>

namespace py = pybind11;

namespace redist_python {
namespace {

std::string shape_text(const std::vector<index_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (std::size_t k = 0; k < shape.size(); ++k) os << (k ? ", " : "") << shape[k];
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

[[noreturn]] void refuse(const std::string& name, const std::string& what) {
  throw redist::storage_error("redist: " + name + ": " + what);
}

// The array at `obj`, its dtype, alignment and writability checked; never converted.
py::array checked_array(py::handle obj, const py::dtype& dtype, bool writable,
                        const std::string& name) {
  if (!py::isinstance<py::array>(obj))
    refuse(name, "expected a numpy.ndarray, got " + std::string(py::str(py::type::handle_of(obj))));
  py::array a = py::reinterpret_borrow<py::array>(obj);
  if (!a.dtype().is(dtype) && !a.dtype().equal(dtype))
    refuse(name, "expected dtype " + std::string(py::str(py::handle(dtype))) + ", got " +
                     std::string(py::str(py::handle(a.dtype()))));
  if (!(a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
    refuse(name, "the array is not aligned for its dtype");
  if (writable && !a.writeable()) refuse(name, "the target array is read-only");
  return a;
}

std::vector<index_t> shape_of(const py::array& a) {
  return std::vector<index_t>(a.shape(), a.shape() + a.ndim());
}

}  // namespace

std::vector<std::vector<index_t>> local_shapes(const LocalExtents& e, bool scalapack) {
  if (scalapack) return {{e.rows, e.cols}};
  std::vector<std::vector<index_t>> shapes;
  for (const index_t n : e.allocations) shapes.push_back({n});
  return shapes;
}

LocalStorage local_storage(const PyLayout& layout, int rank, py::handle arrays,
                           const py::dtype& dtype, bool writable, const std::string& name) {
  const LocalExtents e = layout.local(rank);
  LocalStorage s;
  if (layout.scalapack_storage()) {
    const py::array a = checked_array(arrays, dtype, writable, name);
    const std::vector<index_t> shape = shape_of(a);
    const std::string want = "a Fortran-ordered array of shape (LLD, " + std::to_string(e.cols) +
                             "), LLD >= " + std::to_string(e.rows) + " (ScaLAPACK storage of '" +
                             layout.text() + "' on rank " + std::to_string(rank) + ")";
    if (a.ndim() != 2 || shape[0] < e.rows || shape[1] != e.cols)
      refuse(name, "expected " + want + ", got shape " + shape_text(shape));
    if (!(a.flags() & py::array::f_style) && a.size() > 1)
      refuse(name, "expected " + want + ", got an array that is not Fortran-contiguous");
    s.data.push_back(a.size() > 0 ? const_cast<void*>(a.data()) : nullptr);
    s.elements.push_back(a.size());
    s.ld = a.size() > 0 ? shape[0] : 0;  // 0: the placement's own, for an empty array
    return s;
  }
  // Tile storage: one array, or a list (tuple) of one per allocation.
  const std::size_t count = e.allocations.size();
  std::vector<py::handle> given;
  if (py::isinstance<py::list>(arrays) || py::isinstance<py::tuple>(arrays)) {
    for (py::handle h : arrays) given.push_back(h);
  } else {
    given.push_back(arrays);
  }
  if (given.size() != count)
    refuse(name, "'" + layout.text() + "' stores " + std::to_string(count) +
                     " allocations on rank " + std::to_string(rank) + ", got " +
                     std::to_string(given.size()) + " arrays");
  for (std::size_t k = 0; k < count; ++k) {
    const std::string which = count > 1 ? name + "[" + std::to_string(k) + "]" : name;
    const py::array a = checked_array(given[k], dtype, writable, which);
    const std::vector<index_t> shape = shape_of(a);
    const std::vector<index_t> want{e.allocations[k]};
    if (shape != want)
      refuse(which, "expected a 1-D array of shape " + shape_text(want) + " (tile storage of '" +
                        layout.text() + "' on rank " + std::to_string(rank) + "), got shape " +
                        shape_text(shape));
    if (!(a.flags() & py::array::c_style))
      refuse(which, "expected a contiguous 1-D array, got a strided one");
    s.data.push_back(a.size() > 0 ? const_cast<void*>(a.data()) : nullptr);
    s.elements.push_back(a.size());
  }
  return s;
}

}  // namespace redist_python
