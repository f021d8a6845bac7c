#pragma once
/// @file detail/agreement.hpp
/// Agreement before work: every rank of a communicator checks that all ranks passed the
/// same named values (fingerprints of layouts and region, options; fingerprint.hpp) before
/// anything collective depends on them. When they differ every rank throws the same
/// agreement_error naming what differs and which ranks differ:
///
///   redist: ranks disagree on the region: rank 1 differs from rank 0
///   redist: ranks disagree on PlanOptions::batch: ranks 0,2 differ from rank 1
///       (PlanOptions::batch = 4 on ranks 0,2, 0 on rank 1)
///
/// The check is two small all-reduces (an all-gather of one word more when ranks
/// differ); every rank takes part in exactly the same calls whatever it holds, so the
/// communicator stays usable after the error.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/option_fields.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/region.hpp>

namespace redist::detail {

/// "rank 3", "ranks 0,2,5", or the first eight then "... (12 ranks)".
inline std::string rank_list(const std::vector<int>& ranks) {
  constexpr std::size_t shown = 8;
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  // Appends only: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  for (std::size_t k = 0; k < ranks.size() && k < shown; ++k) {
    if (k) s += ',';
    s += std::to_string(ranks[k]);
  }
  if (ranks.size() > shown) s += ",... (" + std::to_string(ranks.size()) + " ranks)";
  return s;
}

/// The message for item `name` whose value on rank r is values[r]: the largest group of
/// ranks holding one value (the lowest rank's on a tie) is the reference, every other rank
/// "differs". `shows_value`: print the values too (as signed integers).
inline std::string disagreement_message(const std::string& name,
                                        const std::vector<std::uint64_t>& values,
                                        bool shows_value) {
  // Groups of ranks by value, in order of their lowest rank.
  std::vector<std::pair<std::uint64_t, std::vector<int>>> groups;
  for (int r = 0; r < static_cast<int>(values.size()); ++r) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == values[r]; });
    if (it == groups.end())
      groups.push_back({values[r], {r}});
    else
      it->second.push_back(r);
  }
  std::size_t ref = 0;
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (groups[g].second.size() > groups[ref].second.size()) ref = g;
  std::vector<int> differ;
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (g != ref) differ.insert(differ.end(), groups[g].second.begin(), groups[g].second.end());
  std::sort(differ.begin(), differ.end());
  std::string msg = "redist: ranks disagree on " + name + ": " + rank_list(differ) +
                    (differ.size() == 1 ? " differs" : " differ") + " from " +
                    rank_list(groups[ref].second);
  if (shows_value) {
    constexpr std::size_t shown = 4;
    msg += " (" + name + " = ";
    std::size_t listed = 0;
    for (std::size_t g = 0; g < groups.size() && listed < shown; ++g) {
      if (g == ref) continue;
      if (listed++) msg += ", ";
      msg += std::to_string(static_cast<std::int64_t>(groups[g].first));
      msg += " on ";
      msg += rank_list(groups[g].second);
    }
    if (groups.size() - 1 > shown) msg += ", ...";
    msg += ", " + std::to_string(static_cast<std::int64_t>(groups[ref].first)) + " on " +
           rank_list(groups[ref].second) + ")";
  }
  return msg;
}

/// Checks that every rank of `comm` passed the same `items` (same names, same values).
/// Collective: every rank must call it, with its own items.
/// @throws agreement_error on every rank alike if any item differs on any rank, naming
/// the first differing item, the ranks that differ from the majority, the values of a
/// `shows_value` item, and the other differing items.
inline void agree(const boost::mpi::communicator& comm, const std::vector<AgreementItem>& items) {
  // The item list itself first: the value arrays reduced below must have one length.
  Hasher list;
  list.add(static_cast<std::uint64_t>(items.size()));
  for (const AgreementItem& it : items) list.add(it.name).add(std::uint64_t{it.shows_value});
  const std::uint64_t head[2] = {list.value(), ~list.value()};
  std::uint64_t low[2] = {0, 0};
  // min(~x) = ~max(x): one MPI_MIN gives both the minimum and the maximum.
  boost::mpi::all_reduce(comm, head, 2, low, boost::mpi::minimum<std::uint64_t>());
  if (low[0] != ~low[1]) {
    std::vector<std::uint64_t> all;
    boost::mpi::all_gather(comm, list.value(), all);
    throw agreement_error(disagreement_message("what to agree on", all, false) +
                          " (different redist versions, or different calls on different ranks)");
  }
  const std::size_t n = items.size();
  if (n == 0) return;
  std::vector<std::uint64_t> mine(2 * n), out(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    mine[k] = items[k].value;
    mine[n + k] = ~items[k].value;
  }
  boost::mpi::all_reduce(comm, mine.data(), static_cast<int>(2 * n), out.data(),
                         boost::mpi::minimum<std::uint64_t>());
  std::vector<std::size_t> differing;
  for (std::size_t k = 0; k < n; ++k)
    if (out[k] != ~out[n + k]) differing.push_back(k);
  if (differing.empty()) return;
  const AgreementItem& first = items[differing.front()];
  std::vector<std::uint64_t> all;
  boost::mpi::all_gather(comm, first.value, all);
  std::string msg = disagreement_message(first.name, all, first.shows_value);
  if (differing.size() > 1) {
    msg += " (also differ:";
    for (std::size_t k = 1; k < differing.size(); ++k) {
      msg += k > 1 ? ", " : " ";
      msg += items[differing[k]].name;
    }
    msg += ")";
  }
  throw agreement_error(msg);
}

