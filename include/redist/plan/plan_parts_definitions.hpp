#pragma once
/// @file plan/plan_parts_definitions.hpp
/// The definitions of plan_parts.hpp's out-of-line functions: included by that header
/// when redist is header-only, compiled once into redist::engine otherwise
/// (compiled/front.cpp, REDIST_COMPILED_INLINE in compiled_engine.hpp).

#include <redist/plan/plan_parts.hpp>

namespace redist {

REDIST_COMPILED_INLINE Plan merge_parts(const std::vector<const Plan*>& parts) {
  REDIST_EXPECTS(!parts.empty());
  const Plan& front = *parts.front();
  if (parts.size() == 1) {
    Plan plan = front;
    plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());
    return plan;
  }
  Plan plan(front.rank, front.comm_size, front.options);
  plan.batch = front.batch;
  plan.per_axis = true;
  // Groups are copied once per distinct plan: parts of one plan share them (a family's
  // order depends on its part first, then on group indices inside the part's plan).
  std::unordered_map<const Plan*, std::size_t> seen;  // plan -> first part
  std::vector<index_t> row_base, col_base;
  row_base.reserve(parts.size());
  col_base.reserve(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Plan* p = parts[k];
    plan.batches = std::max(plan.batches, p->batches);
    plan.per_axis = plan.per_axis && p->per_axis;
    for (std::size_t c = 0; c < p->stats.categories.size(); ++c)
      plan.stats.categories[c] += p->stats.categories[c];
    plan.stats.dst_tiles += p->stats.dst_tiles;
    const std::size_t first =
        k > 0 && parts[k - 1] == p ? row_base.size() - 1 : seen.try_emplace(p, k).first->second;
    if (first < k) {
      row_base.push_back(row_base[first]);
      col_base.push_back(col_base[first]);
      continue;
    }
    row_base.push_back(static_cast<index_t>(plan.row_groups.size()));
    col_base.push_back(static_cast<index_t>(plan.col_groups.size()));
    plan.row_groups.insert(plan.row_groups.end(), p->row_groups.begin(), p->row_groups.end());
    plan.col_groups.insert(plan.col_groups.end(), p->col_groups.begin(), p->col_groups.end());
    plan.scanned_tiles += p->scanned_tiles;
    plan.packed_pieces += p->packed_pieces;
  }
  plan.merge_steps += static_cast<index_t>(parts.size());
  // One direction: messages of every part in (batch, peer) order, merged where equal.
  // Two stable counting sorts (by peer, then by batch) order them in O(messages + ranks +
  // batches), parts in order inside a key; a scan of every part per message was O(K^2).
  struct Ref {
    std::size_t part;
    const Message* message;
  };
  std::vector<Ref> refs, sorted;
  std::vector<std::size_t> first;
  const auto counting_sort = [&](std::size_t keys, auto&& key) {
    first.assign(keys + 1, 0);
    for (const Ref& r : refs) ++first[key(r) + 1];
    for (std::size_t k = 0; k < keys; ++k) first[k + 1] += first[k];
    sorted.resize(refs.size());
    for (const Ref& r : refs) sorted[first[key(r)]++] = r;
    refs.swap(sorted);
    plan.merge_steps += static_cast<index_t>(2 * refs.size() + keys);
  };
  const auto merge = [&](FamilyList Plan::*member) {
    FamilyList& out = plan.*member;
    out.batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);
    refs.clear();
    std::size_t families_in = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const FamilyList& d = (*parts[k]).*member;
      for (const Message& m : d.messages) refs.push_back(Ref{k, &m});
      families_in += d.families.size();
    }
    out.families.reserve(families_in);
    counting_sort(static_cast<std::size_t>(plan.comm_size),
                  [](const Ref& r) { return static_cast<std::size_t>(r.message->peer); });
    counting_sort(static_cast<std::size_t>(plan.batches),
                  [](const Ref& r) { return static_cast<std::size_t>(r.message->batch); });
    const auto same_key = [&](std::size_t r0, std::size_t r1) {
      return refs[r1].message->peer == refs[r0].message->peer &&
             refs[r1].message->batch == refs[r0].message->batch;
    };
    // Sized once for the largest merged message (K parts may meet in one), not by doubling.
    std::size_t largest = 0;
    for (std::size_t r0 = 0, r1 = 0; r0 < refs.size(); r0 = r1) {
      std::size_t n = 0;
      for (r1 = r0; r1 < refs.size() && same_key(r0, r1); ++r1)
        n += static_cast<std::size_t>(refs[r1].message->count);
      largest = std::max(largest, n);
    }
    plan.merge_steps += static_cast<index_t>(refs.size());
    std::vector<BlockFamily> families;
    families.reserve(largest);
    for (std::size_t r0 = 0, r1 = 0; r0 < refs.size(); r0 = r1) {
      const int peer = refs[r0].message->peer;
      const index_t batch = refs[r0].message->batch;
      families.clear();
      for (r1 = r0; r1 < refs.size() && same_key(r0, r1); ++r1) {
        const std::size_t k = refs[r1].part;
        const Message& m = *refs[r1].message;
        const FamilyList& d = (*parts[k]).*member;
        for (index_t f = m.first; f < m.first + m.count; ++f) {
          BlockFamily fam = d.families[static_cast<std::size_t>(f)];
          fam.rows.group += row_base[k];
          fam.cols.group += col_base[k];
          fam.part = static_cast<index_t>(k);
          families.push_back(fam);
        }
        plan.merge_steps += 1 + m.count;
      }
      detail::append_message(out, peer, batch, families, plan.row_groups, plan.col_groups);
    }
  };
  merge(&Plan::send);
  merge(&Plan::recv);
  merge(&Plan::local);
  detail::family_stats(plan);
  plan.stats.plan_bytes = static_cast<index_t>(plan.memory_bytes());
  return plan;
}

REDIST_COMPILED_INLINE Plan merge_parts(std::vector<Plan> parts) {
  REDIST_EXPECTS(!parts.empty());
  if (parts.size() == 1) return std::move(parts.front());
  std::vector<const Plan*> pointers;
  for (const Plan& p : parts) pointers.push_back(&p);
  return merge_parts(pointers);
}

}  // namespace redist
