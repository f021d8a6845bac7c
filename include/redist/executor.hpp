#pragma once
/// @file executor.hpp
/// Runs one rank's task graph (task_graph.hpp): copy programs (copy/run_copies.hpp) on an
/// execution-space instance, messages through the transports (transport/transport.hpp).
///
/// What it runs is wired once, collectively, when it is constructed (engine/wired.hpp):
/// transports, buffers, task graph, copies and schedule. One execution is a walk of that
/// graph by the loop (engine/execution_loop.hpp), which stops between any two tasks and
/// resumes on the next call. The executor decides who drives the loop, and how much:
/// start() opens the first batch and packs the first chunk of each of its messages; each
/// test() copies about test_chunks chunks (packs, unpacks, local copies) and never blocks;
/// wait() runs the rest, blocking on MPI. So a caller that computes and calls test() now
/// and then keeps the move going without being held long. With ExecutionOptions::progress
/// = thread, start() hands the whole loop to the rank's progress thread
/// (engine/progress_thread.hpp) instead: test() only asks whether it is done, wait() blocks
/// until it is.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>

#include <redist/compiled_engine.hpp>
#include <redist/engine/execution_loop.hpp>
#include <redist/engine/progress_thread.hpp>
#include <redist/engine/wired.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform.hpp>
#include <redist/views/matrix_view.hpp>

namespace redist {

template <class T, class MemorySpace>
class Executor {
 public:
  using execution_space = typename MemorySpace::execution_space;

 private:
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

