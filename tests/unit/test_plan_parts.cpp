// A move of several parts, set up in O(K log K) for K parts (issue 24, point 5):
// - the memory check (plan/part_overlaps.hpp) names, on random byte ranges, exactly the pair
//   the pair-by-pair check names (or none), and its work stays O(n log n) where a pairwise
//   check does K^2 comparisons;
// - merge_parts (plan/plan_parts.hpp) lays out every message as a plain merge, part by part in
//   (batch, peer) order, would, with work linear in the parts' messages.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/part_overlaps.hpp>
#include <redist/plan/plan_parts.hpp>
#include <redist/plan/source_target_overlap.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using detail::PartOverlap;
using detail::PartSpan;
using test::Rng;

/// One part's allocations: target and source byte ranges, in allocation order.
struct RangesOfPart {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> dst, src;
};

/// Appends `count` byte ranges of up to 11 bytes (some empty) beginning in [0, space].
void add_random_ranges(Rng& g, std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& side,
                       index_t count, index_t space) {
  for (index_t a = 0; a < count; ++a) {
    const auto b = static_cast<std::uintptr_t>(g.in(0, space));
    side.emplace_back(b, b + static_cast<std::uintptr_t>(g.in(0, 12)));
  }
}

/// The sweep's answer against the pairwise check's; counts the cases that found a pair.
template <class Pair>
void check_same(const std::optional<Pair>& got, const std::optional<Pair>& want, index_t& found) {
  REQUIRE(got.has_value() == want.has_value());
  if (want) {
    CHECK(*got == *want);
    ++found;
  }
}

std::vector<PartSpan> spans_of(const std::vector<RangesOfPart>& parts) {
  std::vector<PartSpan> spans;
  for (std::size_t k = 0; k < parts.size(); ++k)
    for (const bool target : {true, false}) {
      const auto& list = target ? parts[k].dst : parts[k].src;
      for (std::size_t a = 0; a < list.size(); ++a)
        spans.push_back(PartSpan{list[a].first, list[a].second, static_cast<index_t>(k),
                                 static_cast<index_t>(a), target});
    }
  return spans;
}

/// The pair-by-pair check the sweep replaced, as Redistributor::check_parts had it.
std::optional<PartOverlap> pairwise(const std::vector<RangesOfPart>& parts) {
  const auto meet = [](const auto& x, const auto& y) {
    return x.first < x.second && y.first < y.second && x.first < y.second && y.first < x.second;
  };
  for (std::size_t k = 0; k < parts.size(); ++k)
    for (std::size_t l = 0; l < parts.size(); ++l) {
      if (k == l) continue;
      for (std::size_t a = 0; a < parts[k].dst.size(); ++a) {
        const auto at = [&](bool target) {
          return PartOverlap{static_cast<index_t>(k), static_cast<index_t>(l),
                             static_cast<index_t>(a), target};
        };
        for (const auto& o : parts[l].dst)
          if (meet(parts[k].dst[a], o)) return at(true);
        for (const auto& o : parts[l].src)
          if (meet(parts[k].dst[a], o)) return at(false);
      }
    }
  return std::nullopt;
}

/// K parts of `allocs` allocations per side, targets disjoint, every part reading one shared
/// source (a valid move: sources may be shared): the case a pairwise check spends K^2 on.
std::vector<RangesOfPart> shared_source_parts(index_t K, index_t allocs) {
  std::vector<RangesOfPart> parts(static_cast<std::size_t>(K));
  std::uintptr_t at = 1 << 20;
  for (RangesOfPart& p : parts) {
    for (index_t a = 0; a < allocs; ++a) {
      p.dst.emplace_back(at, at + 128);
      at += 256;
      p.src.emplace_back(64, 64 + 512);  // the same source
    }
  }
  return parts;
}

/// A plan merged the plain way: keys (batch, peer) in order, every part in order inside a
/// key, families tagged with their part and their groups moved past the earlier parts'.
Plan reference_merge(std::vector<Plan> parts) {
  Plan plan;
  plan.rank = parts.front().rank;
  plan.comm_size = parts.front().comm_size;
  std::vector<index_t> row_base, col_base;
  for (const Plan& p : parts) {
    plan.batches = std::max(plan.batches, p.batches);
    row_base.push_back(static_cast<index_t>(plan.row_groups.size()));
    col_base.push_back(static_cast<index_t>(plan.col_groups.size()));
    plan.row_groups.insert(plan.row_groups.end(), p.row_groups.begin(), p.row_groups.end());
    plan.col_groups.insert(plan.col_groups.end(), p.col_groups.begin(), p.col_groups.end());
  }
  for (FamilyList Plan::*member : {&Plan::send, &Plan::recv, &Plan::local}) {
    FamilyList& out = plan.*member;
    out.batch_elements.assign(static_cast<std::size_t>(plan.batches), 0);
    std::map<std::pair<index_t, int>, std::vector<BlockFamily>> by_key;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const FamilyList& d = parts[k].*member;
      for (const Message& m : d.messages)
        for (index_t f = m.first; f < m.first + m.count; ++f) {
          BlockFamily fam = d.families[static_cast<std::size_t>(f)];
          fam.rows.group += row_base[k];
          fam.cols.group += col_base[k];
          fam.part = static_cast<index_t>(k);
          by_key[{m.batch, m.peer}].push_back(fam);
        }
    }
    for (auto& [key, families] : by_key)
      detail::append_message(out, key.second, key.first, families, plan.row_groups,
                             plan.col_groups);
  }
  return plan;
}

