// redist.Redistributor: plans a move between two layouts once, then moves the caller's NumPy
// arrays in place as often as asked, with the GIL released while data moves.
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <redist/collective/collectively.hpp>
#include <redist/error.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/layout_options.hpp>

#include "bindings.hpp"
#include "bound_layout.hpp"
#include "call_agreement.hpp"
#include "communicator.hpp"
#include "local_arrays.hpp"
#include "move_engine.hpp"
#include "options.hpp"
#include "runtime.hpp"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace redist_python {

py::dtype element_dtype(py::handle obj) {
  const py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
  bool known = false;
#define REDIST_PYTHON_KNOWN(T) known = known || dt.equal(py::dtype::of<T>());
  REDIST_PYTHON_ELEMENT_TYPES(REDIST_PYTHON_KNOWN)
#undef REDIST_PYTHON_KNOWN
  if (!known)
    throw redist::invalid_argument("redist: dtype " + std::string(py::str(py::handle(dt))) +
                                   " is not moved (float32, float64, complex64, complex128, "
                                   "int32 or int64)");
  return dt;
}

namespace {

using MakeEngine = std::unique_ptr<MoveEngine> (*)(const MoveRequest&);

// The engine maker of `dt`'s element type. @pre element_dtype accepted dt.
MakeEngine engine_maker(const py::dtype& dt) {
  MakeEngine make = nullptr;
#define REDIST_PYTHON_MAKER(T) \
  if (!make && dt.equal(py::dtype::of<T>())) make = &make_engine<T>;
  REDIST_PYTHON_ELEMENT_TYPES(REDIST_PYTHON_MAKER)
#undef REDIST_PYTHON_MAKER
  return make;
}

Op parse_op(const std::string& op) {
  if (op == "n" || op == "N") return Op::none;
  if (op == "t" || op == "T") return Op::transpose;
  if (op == "c" || op == "C") return Op::conj_transpose;
  throw redist::invalid_argument("redist: op must be 'n', 't' or 'c', got '" + op + "'");
}

Triangle parse_triangle(const std::optional<std::string>& uplo, const std::string& diag) {
  Triangle t;
  if (uplo) {
    if (*uplo != "l" && *uplo != "u" && *uplo != "L" && *uplo != "U")
      throw redist::invalid_argument("redist: uplo must be 'l', 'u' or None, got '" + *uplo + "'");
    t.uplo = (*uplo == "l" || *uplo == "L") ? Uplo::lower : Uplo::upper;
  }
  if (diag != "n" && diag != "u" && diag != "N" && diag != "U")
    throw redist::invalid_argument("redist: diag must be 'n' or 'u', got '" + diag + "'");
  t.diag = (diag == "u" || diag == "U") ? Diag::unit : Diag::non_unit;
  if (t.diag == Diag::unit && !uplo)
    throw redist::invalid_argument("redist: diag='u' needs uplo (the diagonal of which triangle?)");
  return t;
}

// The region given as text (redist-run's --region grammar) or None (the largest common
// top-left block), checked to fit both layouts.
Region region_of(const std::optional<std::string>& text, const PyLayout& src, const PyLayout& dst,
                 Op op) {
  std::optional<Region> given;
  if (text) given = redist::tools::parse_region(*text, "region");
  try {
    return redist::tools::region_option(given, src.spec(), dst.spec(), op);
  } catch (const redist::tools::UsageError& e) {
    throw redist::region_error("redist: region: " + e.message);
  }
}

class PyRedistributor {
 public:
  PyRedistributor(const BoundLayout& src, const BoundLayout& dst, py::handle comm,
                  const std::optional<std::string>& region, const std::string& op,
                  std::complex<double> alpha, std::complex<double> beta,
                  const std::optional<std::string>& uplo, const std::string& diag, py::handle dtype,
                  const py::kwargs& options)
      : src_(src.layout), dst_(dst.layout) {
    ensure_runtime();
    MoveRequest q;
    q.comm = communicator_of(comm);
    rank_ = q.comm.rank();
    MakeEngine make = nullptr;
    // Bad input on some ranks only raises on every rank; no rank reaches the plan.
    redist::detail::collectively(q.comm, [&] {
      dtype_ = element_dtype(dtype);
      make = engine_maker(dtype_);
      src_ = src.layout.on(q.comm.size());
      dst_ = dst.layout.on(q.comm.size());
      q.op = parse_op(op);
      q.triangle = parse_triangle(uplo, diag);
      q.region = region_of(region, src_, dst_, q.op);
      q.alpha = alpha;
      q.beta = beta;
      const MoveOptions o = move_options(options);
      q.plan = o.plan;
      q.execution = o.execution;
    });
    q.src = &src_;
    q.dst = &dst_;
    region_ = q.region;
    py::gil_scoped_release free;
    engine_ = make(q);  // collective; the Redistributor's errors arrive on every rank alike
  }

