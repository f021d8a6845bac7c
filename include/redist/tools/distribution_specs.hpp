#pragma once
/// @file tools/distribution_specs.hpp
/// (About 350 lines: one table, a struct per distribution kind, and the few functions that
/// visit it; split, a new kind would be added in several files.)
/// The DIST part of a layout spec (tools/layout_spec.hpp), one struct per distribution
/// kind. Each kind holds, in one place, its part of the grammar (tag, usage, fields), how
/// it is parsed and printed, how many ranks it uses and the distribution it makes; the
/// parser, the printers and the tools visit them. A new kind is one struct here and one
/// alternative of DistributionKinds.
///
/// A kind K provides:
///   K::tag, K::usage, K::min_fields, K::max_fields   grammar ("bc", "bc:PxQ or ...", 2, 3)
///   K::parse(parser, fields)      fields: the DIST text split at ':' (fields[0] == tag)
///   k.print(os, text)             canonical text (text: the DIST as given)
///   k.ranks(comm_size)            ranks it uses (64-bit: P * Q may not fit an int)
///   k.make(comm_size, tiles)      its SpecDistribution for a grid of `tiles` tiles
///   k.placement()                 where tiles are stored (KindDefaults: one allocation)
///   K::per_tile_tables            whether make() builds per-tile tables (KindDefaults: no)

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/heterogeneous.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/synthesize.hpp>
#include <redist/tools/spec_distribution.hpp>
#include <redist/tools/spec_parser.hpp>

namespace redist::tools {

/// The fields of one DIST text split at ':' (fields[0] is the kind's tag).
using SpecFields = std::span<const std::string_view>;

inline BlockCyclic make_block_cyclic(const GridSpec& g) {
  return BlockCyclic(g.P, g.Q, g.kp, g.kq);
}
inline index_t grid_ranks(const GridSpec& g) { return index_t{g.P} * index_t{g.Q}; }
inline std::ostream& operator<<(std::ostream& os, const GridSpec& g) {
  return os << g.P << "x" << g.Q;
}

/// What most kinds share: tiles in one allocation, no per-tile tables.
struct KindDefaults {
  static constexpr bool per_tile_tables = false;
  SpecPlacement placement() const { return SpecPlacement::row_cyclic(1); }
  friend bool operator==(const KindDefaults&, const KindDefaults&) = default;
};

/// "bc:PxQ[:KPxKQ]": 2-D block-cyclic, super-tiles KP x KQ.
struct BlockCyclicSpec : KindDefaults {
  static constexpr std::string_view tag = "bc", usage = "bc:PxQ or bc:PxQ:KPxKQ";
  static constexpr std::size_t min_fields = 2, max_fields = 3;
  GridSpec grid;

  static BlockCyclicSpec parse(const detail::Parser& p, SpecFields f) {
    BlockCyclicSpec k;
    k.grid = p.grid(f[1], "process grid");
    if (f.size() == 3) {
      const auto [kp, kq] = p.pair(f[2], "super-tile as KPxKQ");
      k.grid.kp = p.index(kp, "super-tile rows KP", 1);
      k.grid.kq = p.index(kq, "super-tile columns KQ", 1);
    }
    return k;
  }
  void print(std::ostream& os, std::string_view) const {
    os << tag << ":" << grid;
    if (grid.kp != 1 || grid.kq != 1) os << ":" << grid.kp << "x" << grid.kq;
  }
  index_t ranks(int) const { return grid_ranks(grid); }
  SpecDistribution make(int, Extents) const { return SpecDistribution(make_block_cyclic(grid)); }
  friend bool operator==(const BlockCyclicSpec&, const BlockCyclicSpec&) = default;
};

/// "random:SEED": uniform random owner over the communicator.
struct RandomSpec : KindDefaults {
  static constexpr std::string_view tag = "random", usage = "random:SEED";
  static constexpr std::size_t min_fields = 2, max_fields = 2;
  std::uint64_t seed = 0;

