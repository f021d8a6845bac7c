#pragma once
/// @file plan/plan_inputs.hpp
/// The checks every planner runs on its inputs before planning (region, communicator,
/// options, ranks each distribution needs) and on the owners it looks up, so the plan
/// that runs (plan.hpp) and the per-segment reference (plan/reference_plan.hpp) throw the
/// same errors on the same ranks.

#include <sstream>
#include <string>

#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/option_fields.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/region.hpp>

namespace redist::detail {

/// @throws distribution_error naming `side`, tile t and the owner when it lies outside
/// [0, comm_size).
inline void check_owner(int owner, int comm_size, const char* side, TileIndex t) {
  if (owner < 0 || owner >= comm_size) {
    std::ostringstream os;
    os << "redist: owner outside the communicator: " << side << ".owner(" << t << ") = " << owner
       << " (communicator size = " << comm_size << ")";
    throw distribution_error(os.str());
  }
}

/// Checks the owner of every comm_size-th tile of `box` (column-major), starting at tile
/// number `rank`: together the ranks check every tile the region touches, once, at
/// O(box / comm_size) per rank. Without it an owner outside the communicator on both
/// sides of some tiles would be looked up by no rank and those elements silently lost.
/// Distributions that are OwnersInRange skip it: ranks() <= comm_size is checked already.
template <class L>
void check_owner_share(const L& layout, const TileBox& box, int rank, int comm_size,
                       const char* side) {
  if (!owners_in_range(layout.distribution())) {
    const index_t rows = box.end.m - box.begin.m;
    for (index_t k = rank; k < box.size(); k += comm_size) {
      const TileIndex t{box.begin.m + k % rows, box.begin.n + k / rows};
      check_owner(layout.owner(t), comm_size, side, t);
    }
  }
}

/// The input checks of every planner (make_plan, make_reference_plan), so all report the
/// same errors, the same on every rank.
/// @throws region_error, invalid_argument, distribution_error as make_plan documents.
template <class SrcLayout, class DstLayout>
void check_plan_inputs(const SrcLayout& src, const DstLayout& dst, const Region& r, int rank,
                       int comm_size, const PlanOptions& options) {
  validate_region(r, src.shape(), dst.shape());
  detail::require<invalid_argument>(comm_size > 0, "communicator size must be positive",
                                    "comm_size", comm_size);
  detail::require<invalid_argument>(0 <= rank && rank < comm_size, "rank outside the communicator",
                                    "rank", rank);
  validate_options(options);
  detail::require<invalid_argument>(options.element_bytes >= 1, "element size must be positive",
                                    "element_bytes", options.element_bytes);
  if (src.ranks() > comm_size)
    throw distribution_error(
        detail::describe("source distribution needs more ranks than the communicator has",
                         "src.ranks()", src.ranks()) +
        " (communicator size = " + std::to_string(comm_size) + ")");
  if (dst.ranks() > comm_size)
    throw distribution_error(
        detail::describe("target distribution needs more ranks than the communicator has",
                         "dst.ranks()", dst.ranks()) +
        " (communicator size = " + std::to_string(comm_size) + ")");
}

}  // namespace redist::detail