/// One kind of item of redistribution_values: its name, whether a disagreement shows its
/// value, and its scope (rebind() keeps the plan where only storage items changed).
struct ItemKind {
  std::string_view name;
  bool shows_value;
  AgreementScope scope;
};

/// The items fixed by the matrices and the region, before the PlanOptions fields.
inline constexpr std::array<ItemKind, 9> input_item_kinds{{
    {"the source tiling", false, AgreementScope::layout},
    {"the target tiling", false, AgreementScope::layout},
    {"the region", false, AgreementScope::layout},
    {"the source distribution", false, AgreementScope::layout},
    {"the target distribution", false, AgreementScope::layout},
    {"the source storage", false, AgreementScope::storage},
    {"the target storage", false, AgreementScope::storage},
    {"the element size", true, AgreementScope::layout},
    {"the element type", false, AgreementScope::layout},
}};

/// The kinds of redistribution_values' items, in order: input_item_kinds, then one per
/// PlanOptions field (its table, plan/plan_options.hpp).
inline constexpr auto redistribution_item_kinds = [] {
  std::array<ItemKind, input_item_kinds.size() + option_count<PlanOptions>> out{};
  std::size_t k = 0;
  for (const ItemKind& i : input_item_kinds) out[k++] = i;
  for_each_field<PlanOptions>([&](const auto& f) {
    out[k++] = {f.name, true, AgreementScope::option};
  });
  return out;
}();

/// What the ranks of a Redistributor between matrices `src` and `dst` must agree on
/// (`dst_extent`: the target rectangle's, region.extent or, transposed, its swap):
/// source and target tiling, the region, source and target distribution (on the tiles the
/// region touches) and storage kind, the element size and type, and every PlanOptions
/// field; kinds in redistribution_item_kinds. The region first: when it
/// differs, a distribution without a hook is sampled on other tiles and differs too, and
/// the region is the news. O(4096) owner() calls for a distribution without a
/// fingerprint() hook, O(1) for the built-in ones (O(tiles) for an OwnerTable). No strings:
/// a move of K parts takes K of these. @pre the region is valid for both (validate_region).
template <class Src, class Dst>
std::array<std::uint64_t, redistribution_item_kinds.size()> redistribution_values(
    const Src& src, const Dst& dst, const Region& region, const PlanOptions& options,
    Extents dst_extent) {
  using T = typename Src::value_type;
  constexpr std::uint64_t element_type = Hasher().add(type_name<T>()).value();
  const auto& s = src.layout();
  const auto& d = dst.layout();
  const TileBox src_box = touched_tiles(s.shape(), region.src_origin, region.extent);
  const TileBox dst_box = touched_tiles(d.shape(), region.dst_origin, dst_extent);
  const std::array<std::uint64_t, input_item_kinds.size()> inputs{
      tiling_fingerprint(s.shape()),
      tiling_fingerprint(d.shape()),
      region_fingerprint(region),
      distribution_fingerprint(s.distribution(), src_box),
      distribution_fingerprint(d.distribution(), dst_box),
      placement_fingerprint(src.placement()),
      placement_fingerprint(dst.placement()),
      static_cast<std::uint64_t>(sizeof(T)),
      element_type,
  };
  const auto opts = option_words(options);
  std::array<std::uint64_t, redistribution_item_kinds.size()> out{};
  std::copy(opts.begin(), opts.end(), std::copy(inputs.begin(), inputs.end(), out.begin()));
  return out;
}

/// redistribution_values as named items.
template <class Src, class Dst>
std::vector<AgreementItem> redistribution_items(const Src& src, const Dst& dst,
                                                const Region& region, const PlanOptions& options,
                                                Extents dst_extent) {
  const auto values = redistribution_values(src, dst, region, options, dst_extent);
  std::vector<AgreementItem> items;
  for (std::size_t i = 0; i < values.size(); ++i)
    items.push_back({std::string(redistribution_item_kinds[i].name), values[i],
                     redistribution_item_kinds[i].shows_value, redistribution_item_kinds[i].scope});
  return items;
}

template <class Src, class Dst>
std::vector<AgreementItem> redistribution_items(const Src& src, const Dst& dst,
                                                const Region& region, const PlanOptions& options) {
  return redistribution_items(src, dst, region, options, region.extent);
}

}  // namespace redist::detail