bool same_messages(const std::vector<Message>& x, const std::vector<Message>& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const Message& a, const Message& b) {
    return a.peer == b.peer && a.batch == b.batch && a.first == b.first && a.count == b.count &&
           a.elements == b.elements && a.buffer_offset == b.buffer_offset;
  });
}

using Uniform = Tiling<UniformAxis<>, UniformAxis<>>;
using L = Layout<Uniform, BlockCyclic>;

/// Part k's plan at `rank` of `np`: layouts and regions that differ from part to part, one
/// source tile column per batch, so parts have different batches and peers. Part `wide`
/// has 1-column tiles and 150 columns: 150 batches where the others have a few (one when
/// `narrow`).
Plan part_plan(index_t k, int rank, int np, index_t wide = -1, bool narrow = false) {
  const index_t m = 12 + k % 7, n = k == wide ? 150 : narrow ? 3 : 10 + k % 5;
  const index_t nb = k == wide ? 1 : 3;
  const L src{Uniform{UniformAxis<>(m, 2 + k % 3), UniformAxis<>(n, nb)}, BlockCyclic(1, np)};
  const L dst{Uniform{UniformAxis<>(m, 4), UniformAxis<>(n, 1 + k % 4)}, BlockCyclic(np, 1)};
  PlanOptions o;
  o.batch = 1;
  return make_plan(src, dst, Region{{m - k % 3, n - k % 2}, {k % 3, k % 2}, {0, 0}}, rank, np, o);
}

/// Messages and families of the parts' plans, all directions.
std::pair<index_t, index_t> sizes(const std::vector<Plan>& plans) {
  index_t messages = 0, families = 0;
  for (const Plan& p : plans)
    for (const FamilyList* d : {&p.send, &p.recv, &p.local}) {
      messages += static_cast<index_t>(d->messages.size());
      families += static_cast<index_t>(d->families.size());
    }
  return {messages, families};
}

index_t merged_messages(const Plan& p) {
  return static_cast<index_t>(p.send.messages.size() + p.recv.messages.size() +
                              p.local.messages.size());
}

}  // namespace

TEST_CASE("part overlaps: the sweep names the pair the pairwise check names") {
  Rng g(24);
  index_t found = 0;
  for (int round = 0; round < 4000; ++round) {
    CAPTURE(round);
    // Few parts and few addresses, so that overlaps of every kind happen often.
    const index_t K = g.in(1, 6), space = g.in(8, 80);
    std::vector<RangesOfPart> parts(static_cast<std::size_t>(K));
    for (RangesOfPart& p : parts)
      for (auto* side : {&p.dst, &p.src}) {
        add_random_ranges(g, *side, g.in(0, 3), space);
      }
    check_same(detail::find_part_overlap(spans_of(parts)).overlap, pairwise(parts), found);
  }
  // Both outcomes, and both kinds of pair, were exercised.
  CHECK(found > 500);
  CHECK(found < 3500);
}

TEST_CASE("part overlaps: lowest part first, then the part it meets, a target before a source") {
  // Parts 1 and 2 offend too (part 1's target meets part 2's, part 2's meets part 0's
  // source), but part 0 is the lowest offender: its allocation 1 meets part 3's source.
  const std::vector<RangesOfPart> four{
      {{{0, 10}, {100, 110}}, {{200, 210}}},
      {{{300, 310}}, {{400, 410}}},
      {{{205, 305}}, {{500, 510}}},
      {{{600, 610}}, {{105, 106}}},
  };
  CHECK(detail::find_part_overlap(spans_of(four)).overlap == PartOverlap{0, 3, 1, false});
  CHECK(pairwise(four) == PartOverlap{0, 3, 1, false});
  // Part 0's target meets part 1's source and part 1's target: the target is named.
  const std::vector<RangesOfPart> two{{{{0, 10}}, {{50, 60}}}, {{{8, 9}}, {{1, 2}}}};
  CHECK(detail::find_part_overlap(spans_of(two)).overlap == PartOverlap{0, 1, 0, true});
  CHECK(pairwise(two) == PartOverlap{0, 1, 0, true});
  // A part's own ranges are not compared (part 0's targets overlap each other, part 1's
  // target its own source); part 1's second source covers part 0's first target.
  const std::vector<RangesOfPart> own{{{{0, 10}, {5, 15}}, {{10, 20}}},
                                      {{{20, 30}, {25, 25}}, {{25, 40}, {0, 30}}}};
  CHECK(detail::find_part_overlap(spans_of(own)).overlap == PartOverlap{0, 1, 0, false});
  CHECK(pairwise(own) == PartOverlap{0, 1, 0, false});
  // Touching ranges and empty ones meet nothing.
  const std::vector<RangesOfPart> touching{{{{0, 10}}, {{10, 20}}},
                                           {{{20, 30}, {5, 5}}, {{30, 40}}}};
  CHECK(!detail::find_part_overlap(spans_of(touching)).overlap);
  CHECK(!pairwise(touching));
}