 public:
  /// Wires `plan` to the local tiles of src and dst (engine/wired.hpp). Collective. Both
  /// matrices must outlive the executor; their storage must not move. With a transposing
  /// `transform` the plan is one from the transposed view of src's layout (transform.hpp).
  /// @pre `options` and `transform` agreed by every rank.
  /// @throws on every rank, what one rank's binding threw; communication_error if MPI
  /// fails while setting up the transports (a window, a description).
  template <class SrcMatrix, class DstMatrix>
  Executor(Plan plan, const SrcMatrix& src, DstMatrix& dst, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : Executor(std::move(plan), std::vector<const SrcMatrix*>{&src},
                 std::vector<DstMatrix*>{&dst}, std::move(comm), options, transform) {}

  /// A move of several parts (plan/plan_parts.hpp): srcs[k] and dsts[k] are part k's
  /// matrices. @pre one of each per part of the plan.
  template <class SrcMatrix, class DstMatrix>
  Executor(Plan plan, const std::vector<const SrcMatrix*>& srcs,
           const std::vector<DstMatrix*>& dsts, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : Executor(std::move(plan), matrix_views<T, MemorySpace>(srcs),
                 matrix_views<T, MemorySpace>(dsts), std::move(comm), options, transform) {}

  /// The same, on the matrices' views (views/matrix_view.hpp): what the constructors above
  /// call, so the engine is compiled once per element type and memory space.
  Executor(Plan plan, const std::vector<MatrixView<T, MemorySpace>>& srcs,
           const std::vector<MatrixView<T, MemorySpace>>& dsts, boost::mpi::communicator comm,
           ExecutionOptions options = {}, Transform<T> transform = {})
      : wired_(std::move(plan), srcs, dsts, std::move(comm), options, transform) {}

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  /// Drops its share of the node windows; the last holder of one frees it, collectively
  /// over the node (node_shared.hpp).
  ~Executor() = default;

  const Plan& plan() const { return wired_.plan(); }
  const TaskGraph& graph() const { return wired_.graph(); }
  const Schedule& schedule() const { return wired_.schedule(); }
  const ExecutionOptions& options() const { return wired_.options(); }
  const Transform<T>& transform() const { return wired_.transform(); }
  /// Whether an execution started and has not completed.
  bool running() const { return running_; }
  /// Bytes of message buffers this executor holds (device + host staging + its part of
  /// the node window): at most the plan's PlanStats::buffer_elements elements (twice
  /// when staged).
  index_t buffer_bytes() const { return wired_.buffers().bytes(); }
  /// Seconds this rank took to allocate them and make their pages present.
  double buffer_seconds() const { return wired_.buffer_seconds(); }
  /// Messages this rank sends and receives that travel as `how`.
  std::pair<index_t, index_t> messages(Transport how) const {
    const auto count = [how](const std::vector<Transport>& v) {
      return static_cast<index_t>(std::count(v.begin(), v.end(), how));
    };
    return {count(graph().send_transport), count(graph().recv_transport)};
  }
  /// Chunks this rank sends and receives as MPI derived datatypes (ExecutionOptions::
  /// mpi_datatypes, engine/mpi_described_chunks.hpp).
  std::pair<index_t, index_t> described_chunks() const {
    const auto& p = wired_.transports().point_to_point;
    return {static_cast<index_t>(p.described_sends().count()),
            static_cast<index_t>(p.described_receives().count())};
  }
  /// Why no message goes cross-memory although ExecutionOptions::transport asked for it;
  /// empty otherwise.
  const std::string& cross_memory_refused() const { return wired_.cross_memory_refused(); }
  /// Tasks run by the execution in progress so far, or by the last one, per kind.
  const TaskCounts& tasks_run() const { return loop_.tasks_run(); }
  /// The tasks (graph vertices) in the order they completed in the execution in progress
  /// so far, or in the last one.
  const std::vector<std::uint32_t>& completion_order() const { return loop_.completion_order(); }

  /// Chunks' worth of copying (ExecutionOptions::chunk_bytes each) that one test() call
  /// does when not told otherwise.
  static constexpr std::size_t test_chunks = test_chunks_default;

  /// Starts an execution on `exec`: opens the first batch (posts its receives; messages
  /// read in place are announced) and packs and sends the first chunk of each of its
  /// messages (at least a chunk's worth of copying, local copies where nothing is sent);
  /// returns. The rest is done by test() and wait(). @pre no execution in progress.
  void start(const execution_space& exec = execution_space{});

  /// Advances the execution without blocking: hands MPI what it needs to progress,
  /// handles what arrived, and runs ready tasks (packs, unpacks, local copies) until
  /// about `chunks` chunks' worth has been copied (the last copy begun may go over; 0:
  /// no copying, only messages). The next batch opens only once the sends of the last one
  /// are done. Returns true when the execution is complete (wait() then returns at once).
  bool test(std::size_t chunks = test_chunks);

  /// Completes the execution started by start(): runs what is left, blocking on MPI.
  void wait();

  /// Tasks of the execution in progress not completed yet (0 when none is in progress):
  /// after start(), what test() and wait() still have to do (with a progress thread: as
  /// it last counted them).
  std::size_t tasks_left() const { return running_ ? loop_.tasks_left() : 0; }

  /// start() then wait(), on the calling thread whatever ExecutionOptions::progress says
  /// (nothing to overlap with).
  void run(const execution_space& exec = execution_space{});

 private:
  /// Throws if an execution is in progress; else resets the loop for one on `exec`.
  void begin(const execution_space& exec);

  engine::Wired<T, MemorySpace> wired_;
  engine::ExecutionLoop<T, MemorySpace> loop_{wired_};
  bool running_ = false;  ///< the caller's side only
  /// Last, so that it ends (a job in progress finishing first) before the loop goes.
  engine::ProgressThread progress_thread_;
};

// Not inline: a program that links the compiled engine (compiled_engine.hpp) takes the
// loop from there.

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::begin(const execution_space& exec) {
  if (running_) throw error("redist: start() called while an execution is in progress");
  loop_.begin(exec);
  running_ = true;
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::start(const execution_space& exec) {
  begin(exec);
  if (options().progress == ProgressPolicy::thread) {
    progress_thread_.launch([this] {
      loop_.kick_off();
      loop_.complete();
    });
    return;
  }
  loop_.kick_off();
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::run(const execution_space& exec) {
  begin(exec);
  loop_.kick_off();
  wait();
}

template <class T, class MemorySpace>
bool Executor<T, MemorySpace>::test(std::size_t chunks) {
  if (!running_) return true;
  if (progress_thread_.launched()) {
    if (!progress_thread_.done()) return false;
    progress_thread_.join();  // rethrows what the thread threw
    running_ = false;
    return true;
  }
  if (loop_.advance(static_cast<index_t>(chunks) * loop_.chunk_elements())) running_ = false;
  return !running_;
}

template <class T, class MemorySpace>
void Executor<T, MemorySpace>::wait() {
  if (!running_) return;
  if (progress_thread_.launched())
    progress_thread_.join();  // rethrows what the thread threw
  else
    loop_.complete();
  running_ = false;
}

}  // namespace redist

#if defined(REDIST_COMPILED_ENGINE)
// Compiled once, in redist::engine (compiled_engine.hpp).
namespace redist {
#define REDIST_EXTERN_ENGINE(T) REDIST_ENGINE_INSTANCES(extern, T)
REDIST_COMPILED_ELEMENT_TYPES(REDIST_EXTERN_ENGINE)
#undef REDIST_EXTERN_ENGINE
}  // namespace redist
#endif