  static RandomSpec parse(const detail::Parser& p, SpecFields f) {
    RandomSpec k;
    k.seed = p.number(f[1], "the random seed", 0, UINT64_MAX);
    return k;
  }
  void print(std::ostream& os, std::string_view) const { os << tag << ":" << seed; }
  index_t ranks(int comm_size) const { return comm_size; }
  SpecDistribution make(int comm_size, Extents) const {
    return SpecDistribution(RandomDistribution(comm_size, seed));
  }
  friend bool operator==(const RandomSpec&, const RandomSpec&) = default;
};

/// "band:B:PBxQB:PxQ": a band of width B on a PB x QB grid, the rest block-cyclic on P x Q.
struct BandSpec : KindDefaults {
  static constexpr std::string_view tag = "band", usage = "band:B:PBxQB:PxQ";
  static constexpr std::size_t min_fields = 4, max_fields = 4;
  index_t band_width = 0;
  GridSpec band_grid;
  GridSpec grid;  ///< off the band

  static BandSpec parse(const detail::Parser& p, SpecFields f) {
    BandSpec k;
    k.band_width = p.index(f[1], "the band width B", 1);
    k.band_grid = p.grid(f[2], "band grid");
    k.grid = p.grid(f[3], "off-band grid");
    return k;
  }
  void print(std::ostream& os, std::string_view) const {
    os << tag << ":" << band_width << ":" << band_grid << ":" << grid;
  }
  index_t ranks(int) const { return std::max(grid_ranks(band_grid), grid_ranks(grid)); }
  SpecDistribution make(int, Extents) const {
    return SpecDistribution(
        BandDistribution(band_width, make_block_cyclic(band_grid), make_block_cyclic(grid)));
  }
  friend bool operator==(const BandSpec&, const BandSpec&) = default;
};

/// "hetero:PxQ:W0,...,W(PQ-1)": 1D-1D heterogeneous from P*Q powers (rank order,
/// row-major grid).
struct HeterogeneousSpec : KindDefaults {
  static constexpr std::string_view tag = "hetero", usage = "hetero:PxQ:W0,...,W(PQ-1)";
  static constexpr std::size_t min_fields = 3, max_fields = 3;
  static constexpr bool per_tile_tables = true;
  GridSpec grid;
  std::vector<double> powers;

  static HeterogeneousSpec parse(const detail::Parser& p, SpecFields f) {
    HeterogeneousSpec k;
    k.grid = p.grid(f[1], "process grid");
    k.powers = p.powers(f[2]);
    const index_t want = grid_ranks(k.grid);
    if (static_cast<index_t>(k.powers.size()) != want)
      p.fail("expected " + std::to_string(want) + " powers (one per rank of the " +
                 std::to_string(k.grid.P) + "x" + std::to_string(k.grid.Q) + " grid), got " +
                 std::to_string(k.powers.size()) + ":",
             f[2]);
    return k;
  }
  void print(std::ostream& os, std::string_view text) const { os << text; }  // powers as given
  index_t ranks(int) const { return grid_ranks(grid); }
  SpecDistribution make(int, Extents tiles) const {
    return SpecDistribution(HeterogeneousGrid(grid.P, grid.Q, powers, tiles));
  }
  friend bool operator==(const HeterogeneousSpec&, const HeterogeneousSpec&) = default;
};

/// "hetero1d:rows|cols:W0,...,W(R-1)": 1-D heterogeneous, one power per rank.
struct Heterogeneous1DSpec : KindDefaults {
  static constexpr std::string_view tag = "hetero1d",
                                    usage = "hetero1d:rows:W0,... or hetero1d:cols:W0,...";
  static constexpr std::size_t min_fields = 3, max_fields = 3;
  static constexpr bool per_tile_tables = true;
  Axis axis = Axis::row;
  std::vector<double> powers;