  void redistribute(py::handle a, py::handle b) {
    prepare(a, b, "redistribute");
    py::gil_scoped_release free;
    engine().redistribute();
  }
  void start(py::handle a, py::handle b) {
    prepare(a, b, "start");
    {
      py::gil_scoped_release free;
      engine().start();
    }
    started_ = true;
  }
  bool test() {
    require_started("test");
    py::gil_scoped_release free;
    return engine().test();
  }
  void wait() {
    require_started("wait");
    {
      py::gil_scoped_release free;
      engine().wait();
    }
    started_ = false;
  }

  py::dict stats() const {
    const MoveReport m = engine().report();
    const PlanStats& s = m.stats;
    const auto times = [](const SetUpTimes& t) {
      py::dict d;
      d["plan"] = t.plan, d["wiring"] = t.wiring, d["buffers"] = t.buffers;
      return d;
    };
    py::dict d, by;
    d["rank"] = rank_;
    d["src"] = src_.text(), d["dst"] = dst_.text();
    d["region"] = redist::tools::to_string(region_);
    d["dtype"] = dtype_;
    d["elements_sent"] = s.elements_sent, d["elements_received"] = s.elements_received;
    d["elements_local"] = s.elements_local;
    d["messages_sent"] = s.messages_sent, d["messages_received"] = s.messages_received;
    d["segments_sent"] = s.segments_sent, d["segments_received"] = s.segments_received;
    d["segments_local"] = s.segments_local;
    d["dst_tiles"] = s.dst_tiles;
    d["categories"] = std::vector<index_t>(s.categories.begin(), s.categories.end());
    d["buffer_elements"] = s.buffer_elements;
    d["plan_bytes"] = s.plan_bytes, d["schedule_bytes"] = s.schedule_bytes;
    d["nodes"] = s.nodes;
    d["elements_sent_inter_node"] = s.elements_sent_inter_node;
    d["elements_received_inter_node"] = s.elements_received_inter_node;
    d["batch"] = m.batch, d["batches"] = m.batches;
    d["buffer_bytes"] = m.buffer_bytes;
    d["set_up"] = times(m.set_up);
    d["bind"] = times(m.bind);
    d["bindings"] = m.bindings;
    for (const auto& [how, n] : m.sent_by_transport) by[py::str(how)] = n;
    d["messages_sent_by_transport"] = by;
    return d;
  }

  // Collective: the engine's windows and communicator are freed with it.
  void close() {
    if (!engine_) return;
    a_ = py::object(), b_ = py::object();
    py::gil_scoped_release free;
    engine_.reset();
  }
  ~PyRedistributor() {
    py::gil_scoped_release free;
    engine_.reset();
  }

  std::string region_text() const { return redist::tools::to_string(region_); }
  const py::dtype& dtype() const { return dtype_; }

 private:
  MoveEngine& engine() const {
    if (!engine_ || engine_->released())
      throw redist::error("redist: this Redistributor was closed (close(), or MPI was finalized)");
    return *engine_;
  }
  void require_started(const char* what) const {
    if (!started_) throw redist::error(std::string("redist: ") + what + "() without start(a, b)");
  }

