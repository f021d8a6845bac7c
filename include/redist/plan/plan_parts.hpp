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

#include <redist/compiled_engine.hpp>
#include <redist/config.hpp>
#include <redist/error.hpp>
#include <redist/part.hpp>
#include <redist/plan.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/plan_header.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/transform.hpp>

namespace redist {

/// Merges the plans of the parts of one move (one rank's, all made for the same rank,
/// communicator size and options) into one; parts[k] is part k's plan, and several parts
/// may point at one plan (parts of the same layouts and region), whose groups they then
/// share. Statistics add up (scanned_tiles, packed_pieces: once per distinct plan). Cost:
/// O(K + groups + families + messages + comm_size + batches), recorded in
/// Plan::merge_steps.
/// @pre !parts.empty(); every part's families have part == 0.
REDIST_COMPILED_INLINE Plan merge_parts(const std::vector<const Plan*>& parts);

/// merge_parts of plans held by value.
REDIST_COMPILED_INLINE Plan merge_parts(std::vector<Plan> parts);

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
  return make_plan(p.src->layout(), p.dst->layout(), p.region, rank, ranks, options, t.triangle,
                   t.op);
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

#if !defined(REDIST_COMPILED_ENGINE)
#include <redist/plan/plan_parts_definitions.hpp>
#endif