TEST_CASE("part overlaps: O(n log n) work where a pairwise check does K^2") {
  for (const index_t K : {index_t{1} << 10, index_t{1} << 12, index_t{1} << 14}) {
    CAPTURE(K);
    for (const bool clash : {false, true}) {
      CAPTURE(clash);
      std::vector<RangesOfPart> parts = shared_source_parts(K, 2);
      // Every part also writing part 0's first target: the error path, as large.
      if (clash) {
        const auto first = parts.front().dst.front();
        for (RangesOfPart& p : parts) p.dst.push_back(first);
      }
      const std::vector<PartSpan> spans = spans_of(parts);
      const auto n = static_cast<double>(spans.size());
      const detail::PartOverlapResult r = detail::find_part_overlap(spans);
      CHECK(r.overlap.has_value() == clash);
      if (clash) CHECK(*r.overlap == PartOverlap{0, 1, 0, true});
      // About n log2 n (the sort); a pairwise check compares K^2 / 2 pairs, more than the
      // bound at every K here (1.3e8 against 4.2e6 at K = 2^14).
      const double bound = 4 * n * std::log2(n);
      CHECK(static_cast<double>(r.steps) <= bound);
      CHECK(bound < static_cast<double>(K) * static_cast<double>(K) / 2);
      CHECK(static_cast<double>(r.steps) >= n);
    }
  }
}

TEST_CASE("source-target overlap: the sweep names the pair the pairwise check names") {
  using Ranges = std::vector<detail::ByteRange>;
  // The pair-by-pair check the sweep replaced, as check_matrices had it.
  const auto pairwise_pair =
      [](const Ranges& src,
         const Ranges& dst) -> std::optional<std::pair<std::size_t, std::size_t>> {
    for (std::size_t a = 0; a < src.size(); ++a)
      for (std::size_t b = 0; b < dst.size(); ++b) {
        const auto& x = src[a];
        const auto& y = dst[b];
        if (x.first < x.second && y.first < y.second && x.first < y.second && y.first < x.second)
          return std::pair{a, b};
      }
    return std::nullopt;
  };
  Rng g(44);
  index_t found = 0;
  for (int round = 0; round < 4000; ++round) {
    CAPTURE(round);
    const index_t space = g.in(8, 120);
    Ranges src, dst;
    for (auto* side : {&src, &dst}) add_random_ranges(g, *side, g.in(0, 8), space);
    check_same(detail::find_source_target_overlap(src, dst).pair, pairwise_pair(src, dst), found);
  }
  CHECK(found > 500);
  CHECK(found < 3500);
  // Touching ranges and empty ones meet nothing; the first source that meets anything is
  // named with the first target it meets, not the first target met by any source.
  CHECK(!detail::find_source_target_overlap({{0, 10}, {20, 20}}, {{10, 20}, {15, 15}}).pair);
  CHECK(
      detail::find_source_target_overlap({{0, 5}, {30, 40}, {50, 60}}, {{55, 56}, {35, 36}}).pair ==
      std::pair<std::size_t, std::size_t>{1, 1});
}

TEST_CASE("source-target overlap: O((A + B) log B) where a pairwise check does A x B") {
  // A tile per allocation, sources and targets interleaved in memory as an allocator places
  // them: the case of the main job at 16384^2 (2048 source tiles against 13448 targets).
  for (const std::size_t A : {std::size_t{1} << 10, std::size_t{1} << 12, std::size_t{1} << 14}) {
    CAPTURE(A);
    const std::size_t B = 6 * A;
    for (const bool clash : {false, true}) {
      CAPTURE(clash);
      std::vector<detail::ByteRange> src, dst;
      std::uintptr_t at = 4096;
      for (std::size_t k = 0; k < A + B; ++k, at += 100)
        (k % 7 == 0 ? src : dst).emplace_back(at, at + 64);
      if (clash) dst.push_back(src.back());
      const detail::SourceTargetOverlap r = detail::find_source_target_overlap(src, dst);
      CHECK(r.pair.has_value() == clash);
      if (clash) CHECK(*r.pair == std::pair{src.size() - 1, dst.size() - 1});
      const auto n = static_cast<double>(src.size() + dst.size());
      const double bound = 4 * n * std::log2(n);
      CHECK(static_cast<double>(r.steps) <= bound);
      CHECK(bound < static_cast<double>(src.size()) * static_cast<double>(dst.size()));
    }
  }
}