  // Checks a and b here, agrees with every rank (one all-reduce) and binds the plan to them
  // if any rank's arrays changed; then the move may run. Collective.
  void prepare(py::handle a, py::handle b, const char* what) {
    MoveEngine& e = engine();
    if (started_)
      throw redist::error(std::string("redist: ") + what +
                          "() while a start() is in progress: wait() first");
    Refusal refusal;
    LocalStorage sa, sb;
    try {
      sa = local_storage(src_, rank_, a, dtype_, false, "a");
      sb = local_storage(dst_, rank_, b, dtype_, true, "b");
    } catch (const std::exception& x) {
      refusal.take(x);
    }
    const bool changed = !refusal.refused() && !e.bound_to(sa, sb);
    {
      py::gil_scoped_release free;
      if (!agree_on_call(e.communicator(), refusal, changed)) return;
      e.bind(sa, sb);  // collective: on every rank when any rank's arrays changed
    }
    // Kept alive while the plan points at them.
    a_ = py::reinterpret_borrow<py::object>(a);
    b_ = py::reinterpret_borrow<py::object>(b);
  }

  PyLayout src_, dst_;
  int rank_ = 0;
  Region region_;
  py::dtype dtype_;
  std::unique_ptr<MoveEngine> engine_;
  py::object a_, b_;
  bool started_ = false;
};

}  // namespace

void bind_redistributor(py::module_& m) {
  py::class_<PyRedistributor>(m, "Redistributor", R"doc(
Plans moving `region` of src_layout into dst_layout over the mpi4py communicator `comm`,
as target = alpha * op(source) + beta * target (op 'n', 't' or 'c'; uplo 'l' or 'u' keeps
one triangle, diag 'u' leaves its diagonal out). Collective; every error is raised on every
rank alike (redist.Error). region: redist-run's grammar "RxC[@I,J->K,L]", or None for
the largest common top-left block. dtype: the element type of the arrays it will move.
Keyword options: every member of redist's PlanOptions and ExecutionOptions by name
(redist.option_names()). A Redistributor is freed collectively: close() it (or use it in a
with statement) on every rank.)doc")
      .def(py::init<const BoundLayout&, const BoundLayout&, py::handle,
                    const std::optional<std::string>&, const std::string&, std::complex<double>,
                    std::complex<double>, const std::optional<std::string>&, const std::string&,
                    py::handle, const py::kwargs&>(),
           py::arg("src_layout"), py::arg("dst_layout"), py::arg("comm"),
           py::arg("region") = py::none(), py::arg("op") = "n", py::arg("alpha") = 1.0,
           py::arg("beta") = 0.0, py::arg("uplo") = py::none(), py::arg("diag") = "n",
           py::arg("dtype") = py::dtype::of<double>())
      .def("redistribute", &PyRedistributor::redistribute, py::arg("a"), py::arg("b"),
           "Moves from local array a into b, in place. Collective. The first call, and a call "
           "with other arrays than the last, binds the plan to them (no new plan).")
      .def("start", &PyRedistributor::start, py::arg("a"), py::arg("b"),
           "Starts the move and returns; neither array may be touched until wait().")
      .def("test", &PyRedistributor::test, "Advances the move started; True once complete.")
      .def("wait", &PyRedistributor::wait, "Completes the move started.")
      .def("stats", &PyRedistributor::stats,
           "This rank's plan statistics, buffers and set-up times in seconds (set_up: the "
           "construction; bind: the last binding to arrays), as a dict.")
      .def("close", &PyRedistributor::close, "Frees the plan and its buffers. Collective.")
      .def_property_readonly("region", &PyRedistributor::region_text)
      .def_property_readonly("dtype", &PyRedistributor::dtype)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyRedistributor& r, py::args) { r.close(); });
  m.def("option_names", &option_names,
        "The keyword options of Redistributor (PlanOptions and ExecutionOptions members).");
}

}  // namespace redist_python
