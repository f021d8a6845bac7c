#pragma once
// A planned move between two layouts, for one element type, behind one interface: the
// bindings are type-independent and each element type's engine is compiled in a unit of its
// own (typed_engine.cpp.in).
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/compiled_engine.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/plan_header.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/region.hpp>
#include <redist/set_up_times.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

#include "local_arrays.hpp"
#include "py_layout.hpp"
#include "runtime.hpp"

/// Calls X(T) for every element type the module moves: the compiled engine's and int64.
#define REDIST_PYTHON_ELEMENT_TYPES(X) REDIST_COMPILED_ELEMENT_TYPES(X) X(std::int64_t)

namespace redist_python {

/// What a move is planned for. alpha and beta are converted to the element type (an error
/// if they do not fit it: a complex value for a real type, a fraction for an integer).
struct MoveRequest {
  const PyLayout* src = nullptr;
  const PyLayout* dst = nullptr;
  boost::mpi::communicator comm;
  Region region;
  Op op = Op::none;
  std::complex<double> alpha{1, 0}, beta{0, 0};
  Triangle triangle{};
  PlanOptions plan;
  ExecutionOptions execution;
};

/// What a move reports about itself on this rank.
struct MoveReport {
  PlanStats stats;
  index_t batch = 0, batches = 0;
  index_t buffer_bytes = 0;
  SetUpTimes set_up;  ///< the construction's: plan, and wiring to stand-in storage
  SetUpTimes bind;    ///< the last binding to the caller's arrays (no plan)
  index_t bindings = 0;
  /// Messages this rank sent, per transport that carried any ("node-window": 3).
  std::vector<std::pair<std::string, index_t>> sent_by_transport;
};

class MoveEngine : public Releasable {
 public:
  /// The move's own communicator (a duplicate of the caller's).
  virtual const boost::mpi::communicator& communicator() const = 0;
  /// Whether the move is bound to exactly these arrays (no binding needed).
  virtual bool bound_to(const LocalStorage& a, const LocalStorage& b) const = 0;
  /// Binds the plan to these arrays (Redistributor::rebind: no planning). Collective.
  virtual void bind(const LocalStorage& a, const LocalStorage& b) = 0;
  virtual void redistribute() = 0;
  virtual void start() = 0;
  virtual bool test() = 0;
  virtual void wait() = 0;
  virtual bool released() const = 0;
  virtual MoveReport report() const = 0;
};

/// Plans the move (Redistributor's construction, collective; its errors on every rank
/// alike) with stand-in storage: the first call binds the caller's arrays.
template <class T>
std::unique_ptr<MoveEngine> make_engine(const MoveRequest& request);

#define REDIST_PYTHON_EXTERN(T) \
  extern template std::unique_ptr<MoveEngine> make_engine<T>(const MoveRequest&);
REDIST_PYTHON_ELEMENT_TYPES(REDIST_PYTHON_EXTERN)
#undef REDIST_PYTHON_EXTERN

}  // namespace redist_python
