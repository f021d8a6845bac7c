#pragma once
/// @file engine/progress_thread.hpp
/// The thread that runs an execution between start() and wait() when
/// ExecutionOptions::progress is ProgressPolicy::thread (executor.hpp). One per executor,
/// started at its first start() and kept: each execution is a job handed to it, so a
/// repeated move pays a wake-up, not a thread. What the job throws reaches the caller's
/// wait() (or test()).
///
/// MPI: the job calls MPI from this thread while the caller may compute. The caller and
/// the job never call MPI at once as long as the caller makes no MPI call until wait(),
/// so MPI_THREAD_SERIALIZED suffices (MPI_THREAD_MULTIPLE lets the caller call MPI too).

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <mpi.h>

#include <redist/detail/progress_thread_mark.hpp>
#include <redist/error.hpp>

namespace redist::engine {

/// The name of an MPI thread level, as the MPI standard writes it.
inline const char* mpi_thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown MPI thread level";
  }
}

/// Why a progress thread cannot run under MPI thread level `provided`; empty when it can.
inline std::string progress_thread_refusal(int provided) {
  if (provided >= MPI_THREAD_SERIALIZED) return {};
  return detail::describe(std::string("a progress thread calls MPI from a thread of its own: "
                                      "initialize MPI with MPI_THREAD_SERIALIZED or "
                                      "MPI_THREAD_MULTIPLE (this program has ") +
                              mpi_thread_level_name(provided) + ")",
                          "ExecutionOptions::progress", "thread");
}

/// @throws invalid_argument (progress_thread_refusal) if MPI was initialized with less
/// than MPI_THREAD_SERIALIZED.
inline void require_progress_thread_support() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (std::string why = progress_thread_refusal(provided); !why.empty())
    throw invalid_argument(why);
}

class ProgressThread {
 public:
  ProgressThread() = default;
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  /// Lets a job in progress finish, then ends the thread.
  ~ProgressThread() {
    if (!thread_.joinable()) return;
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  /// Hands `job` to the thread (started on the first call). @pre no job in progress.
  void launch(std::function<void()> job) {
    launched_ = true;
    {
      const std::lock_guard lock(mutex_);
      busy_.store(true, std::memory_order_relaxed);
      job_ = std::move(job);
    }
    if (!thread_.joinable())
      thread_ = std::thread([this] { serve(); });
    else
      wake_.notify_one();
  }

  /// Whether a job was handed over and has not been joined.
  bool launched() const { return launched_; }
  /// Whether the job handed over has ended (or none was).
  bool done() const { return !busy_.load(std::memory_order_acquire); }
  /// Blocks (without spinning) until the job has ended; rethrows what it threw.
  void join() {
    {
      std::unique_lock lock(mutex_);
      ended_.wait(lock, [this] { return !busy_.load(std::memory_order_relaxed); });
    }
    launched_ = false;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve() {
    const detail::ProgressThreadMark mark;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || job_; });
      if (stop_ && !job_) return;
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      lock.unlock();
      try {
        job();
      } catch (...) {
        error_ = std::current_exception();
      }
      lock.lock();
      busy_.store(false, std::memory_order_release);
      ended_.notify_all();
    }
  }

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;   ///< a job or the end for the thread
  std::condition_variable ended_;  ///< the job's end for join()
  std::function<void()> job_;      ///< guarded by mutex_
  bool stop_ = false;              ///< guarded by mutex_
  /// Set and cleared under mutex_; read without it by done().
  std::atomic<bool> busy_{false};
  std::exception_ptr error_;  ///< written by the thread before it clears busy_
  bool launched_ = false;     ///< the caller's side only
};

}  // namespace redist::engine
