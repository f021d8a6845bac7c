#pragma once
/// @file detail/part_agreement.hpp
/// What the ranks agree on about a Redistributor's parts (detail/agreement.hpp's items, one
/// row per part), how several parts are agreed on in one word per kind, and which items fix
/// the plan (what rebind() may not change). Redistributor's constructor and rebind() use it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/detail/agreement.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/part.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/transform.hpp>

namespace redist::detail {

/// Every part's values of the kinds redistribution_item_kinds, part after part. K parts cost
/// K x kinds words and no strings.
struct PartItems {
  static constexpr auto& kind = redistribution_item_kinds;
  static constexpr std::size_t kinds = kind.size();
  std::vector<std::uint64_t> values;  ///< part k's item i at k * kinds + i

  std::size_t parts() const { return values.size() / kinds; }
  /// Item i of part k as named alone: "part k: <name>" when there are several parts.
  std::string name(std::size_t k, std::size_t i) const {
    const std::string item(kind[i].name);
    return parts() > 1 ? "part " + std::to_string(k) + ": " + item : item;
  }
  /// Every part's items, named (after the number of parts, when there are several).
  std::vector<AgreementItem> named() const {
    std::vector<AgreementItem> out;
    if (parts() > 1)
      out.push_back(value_item("the number of parts", static_cast<index_t>(parts())));
    for (std::size_t k = 0; k < parts(); ++k)
      for (std::size_t i = 0; i < kinds; ++i)
        out.push_back({name(k, i), values[k * kinds + i], kind[i].shows_value, kind[i].scope});
    return out;
  }
  /// The number of parts, then one item per kind: a hash of every part's value in order.
  std::vector<AgreementItem> folded() const {
    std::vector<AgreementItem> out{
        value_item("the number of parts", static_cast<index_t>(parts()))};
    for (std::size_t i = 0; i < kinds; ++i) {
      Hasher h;
      for (std::size_t k = 0; k < parts(); ++k) h.add(values[k * kinds + i]);
      out.push_back(
          {std::string(kind[i].name) + " of every part", h.value(), false, kind[i].scope});
    }
    return out;
  }
  /// Whether item i fixes the plan: tilings, region, distributions, element type, options;
  /// not the storage (rebind() may point at storage of other extents).
  static bool fixes_plan(std::size_t i) { return kind[i].scope != AgreementScope::storage; }
  /// Part k's items.
  std::vector<std::uint64_t> row(std::size_t k) const {
    return {values.begin() + static_cast<std::ptrdiff_t>(k * kinds),
            values.begin() + static_cast<std::ptrdiff_t>((k + 1) * kinds)};
  }
  /// The first item that fixes the plan and differs between part k and `was` (a row()), or
  /// kinds if none does.
  std::size_t first_plan_difference(std::size_t k, const std::vector<std::uint64_t>& was) const {
    for (std::size_t i = 0; i < kinds; ++i)
      if (fixes_plan(i) && values[k * kinds + i] != was[i]) return i;
    return kinds;
  }
  /// A hash of part k's items that fix the plan.
  std::uint64_t plan_hash(std::size_t k) const {
    Hasher h;
    for (std::size_t i = 0; i < kinds; ++i)
      if (fixes_plan(i)) h.add(values[k * kinds + i]);
    return h.value();
  }
};

/// Every part's region checked (validate_region), then its agreement items.
template <class Src, class Dst>
PartItems part_items(const std::vector<Part<Src, Dst>>& parts, const PlanOptions& options, Op op) {
  PartItems items;
  items.values.reserve(parts.size() * PartItems::kinds);
  for (const Part<Src, Dst>& p : parts) {
    validate_region(p.region, p.src->layout().shape(), p.dst->layout().shape(), op);
    for (const std::uint64_t v :
         redistribution_values(*p.src, *p.dst, p.region, options, target_extent(p.region, op)))
      items.values.push_back(v);
  }
  return items;
}

/// Agreement on the parts' items and `others` (detail/agreement.hpp). Several parts are
/// agreed on folded, one word per kind whatever K; only when those differ are the named items
/// agreed on, which throws naming the part, as agreeing on them alone would.
inline void agree_on_parts(const boost::mpi::communicator& comm, const PartItems& items,
                           const std::vector<AgreementItem>& others) {
  const auto with_others = [&](std::vector<AgreementItem> list) {
    list.insert(list.end(), others.begin(), others.end());
    return list;
  };
  if (items.parts() <= 1) return agree(comm, with_others(items.named()));
  try {
    agree(comm, with_others(items.folded()));
  } catch (const agreement_error&) {
    agree(comm, with_others(items.named()));
    throw;  // (only if a hash of different values collided)
  }
}

}  // namespace redist::detail
