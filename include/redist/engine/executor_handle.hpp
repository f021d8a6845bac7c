#pragma once
/// @file engine/executor_handle.hpp
/// The Redistributor's executor behind a pointer: what Redistributor<Src, Dst> asks of its
/// executor, declared without the engine. The members are defined in
/// engine/executor_handle_definitions.hpp, which the Redistributor's header includes when
/// redist is header-only. With the compiled engine (REDIST_COMPILED_ENGINE,
/// compiled_engine.hpp) they are compiled once in redist::engine for its element types in
/// host memory, so a program's units parse no executor, transport or task graph
/// (docs/build-speed.md).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>

#include <redist/compiled_engine.hpp>
#include <redist/config.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/plan_type.hpp>
#include <redist/task_counts.hpp>
#include <redist/transform.hpp>
#include <redist/transport_kind.hpp>
#include <redist/views/matrix_view.hpp>

namespace redist {

template <class T, class MemorySpace>
class Executor;
struct TaskGraph;

namespace detail {

/// Owns one Executor<T, MemorySpace> (executor.hpp) and forwards to it.
template <class T, class MemorySpace>
class ExecutorHandle {
 public:
  using execution_space = typename MemorySpace::execution_space;
  using Views = std::vector<MatrixView<T, MemorySpace>>;

  /// Executor(plan, srcs, dsts, comm, options, transform): wires the plan. Collective.
  ExecutorHandle(Plan plan, const Views& srcs, const Views& dsts, boost::mpi::communicator comm,
                 ExecutionOptions options, Transform<T> transform);
  /// The same plan, options and transform wired to other matrices (rebind()). Collective.
  ExecutorHandle rewired(const Views& srcs, const Views& dsts,
                         const boost::mpi::communicator& comm) const;
  ExecutorHandle(ExecutorHandle&&) noexcept;
  ExecutorHandle& operator=(ExecutorHandle&&) noexcept;
  ~ExecutorHandle();

  void run(const execution_space& exec);
  void start(const execution_space& exec);
  bool test(std::size_t chunks);
  void wait();
  bool running() const;
  std::size_t tasks_left() const;

  const Plan& plan() const;
  const TaskGraph& graph() const;
  const Transform<T>& transform() const;
  const ExecutionOptions& options() const;
  index_t buffer_bytes() const;
  double buffer_seconds() const;
  std::pair<index_t, index_t> messages(Transport how) const;
  std::pair<index_t, index_t> described_chunks() const;
  const std::string& cross_memory_refused() const;
  const TaskCounts& tasks_run() const;
  const std::vector<std::uint32_t>& completion_order() const;

 private:
  explicit ExecutorHandle(std::unique_ptr<Executor<T, MemorySpace>> executor);

  std::unique_ptr<Executor<T, MemorySpace>> executor_;
};

/// Names <T, MemorySpace> to argument-dependent lookup (executor_definitions_visible).
template <class T, class MemorySpace>
struct EngineTag {};

/// Whether ExecutorHandle's members are defined in this unit: no, says this overload; the
/// definitions header adds one for EngineTag that says yes, which argument-dependent lookup
/// finds where the Redistributor is instantiated if that header was included by then.
constexpr bool executor_definitions_visible(const void*) { return false; }

/// Whether redist::engine holds ExecutorHandle<T, MemorySpace> (compiled_engine.hpp's list).
template <class T, class MemorySpace>
inline constexpr bool compiled_engine_holds =
    std::is_same_v<MemorySpace, Kokkos::HostSpace> &&
#define REDIST_IS_COMPILED_ELEMENT(E) std::is_same_v<T, E> ||
    (REDIST_COMPILED_ELEMENT_TYPES(REDIST_IS_COMPILED_ELEMENT) false);
#undef REDIST_IS_COMPILED_ELEMENT

}  // namespace detail
}  // namespace redist

#if defined(REDIST_COMPILED_ENGINE)
// Compiled once, in redist::engine (compiled/engine.cpp.in).
namespace redist::detail {
#define REDIST_EXTERN_HANDLE(T) extern template class ExecutorHandle<T, Kokkos::HostSpace>;
REDIST_COMPILED_ELEMENT_TYPES(REDIST_EXTERN_HANDLE)
#undef REDIST_EXTERN_HANDLE
}  // namespace redist::detail
#endif
