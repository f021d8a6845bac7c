#pragma once
/// @file tools/spec_distribution.hpp
/// SpecDistribution: one run-time distribution type that holds any distribution a layout
/// spec names (tools/distribution_specs.hpp makes them), and SpecPlacement, where a spec's
/// tiles are stored.

#include <cstdint>
#include <optional>
#include <utility>
#include <variant>

#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/heterogeneous.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/placements/multi_device.hpp>

namespace redist::tools {

/// One run-time distribution type for every DIST a spec can name. Models Distribution
/// and EnumeratesOwnedTiles: block-cyclic and the heterogeneous ones enumerate their own
/// tiles in O(owned tiles); random, band and the synthesized owner table scan the box.
class SpecDistribution {
 public:
  using variant_type = std::variant<BlockCyclic, RandomDistribution, BandDistribution,
                                    HeterogeneousGrid, Heterogeneous1D, OwnerTable>;

  explicit SpecDistribution(variant_type d) : d_(std::move(d)) {}

  int ranks() const {
    return std::visit([](const auto& d) { return static_cast<int>(d.ranks()); }, d_);
  }
  int owner(TileIndex t) const {
    return std::visit([&](const auto& d) { return static_cast<int>(d.owner(t)); }, d_);
  }
  /// Calls f(t) for every tile t of `box` owned by `rank`, column by column.
  template <class F>
  void for_each_owned(int rank, TileBox box, F&& f) const {
    std::visit([&](const auto& d) { for_each_owned_tile(d, rank, box, f); }, d_);
  }
  const variant_type& get() const { return d_; }
  /// The BlockCyclic held, if it is one (plan/grid_view.hpp): such a layout is planned per
  /// lcm period, not per segment.
  friend std::optional<BlockCyclic> grid_view(const SpecDistribution& d) {
    if (const BlockCyclic* b = std::get_if<BlockCyclic>(&d.d_)) return *b;
    return std::nullopt;
  }
  /// The same distribution with the same parameters (parts of equal layouts share a plan).
  friend bool operator==(const SpecDistribution&, const SpecDistribution&) = default;
  /// Exact: which distribution and its own fingerprint (fingerprint.hpp).
  std::uint64_t fingerprint() const {
    return std::visit(
        [&](const auto& d) {
          return redist::detail::Hasher(0x53504543ull)  // "SPEC"
              .add(static_cast<std::uint64_t>(d_.index()))
              .add(d.fingerprint())
              .value();
        },
        d_);
  }

 private:
  variant_type d_;
};

/// The placement of tile storage: one allocation (the owned tiles packed back to back, as
/// PackedTiles), or for bc2 one per device (placements/multi_device.hpp).
using SpecPlacement = MultiDevice<>;

}  // namespace redist::tools
