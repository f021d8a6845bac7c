#pragma once
/// @file engine/pack_followers.hpp
/// Which local part follows which pack (task_graph.hpp, follow_packs): one pass over the
/// source. Where a column goes partly to a peer and partly to this rank's own target (case
/// a: 100-row pieces of 256-row columns), the pack and the local copy each read the source
/// with gaps. Run apart, each fetches lines the other then fetches again from memory;
/// run back to back on the same columns, the second finds them in the cache, and the
/// source crosses memory once (bench/README.md, "One pass over the source"). The pairing
/// is by the source addresses each reads: a local part follows the sent chunk of its
/// batch whose span overlaps its own most. pack_followers is pure (spans in, chunks out);
/// local_followers takes the spans from an engine's bound copies.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include <redist/index.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>

namespace redist::engine {

/// The address range [first, second) around what a copy program reads; empty when
/// first == second.
struct AddressSpan {
  std::uintptr_t first = 0, second = 0;
  bool empty() const { return first >= second; }
  friend bool operator==(const AddressSpan&, const AddressSpan&) = default;
};

/// Bytes that a and b share.
inline std::uintptr_t overlap(const AddressSpan& a, const AddressSpan& b) {
  const std::uintptr_t lo = std::max(a.first, b.first), hi = std::min(a.second, b.second);
  return lo < hi ? hi - lo : 0;
}

/// Sent chunks a local part looks at on each side of the one that starts at or before
/// it, in the order of their starts: chunks to several peers read the same columns, and
/// the one that shares the most with the part is near it in that order.
inline constexpr std::size_t follower_candidates = 8;

/// For local part p (span local[p], batch local_batch[p]), the sent chunk c of the same
/// batch whose span sent[c] shares the most with local[p] relative to the two spans
/// together (overlap / union), among the follower_candidates chunks nearest it by start on
/// each side, of those that share at least half of p's span; SIZE_MAX when none shares that
/// much or p's span is empty. Relative, not absolute: in tile storage a chunk of a member of
/// other columns, cut between segments, spans several tiles and so wraps a part of this
/// member's columns, and took it from the pack it reads with by a few bytes more of overlap
/// (case a: half the packs left without followers, 10 % slower; bench/README.md, "Flat
/// messages cut between segments everywhere"). Ties go to the chunk that starts first.
/// O((C + P) log C).
inline std::vector<std::size_t> pack_followers(const std::vector<AddressSpan>& sent,
                                               const std::vector<index_t>& sent_batch,
                                               const std::vector<AddressSpan>& local,
                                               const std::vector<index_t>& local_batch) {
  std::vector<std::size_t> order;  // sent chunks with a span, by (batch, start)
  for (std::size_t c = 0; c < sent.size(); ++c)
    if (!sent[c].empty()) order.push_back(c);
  const auto key = [&](std::size_t c) { return std::pair{sent_batch[c], sent[c].first}; };
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::vector<std::size_t> follows(local.size(), SIZE_MAX);
  for (std::size_t p = 0; p < local.size(); ++p) {
    if (local[p].empty()) continue;
    const std::pair at{local_batch[p], local[p].first};
    const auto it = std::upper_bound(order.begin(), order.end(), at,
                                     [&](const auto& v, std::size_t c) { return v < key(c); });
    const auto here = static_cast<std::size_t>(it - order.begin());
    const std::size_t lo = here > follower_candidates ? here - follower_candidates : 0;
    const std::size_t hi = std::min(order.size(), here + follower_candidates);
    // At least half of the part's span: the two read the same columns, each with gaps.
    // Less is a part of other columns that a chunk's span only brushes (case b: whole
    // columns stay or go), and tying it to that pack would only take it from the waits
    // that it fills.
    const std::uintptr_t least = (local[p].second - local[p].first + 1) / 2;
    double best = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      const std::size_t c = order[i];
      if (sent_batch[c] != local_batch[p]) continue;
      const std::uintptr_t shared = overlap(sent[c], local[p]);
      if (shared < least) continue;
      const std::uintptr_t both =
          std::max(sent[c].second, local[p].second) - std::min(sent[c].first, local[p].first);
      // In start order: a tie keeps the first.
      const double share = static_cast<double>(shared) / static_cast<double>(both);
      if (share > best) {
        best = share;
        follows[p] = c;
      }
    }
  }
  return follows;
}

/// pack_followers on the source spans of `copies` (engine/bound_copies.hpp) for graph's
/// sent chunks and local parts. A chunk that packs nothing here (read in place, or packed by
/// MPI) has an empty span, so no part follows it.
template <class Copies>
std::vector<std::size_t> local_followers(const Plan& plan, const TaskGraph& graph,
                                         const Copies& copies) {
  const std::vector<AddressSpan> sent = copies.sent_source_spans();
  const std::vector<AddressSpan> local = copies.local_source_spans();
  std::vector<index_t> sent_batch, local_batch;
  for (const Chunk& c : graph.send.chunks)
    sent_batch.push_back(plan.send.messages[c.message].batch);
  for (const Chunk& p : graph.local.chunks)
    local_batch.push_back(plan.local.messages[p.message].batch);
  return pack_followers(sent, sent_batch, local, local_batch);
}

}  // namespace redist::engine
