#pragma once
/// @file engine/store_choice.hpp
/// How each bound copy of an engine stores (engine/bound_copies.hpp): streamed
/// (non-temporal), streamed and stitched (engine/stitched_runs.hpp), or cached, by the
/// engine's StreamingChoice (engine/streaming_choice.hpp) applied copy by copy, once every
/// copy is bound; and again for the local parts swept with a pack (engine/fused_sweeps.hpp),
/// whose reads no longer have gaps.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <redist/copy/strided_copy.hpp>
#include <redist/engine/stitched_runs.hpp>
#include <redist/engine/streaming_choice.hpp>

namespace redist::engine {

/// Sets the stores of every copy: unpacks (`recv`) and local copies into the target where
/// `choice` streams it and they read densely; each sent chunk c's packs (`send`, copies
/// `sent[c]`) into its message, never into a ring slot (`in_ring(c)`), or, pushed
/// (`pushed[c]`), into the peer's target as an unpack would, stitched where their runs
/// continue each other there. Copies that share a list of runs come one after another:
/// each list is scanned once.
template <class T, class InRing>
void choose_stores(const StreamingChoice& choice, CopyPool<T>& send,
                   const std::vector<CopyRange>& sent, const std::vector<std::uint8_t>& pushed,
                   InRing&& in_ring, CopyPool<T>& recv, CopyPool<T>& local) {
  for (CopyPool<T>* p : {&recv, &local}) {
    LastRunSummary summaries;
    for (auto& c : p->copies) c.streaming = choice.into_target(c, summaries.of(c, p->runs));
  }
  LastRunSummary summaries;
  StitchedRuns stitched;
  for (std::size_t chunk = 0; chunk < sent.size(); ++chunk)
    for (std::size_t k = sent[chunk].first; k < sent[chunk].second; ++k) {
      StridedCopy<T>& c = send.copies[k];
      const RunSummary runs = summaries.of(c, send.runs);
      c.streaming = pushed[chunk] ? choice.into_target(c, runs)
                                  : choice.into_message(c, runs, in_ring(chunk));
      if (pushed[chunk] && choice.stitches() && stitched.order(c, send.runs))
        c.streaming = c.stitched = true;
    }
}

/// Sets the stores of the local parts swept with the pack they follow (`swept(p)`, part p's
/// copies `parts[p]`, following sent chunk follows[p]). A swept part reads its source in one
/// pass with the pack, so it streams into the target whenever the target streams
/// (reads_densely's reason against it is gone): at 2 ranks case c took 0.85-0.92 of the time
/// of the parts run after their pack, case a 0.94-1.00 (bench/README.md, "One sweep per
/// column"). A part that follows a pushed chunk stores into a target like the push: stitched
/// where its runs continue each other there, else by the rule of a part on its own. Run by
/// run, streamed stores of a column split into short runs measured 1.06x (case a) and 1.4x
/// (case c) slower than cached ones; stitched, 0.6x and 0.94x (bench/README.md, "Stitched
/// stores").
template <class T, class Swept>
void choose_swept_stores(const StreamingChoice& choice, CopyPool<T>& local,
                         const std::vector<CopyRange>& parts,
                         const std::vector<std::size_t>& follows,
                         const std::vector<std::uint8_t>& pushed, Swept&& swept) {
  StitchedRuns stitched;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (!swept(p)) continue;
    for (std::size_t k = parts[p].first; k < parts[p].second; ++k) {
      StridedCopy<T>& c = local.copies[k];
      if (!pushed[follows[p]])
        c.streaming = choice.target;
      else if (choice.stitches() && local.op.plain() && stitched.order(c, local.runs))
        c.streaming = c.stitched = true;
    }
  }
}

}  // namespace redist::engine
