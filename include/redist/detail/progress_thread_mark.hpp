#pragma once
/// @file detail/progress_thread_mark.hpp
/// Whether the calling thread is a rank's progress thread (engine/progress_thread.hpp).
/// The host copy runner (copy/run_copies.hpp) asks: a progress thread is meant to take one
/// spare core, so it copies in a plain loop instead of handing the copies to the
/// execution space's thread team (which belongs to the caller's thread).

namespace redist::detail {

inline thread_local bool on_progress_thread = false;

/// Marks the thread that constructs it as a progress thread for its lifetime.
struct ProgressThreadMark {
  ProgressThreadMark() { on_progress_thread = true; }
  ~ProgressThreadMark() { on_progress_thread = false; }
  ProgressThreadMark(const ProgressThreadMark&) = delete;
  ProgressThreadMark& operator=(const ProgressThreadMark&) = delete;
};

}  // namespace redist::detail