  static Heterogeneous1DSpec parse(const detail::Parser& p, SpecFields f) {
    if (f[1] != "rows" && f[1] != "cols")
      p.fail("expected " + std::string(usage) + ", got", join(f));
    Heterogeneous1DSpec k;
    k.axis = f[1] == "rows" ? Axis::row : Axis::col;
    k.powers = p.powers(f[2]);
    if (k.powers.size() > (1u << 30)) p.fail("too many powers, got", f[2]);
    return k;
  }
  void print(std::ostream& os, std::string_view text) const { os << text; }
  index_t ranks(int) const { return static_cast<index_t>(powers.size()); }
  SpecDistribution make(int, Extents tiles) const {
    return SpecDistribution(Heterogeneous1D(axis, powers, tiles));
  }
  friend bool operator==(const Heterogeneous1DSpec&, const Heterogeneous1DSpec&) = default;

 private:
  static std::string join(SpecFields f) {
    std::string s(f[0]);
    for (std::size_t k = 1; k < f.size(); ++k) (s += ':') += f[k];
    return s;
  }
};

/// "synth:C0,...,C(R-1)[:full|lower|upper]": target only, built by Algorithm 2
/// (synthesize.hpp) from the source layout on the same tiling (make_layout): rank r gets
/// Cr tiles of the whole tile grid (or of its lower / upper triangle).
struct SynthesizedSpec : KindDefaults {
  static constexpr std::string_view tag = "synth", usage = "synth:C0,...,C(R-1)[:full|lower|upper]";
  static constexpr std::size_t min_fields = 2, max_fields = 3;
  static constexpr bool per_tile_tables = true;
  std::vector<index_t> counts;
  TileTriangle part = TileTriangle::full;

  static SynthesizedSpec parse(const detail::Parser& p, SpecFields f) {
    SynthesizedSpec k;
    const auto items = detail::Parser::split(f[1], ',');
    if (items.size() > (1u << 30)) p.fail("too many tile counts, got", f[1]);
    for (std::size_t c = 0; c < items.size(); ++c)
      k.counts.push_back(p.index(items[c], "tile count C" + std::to_string(c), 0));
    if (f.size() == 3) {
      if (f[2] == "full")
        k.part = TileTriangle::full;
      else if (f[2] == "lower")
        k.part = TileTriangle::lower;
      else if (f[2] == "upper")
        k.part = TileTriangle::upper;
      else
        p.fail("unknown tile mask (expected full, lower or upper)", f[2]);
    }
    return k;
  }
  void print(std::ostream& os, std::string_view text) const { os << text; }
  index_t ranks(int) const { return static_cast<index_t>(counts.size()); }
  /// Needs the source layout: make_layout builds it.
  /// @throws parse_error always.
  [[noreturn]] SpecDistribution make(int, Extents) const {
    throw parse_error("redist: layout: synth needs the source layout (see make_layout)");
  }
  friend bool operator==(const SynthesizedSpec&, const SynthesizedSpec&) = default;
};

/// "bc2:PxQ:G" or "bc2:PxQ:GPxGQ": block-cyclic on P x Q, each rank's tiles on G devices
/// by m mod G, or on GP x GQ devices by the two-level rule (MultiDevice).
struct BlockCyclicDevicesSpec : KindDefaults {
  static constexpr std::string_view tag = "bc2", usage = "bc2:PxQ:G or bc2:PxQ:GPxGQ";
  static constexpr std::size_t min_fields = 3, max_fields = 3;
  GridSpec grid;
  GridSpec devices{0, 0};  ///< GP x GQ, or G x 0 for m mod G

