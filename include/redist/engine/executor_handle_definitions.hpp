#pragma once
/// @file engine/executor_handle_definitions.hpp
/// The members of detail::ExecutorHandle (engine/executor_handle.hpp), each forwarding to
/// the Executor. Included by the Redistributor's header when redist is header-only, and by
/// redist::engine's units. With the compiled engine, a unit that moves another element type
/// or device memory includes it (anywhere before it names that Redistributor).

#include <memory>
#include <utility>

#include <redist/engine/executor_handle.hpp>
#include <redist/executor.hpp>

namespace redist::detail {

/// The members below are defined in this unit (executor_handle.hpp).
template <class T, class M>
constexpr bool executor_definitions_visible(const EngineTag<T, M>*) {
  return true;
}

template <class T, class M>
ExecutorHandle<T, M>::ExecutorHandle(Plan plan, const Views& srcs, const Views& dsts,
                                     boost::mpi::communicator comm, ExecutionOptions options,
                                     Transform<T> transform)
    : executor_(std::make_unique<Executor<T, M>>(std::move(plan), srcs, dsts, std::move(comm),
                                                 options, transform)) {}

template <class T, class M>
ExecutorHandle<T, M>::ExecutorHandle(std::unique_ptr<Executor<T, M>> executor)
    : executor_(std::move(executor)) {}

template <class T, class M>
ExecutorHandle<T, M> ExecutorHandle<T, M>::rewired(const Views& srcs, const Views& dsts,
                                                   const boost::mpi::communicator& comm) const {
  return ExecutorHandle(std::make_unique<Executor<T, M>>(
      executor_->plan(), srcs, dsts, comm, executor_->options(), executor_->transform()));
}

template <class T, class M>
ExecutorHandle<T, M>::ExecutorHandle(ExecutorHandle&&) noexcept = default;
template <class T, class M>
ExecutorHandle<T, M>& ExecutorHandle<T, M>::operator=(ExecutorHandle&&) noexcept = default;
template <class T, class M>
ExecutorHandle<T, M>::~ExecutorHandle() = default;

template <class T, class M>
void ExecutorHandle<T, M>::run(const execution_space& exec) {
  executor_->run(exec);
}
template <class T, class M>
void ExecutorHandle<T, M>::start(const execution_space& exec) {
  executor_->start(exec);
}
template <class T, class M>
bool ExecutorHandle<T, M>::test(std::size_t chunks) {
  return executor_->test(chunks);
}
template <class T, class M>
void ExecutorHandle<T, M>::wait() {
  executor_->wait();
}
template <class T, class M>
bool ExecutorHandle<T, M>::running() const {
  return executor_->running();
}
template <class T, class M>
std::size_t ExecutorHandle<T, M>::tasks_left() const {
  return executor_->tasks_left();
}
template <class T, class M>
const Plan& ExecutorHandle<T, M>::plan() const {
  return executor_->plan();
}
template <class T, class M>
const TaskGraph& ExecutorHandle<T, M>::graph() const {
  return executor_->graph();
}
template <class T, class M>
const Transform<T>& ExecutorHandle<T, M>::transform() const {
  return executor_->transform();
}
template <class T, class M>
const ExecutionOptions& ExecutorHandle<T, M>::options() const {
  return executor_->options();
}
template <class T, class M>
index_t ExecutorHandle<T, M>::buffer_bytes() const {
  return executor_->buffer_bytes();
}
template <class T, class M>
double ExecutorHandle<T, M>::buffer_seconds() const {
  return executor_->buffer_seconds();
}
template <class T, class M>
std::pair<index_t, index_t> ExecutorHandle<T, M>::messages(Transport how) const {
  return executor_->messages(how);
}
template <class T, class M>
std::pair<index_t, index_t> ExecutorHandle<T, M>::described_chunks() const {
  return executor_->described_chunks();
}
template <class T, class M>
const std::string& ExecutorHandle<T, M>::cross_memory_refused() const {
  return executor_->cross_memory_refused();
}
template <class T, class M>
const TaskCounts& ExecutorHandle<T, M>::tasks_run() const {
  return executor_->tasks_run();
}
template <class T, class M>
const std::vector<std::uint32_t>& ExecutorHandle<T, M>::completion_order() const {
  return executor_->completion_order();
}

}  // namespace redist::detail