TEST_CASE("merge_parts: the messages of a plain merge") {
  for (const int np : {2, 3, 5}) {
    for (const int rank : {0, np - 1}) {
      CAPTURE(np);
      CAPTURE(rank);
      for (const index_t K : {2, 17, 300}) {
        CAPTURE(K);
        std::vector<Plan> plans;
        for (index_t k = 0; k < K; ++k) plans.push_back(part_plan(k, rank, np, K / 2));
        const Plan want = reference_merge(plans);
        const Plan got = merge_parts(plans);
        CHECK(got.batches == want.batches);
        CHECK(got.row_groups == want.row_groups);
        CHECK(got.col_groups == want.col_groups);
        for (FamilyList Plan::*member : {&Plan::send, &Plan::recv, &Plan::local}) {
          CHECK(same_messages((got.*member).messages, (want.*member).messages));
          CHECK((got.*member).families == (want.*member).families);
          CHECK((got.*member).batch_elements == (want.*member).batch_elements);
        }
        // Parts meet in messages: fewer merged messages than the parts have.
        if (K > 2) CHECK(merged_messages(got) < sizes(plans).first);
        CHECK(got.stats.plan_bytes == static_cast<index_t>(got.memory_bytes()));
      }
    }
  }
}

TEST_CASE("merge_parts: work linear in the parts, where a scan per message was K x messages") {
  // 2000 parts of one batch and one of 150 batches: 150 x peers merged messages, each of
  // which a scan of every part would visit 2000 parts for.
  for (const int np : {2, 4}) {
    CAPTURE(np);
    const index_t K = 2000;
    std::vector<Plan> plans;
    for (index_t k = 0; k < K; ++k) plans.push_back(part_plan(k, 0, np, 0, true));
    const auto [messages, families] = sizes(plans);
    const Plan got = merge_parts(plans);
    REQUIRE(got.batches == 150);
    // The accounting of merge_steps: a step per part, two counting sorts per direction
    // (2 per message and the keys), a pass sizing the largest message, and a step per
    // message and per family visited.
    const index_t bound = K + 6 * messages + families + 3 * (np + got.batches);
    CHECK(got.merge_steps > 0);
    CHECK(got.merge_steps <= bound);
    // The bound is well below what a scan of every part per merged message costs.
    CHECK(4 * bound < K * merged_messages(got));
  }
}

TEST_CASE("merge_parts: parts of one plan share its groups, and move the same") {
  for (const int rank : {0, 1, 2}) {
    CAPTURE(rank);
    const index_t K = 50;
    std::vector<Plan> copies(static_cast<std::size_t>(K), part_plan(3, rank, 3));
    const Plan one = part_plan(3, rank, 3);
    const std::vector<const Plan*> shared(static_cast<std::size_t>(K), &one);
    const Plan a = merge_parts(copies), b = merge_parts(shared);
    // Groups once, not K times: the plan's own bytes do not grow with its groups x K.
    CHECK(b.row_groups == one.row_groups);
    CHECK(b.col_groups == one.col_groups);
    CHECK(a.row_groups.size() == static_cast<std::size_t>(K) * one.row_groups.size());
    CHECK(b.stats.plan_bytes < a.stats.plan_bytes);
    // The same messages, buffer layout and pieces, family by family.
    for (FamilyList Plan::*member : {&Plan::send, &Plan::recv, &Plan::local}) {
      const FamilyList &x = a.*member, &y = b.*member;
      CHECK(same_messages(x.messages, y.messages));
      REQUIRE(x.families.size() == y.families.size());
      for (std::size_t f = 0; f < x.families.size(); ++f) {
        CHECK(x.families[f].part == y.families[f].part);
        CHECK(x.families[f].buffer_offset == y.families[f].buffer_offset);
        CHECK(x.families[f].buffer_ld == y.families[f].buffer_ld);
        CHECK(a.rows(x.families[f]) == b.rows(y.families[f]));
        CHECK(a.cols(x.families[f]) == b.cols(y.families[f]));
      }
    }
    CHECK(a.stats.categories == b.stats.categories);
    CHECK(a.stats.elements_sent == b.stats.elements_sent);
    CHECK(a.stats.buffer_elements == b.stats.buffer_elements);
  }
}
