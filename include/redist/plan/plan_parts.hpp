#pragma once
/// @file plan/plan_parts.hpp
/// Several matrices in one exchange: the compact plans of K parts (each its own source,
/// target and region, layouts free to differ) merged into one plan whose message
/// (peer, batch) carries the families of every part between the two ranks, so a move
/// of K matrices sends one message per peer per batch, not K.
///
/// Part k's groups follow part k - 1's in the merged group lists and its families are
/// tagged `part = k`; family order puts part before everything else
/// (block_family.hpp), so the families of a merged message are part 0's in their order,
/// then part 1's, and both ends, merging the same parts alike, lay them out alike.
/// Batches are merged by index: batch b holds every part's batch b.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/compact_plan.hpp>

namespace redist {

/// Merges the plans of the parts of one move (one rank's, all made for the same rank,
/// communicator size and options) into one. Statistics add up.
/// @pre !parts.empty(); every part's families have part == 0.
inline CompactPlan merge_parts(std::vector<CompactPlan> parts) {
  REDIST_EXPECTS(!parts.empty());
  if (parts.size() == 1) return std::move(parts.front());
  CompactPlan plan;
  plan.rank = parts.front().rank;
  plan.comm_size = parts.front().comm_size;
  plan.options = parts.front().options;
  plan.batch = parts.front().batch;
  plan.per_axis = true;
  for (const CompactPlan& p : parts) {
    plan.batches = std::max(plan.batches, p.batches);
    plan.per_axis = plan.per_axis && p.per_axis;
  }
  std::vector<index_t> row_base, col_base;
  for (const CompactPlan& p : parts) {
    row_base.push_back(static_cast<index_t>(plan.row_groups.size()));
    col_base.push_back(static_cast<index_t>(plan.col_groups.size()));
    plan.row_groups.insert(plan.row_groups.end(), p.row_groups.begin(), p.row_groups.end());
    plan.col_groups.insert(plan.col_groups.end(), p.col_groups.begin(), p.col_groups.end());
    for (std::size_t c = 0; c < p.stats.categories.size(); ++c)
      plan.stats.categories[c] += p.stats.categories[c];
    plan.stats.dst_tiles += p.stats.dst_tiles;
    plan.scanned_tiles += p.scanned_tiles;
  }
  // One direction: messages of every part in (batch, peer) order, merged where equal.
  const auto merge = [&](FamilyList CompactPlan::*member) {
    FamilyList& out = plan.*member;
    out.batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);
    std::vector<std::size_t> next(parts.size(), 0);  // next message of each part
    std::vector<BlockFamily> families;
    for (;;) {
      // The smallest (batch, peer) not yet merged.
      const Message* first = nullptr;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        const FamilyList& d = parts[k].*member;
        if (next[k] == d.messages.size()) continue;
        const Message& m = d.messages[next[k]];
        if (!first || m.batch < first->batch || (m.batch == first->batch && m.peer < first->peer))
          first = &m;
      }
      if (!first) break;
      const int peer = first->peer;
      const index_t batch = first->batch;
      families.clear();
      for (std::size_t k = 0; k < parts.size(); ++k) {
        const FamilyList& d = parts[k].*member;
        if (next[k] == d.messages.size()) continue;
        const Message& m = d.messages[next[k]];
        if (m.batch != batch || m.peer != peer) continue;
        for (index_t f = m.first; f < m.first + m.count; ++f) {
          BlockFamily fam = d.families[static_cast<std::size_t>(f)];
          fam.rows.group += row_base[k];
          fam.cols.group += col_base[k];
          fam.part = static_cast<index_t>(k);
          families.push_back(fam);
        }
        ++next[k];
      }
      detail::append_message(out, peer, batch, families, plan.row_groups, plan.col_groups);
    }
  };
  merge(&CompactPlan::send);
  merge(&CompactPlan::recv);
  merge(&CompactPlan::local);
  detail::family_stats(plan);
  return plan;
}

}  // namespace redist
