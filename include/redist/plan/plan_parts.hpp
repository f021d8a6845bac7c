#pragma once
/// @file plan/plan_parts.hpp
/// Several matrices in one exchange: the plans of K parts (each its own source,
/// target and region, layouts free to differ) merged into one plan whose message
/// (peer, batch) carries the families of every part between the two ranks, so a move
/// of K matrices sends one message per peer per batch, not K.
///
/// Each distinct part plan's groups follow the previous one's in the merged group lists
/// (parts of one plan share them) and part k's families are tagged `part = k`; family
/// order puts part before everything else
/// (block_family.hpp), so the families of a merged message are part 0's in their order,
/// then part 1's, and both ends, merging the same parts alike, lay them out alike.
/// Batches are merged by index: batch b holds every part's batch b.
///
/// detail::plan_parts plans a Redistributor's parts (part.hpp) and merges them, planning
/// once the parts that share a plan.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/error.hpp>
#include <redist/part.hpp>
#include <redist/plan.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/plan_header.hpp>
#include <redist/transform.hpp>

namespace redist {

/// Merges the plans of the parts of one move (one rank's, all made for the same rank,
/// communicator size and options) into one; parts[k] is part k's plan, and several parts
/// may point at one plan (parts of the same layouts and region), whose groups they then
/// share. Statistics add up (scanned_tiles, packed_pieces: once per distinct plan). Cost:
/// O(K + groups + families + messages + comm_size + batches), recorded in
/// Plan::merge_steps.
/// @pre !parts.empty(); every part's families have part == 0.
inline Plan merge_parts(const std::vector<const Plan*>& parts) {
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

/// merge_parts of plans held by value.
inline Plan merge_parts(std::vector<Plan> parts) {
  REDIST_EXPECTS(!parts.empty());
  if (parts.size() == 1) return std::move(parts.front());
  std::vector<const Plan*> pointers;
  for (const Plan& p : parts) pointers.push_back(&p);
  return merge_parts(pointers);
}

namespace detail {

/// Whether two parts have the same plan: equal regions and layouts (operator== of the
/// tilings and distributions; a type without one is never the same).
template <class Src, class Dst>
bool same_plan(const Part<Src, Dst>& a, const Part<Src, Dst>& b) {
  const auto same = [](const auto& x, const auto& y) {
    if constexpr (requires { static_cast<bool>(x == y); })
      return static_cast<bool>(x == y);
    else
      return false;
  };
  return a.region == b.region && same(a.src->layout().shape(), b.src->layout().shape()) &&
         same(a.src->layout().distribution(), b.src->layout().distribution()) &&
         same(a.dst->layout().shape(), b.dst->layout().shape()) &&
         same(a.dst->layout().distribution(), b.dst->layout().distribution());
}

/// Part p's plan on `rank` of `ranks` (of op(A)'s layout when transposing).
/// @pre p's region is valid.
template <class Src, class Dst, class T>
Plan plan_part(const Part<Src, Dst>& p, const Transform<T>& t, const PlanOptions& options, int rank,
               int ranks) {
  if (t.transposes())
    return make_plan(transposed(p.src->layout()), p.dst->layout(), transposed(p.region), rank,
                     ranks, options, t.triangle);
  return make_plan(p.src->layout(), p.dst->layout(), p.region, rank, ranks, options, t.triangle);
}

/// The parts' plans on `rank` of `ranks`, each under `budget` bytes of buffers, merged.
/// Parts with the same plan (same_plan, looked up by plan_hash(k), a hash of what fixes
/// part k's plan) share one: K matrices of one layout are planned once.
/// @throws invalid_argument naming max_buffer_bytes when `budget` (a share of it) is too
/// small for a part; what make_plan throws.
template <class Src, class Dst, class T, class PlanHash>
Plan plan_parts(const std::vector<Part<Src, Dst>>& parts, const PlanHash& plan_hash,
                const Transform<T>& t, PlanOptions options, index_t budget, int rank, int ranks) {
  const index_t whole = options.max_buffer_bytes;
  options.max_buffer_bytes = budget;
  std::vector<Plan> distinct;
  std::vector<std::size_t> plan_of(parts.size());
  std::unordered_map<std::uint64_t, std::size_t> first_with;  // plan_hash -> part
  try {
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (k > 0 && same_plan(parts[k - 1], parts[k])) {  // the common case, without hashing
        plan_of[k] = plan_of[k - 1];
        continue;
      }
      const auto [it, fresh] = first_with.try_emplace(plan_hash(k), k);
      if (!fresh && same_plan(parts[it->second], parts[k])) {
        plan_of[k] = plan_of[it->second];
        continue;
      }
      plan_of[k] = distinct.size();
      distinct.push_back(plan_part(parts[k], t, options, rank, ranks));
    }
  } catch (const invalid_argument& e) {
    if (budget == whole) throw;
    throw invalid_argument(detail::describe(
        std::string("max_buffer_bytes too small for ") + std::to_string(parts.size()) +
            " parts moved together (each gets an equal share; " + e.what() + ")",
        "max_buffer_bytes", whole));
  }
  std::vector<const Plan*> plans;
  plans.reserve(parts.size());
  for (const std::size_t d : plan_of) plans.push_back(&distinct[d]);
  Plan plan = merge_parts(plans);
  plan.options.max_buffer_bytes = whole;
  return plan;
}

}  // namespace detail

}  // namespace redist