  static BlockCyclicDevicesSpec parse(const detail::Parser& p, SpecFields f) {
    BlockCyclicDevicesSpec k;
    k.grid = p.grid(f[1], "process grid");
    if (f[2].find('x') == std::string_view::npos) {
      k.devices = GridSpec{p.small(f[2], "device count G"), 0};
    } else {
      const GridSpec g = p.grid(f[2], "device grid");
      (void)redist::detail::checked_mul_int<parse_error>(g.P, g.Q, "GP * GQ");
      k.devices = g;
    }
    return k;
  }
  void print(std::ostream& os, std::string_view) const {
    os << tag << ":" << grid << ":" << devices.P;
    if (devices.Q != 0) os << "x" << devices.Q;
  }
  index_t ranks(int) const { return grid_ranks(grid); }
  SpecDistribution make(int, Extents) const { return SpecDistribution(make_block_cyclic(grid)); }
  SpecPlacement placement() const {
    if (devices.Q == 0) return SpecPlacement::row_cyclic(devices.P);
    return SpecPlacement::two_level(grid.P, grid.Q, devices.P, devices.Q);
  }
  friend bool operator==(const BlockCyclicDevicesSpec&, const BlockCyclicDevicesSpec&) = default;
};

/// Every kind, in the order the grammar lists them.
using DistributionKinds =
    std::variant<BlockCyclicSpec, RandomSpec, BandSpec, HeterogeneousSpec, Heterogeneous1DSpec,
                 SynthesizedSpec, BlockCyclicDevicesSpec>;

/// The DIST part of a layout spec.
struct DistributionSpec {
  DistributionKinds kind;
  std::string text;  ///< the DIST text as given

  template <class K>
  bool is() const {
    return std::holds_alternative<K>(kind);
  }
  template <class K>
  const K& as() const {
    return std::get<K>(kind);
  }
  index_t ranks(int comm_size) const {
    return std::visit([&](const auto& k) { return k.ranks(comm_size); }, kind);
  }
  bool per_tile_tables() const {
    return std::visit([](const auto& k) { return k.per_tile_tables; }, kind);
  }
  SpecPlacement placement() const {
    return std::visit([](const auto& k) { return k.placement(); }, kind);
  }
  friend bool operator==(const DistributionSpec&, const DistributionSpec&) = default;
};

/// Calls f(K{}) for each kind K, in order.
template <class F>
void for_each_kind(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::variant_alternative_t<I, DistributionKinds>{}), ...);
  }
  (std::make_index_sequence<std::variant_size_v<DistributionKinds>>{});
}

namespace detail {

/// "bc, random, band, ... or bc2": every kind's tag, for the unknown-kind error.
inline std::string kind_tags() {
  std::vector<std::string_view> tags;
  for_each_kind([&](const auto& k) { tags.push_back(k.tag); });
  std::string out;
  for (std::size_t t = 0; t < tags.size(); ++t)
    (out += t == 0 ? "" : t + 1 == tags.size() ? " or " : ", ") += tags[t];
  return out;
}

}  // namespace detail

/// Parses a DIST text with `p` (whose argument and text the errors name).
inline DistributionSpec parse_distribution(const detail::Parser& p, std::string_view s) {
  const auto fields = detail::Parser::split(s, ':');
  DistributionSpec d;
  d.text = std::string(s);
  bool known = false;
  for_each_kind([&](const auto& kind) {
    using K = std::decay_t<decltype(kind)>;
    if (known || fields[0] != K::tag) return;
    known = true;
    if (fields.size() < K::min_fields || fields.size() > K::max_fields)
      p.fail("expected " + std::string(K::usage) + ", got", s);
    d.kind = K::parse(p, fields);
  });
  if (!known) p.fail("unknown distribution (expected " + detail::kind_tags() + ")", fields[0]);
  return d;
}

/// "bc:2x2:1x2", "random:7", "band:2:1x4:2x2", "hetero:1x2:1,3", "bc2:2x2:4".
inline std::string to_string(const DistributionSpec& d) {
  std::ostringstream os;
  std::visit([&](const auto& k) { k.print(os, d.text); }, d.kind);
  return os.str();
}

/// The distribution a spec names, on a communicator of `comm_size` ranks (used by random),
/// for a grid of `tiles` tiles (used by the heterogeneous ones).
/// @throws parse_error for synth, which needs its source (make_layout).
inline SpecDistribution make_distribution(const DistributionSpec& d, int comm_size,
                                          Extents tiles = {}) {
  return std::visit([&](const auto& k) { return k.make(comm_size, tiles); }, d.kind);
}

}  // namespace redist::tools
