#pragma once
/// @file tools/layout_spec.hpp
/// Textual layouts and regions for command-line tools (redist-run), and one run-time
/// distribution type, SpecDistribution, that can hold any distribution a spec names.
///
/// Grammar (all numbers are decimal, no sign):
///
///   layout  := EXTENT "/" TILE "/" DIST [ "/" STORAGE ]
///   EXTENT  := M "x" N                  matrix rows x columns, >= 1
///   TILE    := MB "x" NB                tile rows x columns, >= 1 (last tile may be partial)
///   DIST    := "bc:" P "x" Q [ ":" KP "x" KQ ]     2-D block-cyclic, super-tiles KP x KQ
///            | "random:" SEED                      uniform random owner over the communicator
///            | "band:" B ":" PB "x" QB ":" P "x" Q  band of width B on a PB x QB grid,
///                                                  the rest block-cyclic on P x Q
///            | "hetero:" P "x" Q ":" W0 "," ... "," W(PQ-1)
///                                                  1D-1D heterogeneous from P*Q powers (rank
///                                                  order, row-major grid; decimals >= 0)
///            | "hetero1d:" ("rows" | "cols") ":" W0 "," ... "," W(R-1)
///                                                  1-D heterogeneous, one power per rank
///            | "synth:" C0 "," ... "," C(R-1) [ ":" ("full" | "lower" | "upper") ]
///                                                  target only: Algorithm 2 (synthesize.hpp)
///                                                  from the --src layout on the same tiling,
///                                                  rank r gets Cr tiles of the whole tile grid
///                                                  (or of its lower / upper triangle)
///            | "bc2:" P "x" Q ":" G                block-cyclic on P x Q, each rank's tiles on
///                                                  G devices by m mod G (MultiDevice)
///            | "bc2:" P "x" Q ":" GP "x" GQ       ... on GP x GQ devices by the two-level rule
///   STORAGE := "tile" (default: owned tiles packed back to back) | "scalapack"
///   region  := R "x" C [ "@" I "," J "->" K "," L ]   R x C elements from source (I, J)
///                                                  to target (K, L); origins default to 0
///
/// Example: "8192x8192/256x256/bc:2x2:1x2/scalapack" and "100x50@10,0->0,20".
/// Block-cyclic owner: rank of tile (m, n) = ((m / KP) mod P) * Q + ((n / KQ) mod Q).
/// Heterogeneous: "1000x1000/50x50/hetero:2x2:1,1,5,5" (two GPU nodes five times the
/// others); synthesized: "--src 1000x1000/50x50/hetero:2x2:1,1,5,5
/// --dst 1000x1000/50x50/synth:100,100,100,100" (same tiling, counts summing to its tiles).
///
/// Malformed text throws redist::parse_error whose message names the argument (e.g.
/// "--src"), the offending piece and the whole text; so do powers (negative, not a number,
/// wrong count, all zero) and synth counts (negative, fewer than the source's ranks, not
/// summing to the tiles), the latter when the target is built against its source
/// (with_source, make_layout).

#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/heterogeneous.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/region.hpp>
#include <redist/synthesize.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace redist::tools {

/// How a rank stores its tiles.
enum class StorageKind { tile, scalapack };

/// Which distribution a spec names (bc2: block-cyclic with a multi-device placement).
enum class DistributionKind {
  block_cyclic,
  random,
  band,
  heterogeneous,
  heterogeneous_1d,
  synthesized,
  block_cyclic_devices
};

/// A P x Q grid with KP x KQ super-tiles.
struct GridSpec {
  int P = 1;
  int Q = 1;
  index_t kp = 1;
  index_t kq = 1;
  friend bool operator==(const GridSpec&, const GridSpec&) = default;
};

/// The DIST part of a layout spec.
struct DistributionSpec {
  DistributionKind kind = DistributionKind::block_cyclic;
  GridSpec grid;                           ///< bc: the grid; band: the off-band grid
  GridSpec band_grid;                      ///< band: the grid of the band
  index_t band_width = 0;                  ///< band: B
  std::uint64_t seed = 0;                  ///< random: SEED
  std::vector<double> powers;              ///< hetero, hetero1d: one per rank
  Axis axis = Axis::row;                   ///< hetero1d: rows or cols
  std::vector<index_t> counts;             ///< synth: tiles per rank
  TileTriangle part = TileTriangle::full;  ///< synth: which tiles the counts cover
  GridSpec devices{0, 0};                  ///< bc2: GP x GQ devices, or G x 0 for m mod G
  std::string text;  ///< the DIST text (printed back for hetero, hetero1d, synth)
  friend bool operator==(const DistributionSpec&, const DistributionSpec&) = default;
};

/// A parsed layout spec.
struct LayoutSpec {
  Extents extent;  ///< M x N elements
  Extents tile;    ///< MB x NB elements
  DistributionSpec distribution;
  StorageKind storage = StorageKind::tile;
  std::string text;      ///< the text it was parsed from
  std::string argument;  ///< the argument it came from ("--src"), for later errors
  /// synth: the layout it is synthesized from (with_source); null otherwise.
  std::shared_ptr<const LayoutSpec> source;

  /// Ranks the distribution uses on a communicator of `comm_size` ranks (random uses all).
  /// 64-bit: P * Q of two grid extents up to 2^30 does not fit an int.
  index_t ranks(int comm_size) const {
    const auto grid = [](const GridSpec& g) { return index_t{g.P} * index_t{g.Q}; };
    switch (distribution.kind) {
      case DistributionKind::block_cyclic:
        return grid(distribution.grid);
      case DistributionKind::random:
        return comm_size;
      case DistributionKind::band: {
        const index_t a = grid(distribution.band_grid), b = grid(distribution.grid);
        return a > b ? a : b;
      }
      case DistributionKind::heterogeneous:
      case DistributionKind::block_cyclic_devices:
        return grid(distribution.grid);
      case DistributionKind::heterogeneous_1d:
        return static_cast<index_t>(distribution.powers.size());
      case DistributionKind::synthesized:
        return static_cast<index_t>(distribution.counts.size());
    }
    return comm_size;
  }
};

/// `text` with every byte that is not printable ASCII or part of a valid UTF-8 character
/// written as \xHH, so a message quoting user input is one readable line.
/// Example: escape_nonprintable("a\xFFb\n") == "a\\xFFb\\x0A".
inline std::string escape_nonprintable(std::string_view text) {
  std::string out;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  for (std::size_t k = 0; k < text.size();) {
    const unsigned char c = byte(k);
    // Length of a well-formed UTF-8 sequence starting at k (0: not one).
    std::size_t len = c >= 0x20 && c < 0x7F ? 1 : 0;
    if (c >= 0xC2 && c <= 0xF4) {
      const std::size_t want = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      std::size_t ok = 1;
      while (ok < want && k + ok < text.size() && (byte(k + ok) & 0xC0) == 0x80) ++ok;
      if (ok == want) len = want;
    }
    if (len > 0) {
      out.append(text.substr(k, len));
      k += len;
    } else {
      static constexpr char hex[] = "0123456789ABCDEF";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++k;
    }
  }
  return out;
}

/// The tile shape every spec layout uses.
using SpecShape = Tiling<UniformAxis<>, UniformAxis<>>;

/// The tile shape of a spec.
inline SpecShape make_shape(const LayoutSpec& s) {
  return SpecShape{UniformAxis<>(s.extent.rows, s.tile.rows),
                   UniformAxis<>(s.extent.cols, s.tile.cols)};
}

/// The placement of tile storage: one allocation (the owned tiles packed back to back, as
/// PackedTiles), or for bc2 one per device (placements/multi_device.hpp).
using SpecPlacement = MultiDevice<>;

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

namespace detail {

/// Throws parse_error "redist: <argument>: <reason> '<piece>' (in '<text>')", with
/// non-printable bytes of piece and text escaped.
[[noreturn]] inline void parse_fail(std::string_view argument, std::string_view reason,
                                    std::string_view piece, std::string_view text) {
  std::ostringstream os;
  os << "redist: " << argument << ": " << reason << " '" << escape_nonprintable(piece) << "'";
  if (piece != text) os << " (in '" << escape_nonprintable(text) << "')";
  throw parse_error(os.str());
}

struct Parser {
  std::string_view argument;
  std::string_view text;

  /// A decimal integer >= min, the whole of `s`.
  std::uint64_t number(std::string_view s, std::string_view what, std::uint64_t min,
                       std::uint64_t max) const {
    std::uint64_t v = 0;
    const char* first = s.data();
    const char* last = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (s.empty() || ec != std::errc() || ptr != last)
      parse_fail(argument, "expected a non-negative integer for " + std::string(what) + ", got", s,
                 text);
    if (v < min || v > max) {
      std::string reason = std::string(what) + " must be in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], got";
      parse_fail(argument, reason, s, text);
    }
    return v;
  }
  index_t index(std::string_view s, std::string_view what, index_t min) const {
    return static_cast<index_t>(number(s, what, static_cast<std::uint64_t>(min),
                                       static_cast<std::uint64_t>(INT64_MAX / 4)));
  }
  int small(std::string_view s, std::string_view what) const {
    return static_cast<int>(number(s, what, 1, 1u << 30));
  }

  /// "AxB" -> (A, B) as strings.
  std::pair<std::string_view, std::string_view> pair(std::string_view s, std::string_view what,
                                                     char sep = 'x') const {
    const auto k = s.find(sep);
    if (k == std::string_view::npos || s.find(sep, k + 1) != std::string_view::npos)
      parse_fail(argument, std::string("expected ") + std::string(what) + ", got", s, text);
    return {s.substr(0, k), s.substr(k + 1)};
  }

  Extents extents(std::string_view s, std::string_view what, index_t min) const {
    const auto [a, b] = pair(s, std::string(what) + " as ROWSxCOLS");
    return {index(a, std::string(what) + " rows", min),
            index(b, std::string(what) + " columns", min)};
  }

  GridSpec grid(std::string_view s, std::string_view what) const {
    const auto [p, q] = pair(s, std::string(what) + " as PxQ");
    GridSpec g;
    g.P = small(p, std::string(what) + " rows P");
    g.Q = small(q, std::string(what) + " columns Q");
    return g;
  }

  static std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
      const auto k = s.find(sep, start);
      out.push_back(s.substr(start, k == std::string_view::npos ? s.npos : k - start));
      if (k == std::string_view::npos) return out;
      start = k + 1;
    }
  }

  /// A comma-separated list of powers: finite decimals >= 0, not all zero.
  std::vector<double> powers(std::string_view s) const {
    std::vector<double> out;
    double sum = 0;
    const auto items = split(s, ',');
    for (std::size_t k = 0; k < items.size(); ++k) {
      const std::string_view w = items[k];
      double v = 0;
      const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
      const std::string what = "power w" + std::to_string(k);
      if (w.empty() || ec != std::errc() || ptr != w.data() + w.size() || !std::isfinite(v))
        parse_fail(argument, "expected a decimal number for " + what + ", got", w, text);
      if (v < 0) parse_fail(argument, what + " must be non-negative, got", w, text);
      out.push_back(v);
      sum += v;
    }
    if (!(sum > 0)) parse_fail(argument, "powers must not all be zero, got", s, text);
    return out;
  }

  DistributionSpec distribution(std::string_view s) const {
    const auto parts = split(s, ':');
    DistributionSpec d;
    d.text = std::string(s);
    if (parts[0] == "hetero") {
      if (parts.size() != 3)
        parse_fail(argument, "expected hetero:PxQ:W0,...,W(PQ-1), got", s, text);
      d.kind = DistributionKind::heterogeneous;
      d.grid = grid(parts[1], "process grid");
      d.powers = powers(parts[2]);
      const index_t want = index_t{d.grid.P} * d.grid.Q;
      if (static_cast<index_t>(d.powers.size()) != want)
        parse_fail(argument,
                   "expected " + std::to_string(want) + " powers (one per rank of the " +
                       std::to_string(d.grid.P) + "x" + std::to_string(d.grid.Q) + " grid), got " +
                       std::to_string(d.powers.size()) + ":",
                   parts[2], text);
    } else if (parts[0] == "hetero1d") {
      if (parts.size() != 3 || (parts[1] != "rows" && parts[1] != "cols"))
        parse_fail(argument, "expected hetero1d:rows:W0,... or hetero1d:cols:W0,..., got", s, text);
      d.kind = DistributionKind::heterogeneous_1d;
      d.axis = parts[1] == "rows" ? Axis::row : Axis::col;
      d.powers = powers(parts[2]);
      if (d.powers.size() > (1u << 30))
        parse_fail(argument, "too many powers, got", parts[2], text);
    } else if (parts[0] == "synth") {
      if (parts.size() != 2 && parts.size() != 3)
        parse_fail(argument, "expected synth:C0,...,C(R-1)[:full|lower|upper], got", s, text);
      d.kind = DistributionKind::synthesized;
      const auto items = split(parts[1], ',');
      if (items.size() > (1u << 30))
        parse_fail(argument, "too many tile counts, got", parts[1], text);
      for (std::size_t k = 0; k < items.size(); ++k)
        d.counts.push_back(index(items[k], "tile count C" + std::to_string(k), 0));
      if (parts.size() == 3) {
        if (parts[2] == "full")
          d.part = TileTriangle::full;
        else if (parts[2] == "lower")
          d.part = TileTriangle::lower;
        else if (parts[2] == "upper")
          d.part = TileTriangle::upper;
        else
          parse_fail(argument, "unknown tile mask (expected full, lower or upper)", parts[2], text);
      }
    } else if (parts[0] == "bc2") {
      if (parts.size() != 3)
        parse_fail(argument, "expected bc2:PxQ:G or bc2:PxQ:GPxGQ, got", s, text);
      d.kind = DistributionKind::block_cyclic_devices;
      d.grid = grid(parts[1], "process grid");
      if (parts[2].find('x') == std::string_view::npos) {
        d.devices = GridSpec{small(parts[2], "device count G"), 0};
      } else {
        const GridSpec g = grid(parts[2], "device grid");
        (void)redist::detail::checked_mul_int<parse_error>(g.P, g.Q, "GP * GQ");
        d.devices = g;
      }
    } else if (parts[0] == "bc") {
      if (parts.size() != 2 && parts.size() != 3)
        parse_fail(argument, "expected bc:PxQ or bc:PxQ:KPxKQ, got", s, text);
      d.kind = DistributionKind::block_cyclic;
      d.grid = grid(parts[1], "process grid");
      if (parts.size() == 3) {
        const auto [kp, kq] = pair(parts[2], "super-tile as KPxKQ");
        d.grid.kp = index(kp, "super-tile rows KP", 1);
        d.grid.kq = index(kq, "super-tile columns KQ", 1);
      }
    } else if (parts[0] == "random") {
      if (parts.size() != 2) parse_fail(argument, "expected random:SEED, got", s, text);
      d.kind = DistributionKind::random;
      d.seed = number(parts[1], "the random seed", 0, UINT64_MAX);
    } else if (parts[0] == "band") {
      if (parts.size() != 4) parse_fail(argument, "expected band:B:PBxQB:PxQ, got", s, text);
      d.kind = DistributionKind::band;
      d.band_width = index(parts[1], "the band width B", 1);
      d.band_grid = grid(parts[2], "band grid");
      d.grid = grid(parts[3], "off-band grid");
    } else {
      parse_fail(argument,
                 "unknown distribution (expected bc, random, band, hetero, hetero1d, synth or bc2)",
                 parts[0], text);
    }
    return d;
  }
};

}  // namespace detail

/// Parses `MxN/MBxNB/DIST[/STORAGE]`.
/// @throws parse_error naming `argument` and the offending text.
/// Example: parse_layout("100x80/16x16/bc:2x2", "--src").tile == Extents{16, 16}.
inline LayoutSpec parse_layout(std::string_view text, std::string_view argument = "layout") {
  const detail::Parser p{argument, text};
  const auto parts = detail::Parser::split(text, '/');
  if (parts.size() != 3 && parts.size() != 4)
    detail::parse_fail(argument, "expected MxN/MBxNB/DIST[/STORAGE], got", text, text);
  LayoutSpec spec;
  spec.text = std::string(text);
  spec.argument = std::string(argument);
  spec.extent = p.extents(parts[0], "matrix extent", 1);
  spec.tile = p.extents(parts[1], "tile extent", 1);
  spec.distribution = p.distribution(parts[2]);
  if (parts.size() == 4) {
    if (parts[3] == "tile") {
      spec.storage = StorageKind::tile;
    } else if (parts[3] == "scalapack") {
      spec.storage = StorageKind::scalapack;
    } else {
      detail::parse_fail(argument, "unknown storage (expected tile or scalapack)", parts[3], text);
    }
  }
  if (spec.storage == StorageKind::scalapack &&
      spec.distribution.kind != DistributionKind::block_cyclic)
    detail::parse_fail(argument, "scalapack storage needs a bc distribution, got", parts[2], text);
  // The heterogeneous distributions hold per-tile tables: their tile grid must fit memory.
  const auto kind = spec.distribution.kind;
  if (kind == DistributionKind::heterogeneous || kind == DistributionKind::heterogeneous_1d ||
      kind == DistributionKind::synthesized) {
    const Extents t = tile_counts(make_shape(spec));
    if (t.rows > (index_t{1} << 30) || t.cols > (index_t{1} << 30) ||
        t.rows * t.cols > (index_t{1} << 34))
      detail::parse_fail(argument, "too many tiles for a heterogeneous layout, got", parts[1],
                         text);
  }
  return spec;
}

/// Parses `RxC[@I,J->K,L]`.
/// @throws parse_error naming `argument` and the offending text.
/// Example: parse_region("4x5@1,2->3,0") == Region{{4, 5}, {1, 2}, {3, 0}}.
inline Region parse_region(std::string_view text, std::string_view argument = "region") {
  const detail::Parser p{argument, text};
  Region r;
  const auto at = text.find('@');
  r.extent = p.extents(text.substr(0, at), "region extent", 0);
  if (at == std::string_view::npos) return r;
  const std::string_view origins = text.substr(at + 1);
  const auto arrow = origins.find("->");
  if (arrow == std::string_view::npos || origins.find("->", arrow + 2) != std::string_view::npos)
    detail::parse_fail(argument, "expected origins as I,J->K,L, got", origins, text);
  const auto [si, sj] = p.pair(origins.substr(0, arrow), "source origin as I,J", ',');
  const auto [di, dj] = p.pair(origins.substr(arrow + 2), "target origin as K,L", ',');
  r.src_origin = {p.index(si, "source origin row I", 0), p.index(sj, "source origin column J", 0)};
  r.dst_origin = {p.index(di, "target origin row K", 0), p.index(dj, "target origin column L", 0)};
  return r;
}

/// The block-cyclic distribution of a bc spec (or the off-band grid of a band spec).
inline BlockCyclic make_block_cyclic(const GridSpec& g) {
  return BlockCyclic(g.P, g.Q, g.kp, g.kq);
}

/// The distribution a spec names, on a communicator of `comm_size` ranks (used by random),
/// for a grid of `tiles` tiles (used by the heterogeneous ones).
/// @throws parse_error for synth, which needs its source (make_layout).
inline SpecDistribution make_distribution(const DistributionSpec& d, int comm_size,
                                          Extents tiles = {}) {
  switch (d.kind) {
    case DistributionKind::random:
      return SpecDistribution(RandomDistribution(comm_size, d.seed));
    case DistributionKind::band:
      return SpecDistribution(BandDistribution(d.band_width, make_block_cyclic(d.band_grid),
                                               make_block_cyclic(d.grid)));
    case DistributionKind::heterogeneous:
      return SpecDistribution(HeterogeneousGrid(d.grid.P, d.grid.Q, d.powers, tiles));
    case DistributionKind::heterogeneous_1d:
      return SpecDistribution(Heterogeneous1D(d.axis, d.powers, tiles));
    case DistributionKind::synthesized:
      detail::parse_fail("layout", "synth needs the source layout (see make_layout), got", d.text,
                         d.text);
    case DistributionKind::block_cyclic:
    case DistributionKind::block_cyclic_devices:
      break;
  }
  return SpecDistribution(make_block_cyclic(d.grid));
}

/// `dst` with `src` as the layout a synth target is synthesized from (other specs are
/// returned unchanged).
inline LayoutSpec with_source(LayoutSpec dst, const LayoutSpec& src) {
  if (dst.distribution.kind == DistributionKind::synthesized)
    dst.source = std::make_shared<const LayoutSpec>(src);
  return dst;
}

/// Layout<SpecShape, SpecDistribution> of any spec (tile storage). A synth spec is built
/// by Algorithm 2 from its source (with_source) on the same tiling.
/// @throws parse_error naming the spec's argument and the offending piece (one line, not
/// repeating the whole spec) when a synth spec has no source (or is its own source's
/// source), a tiling other than the source's, fewer counts than the source has ranks, or
/// counts that do not sum to the tiles of its mask.
inline Layout<SpecShape, SpecDistribution> make_layout(const LayoutSpec& s, int comm_size) {
  const SpecShape shape = make_shape(s);
  if (s.distribution.kind != DistributionKind::synthesized)
    return {shape, make_distribution(s.distribution, comm_size, tile_counts(shape))};
  const DistributionSpec& d = s.distribution;
  const std::string arg = s.argument.empty() ? "layout" : s.argument;
  if (!s.source || s.source->distribution.kind == DistributionKind::synthesized)
    detail::parse_fail(arg, "synth builds a target from the source layout (--src), got", d.text,
                       d.text);
  const LayoutSpec& src = *s.source;
  if (src.extent != s.extent || src.tile != s.tile) {
    std::ostringstream want;
    want << "synth needs the source's tiling " << src.extent.rows << "x" << src.extent.cols << "/"
         << src.tile.rows << "x" << src.tile.cols << ", got";
    const std::string tiling = s.text.substr(0, s.text.find('/', s.text.find('/') + 1));
    detail::parse_fail(arg, want.str(), tiling, tiling);
  }
  const auto source = make_layout(src, comm_size);
  if (static_cast<index_t>(d.counts.size()) < source.ranks())
    detail::parse_fail(arg,
                       "expected at least " + std::to_string(source.ranks()) +
                           " tile counts (one per rank of the source), got " +
                           std::to_string(d.counts.size()) + ":",
                       d.text, d.text);
  const TileMask mask{source.all_tiles(), d.part};
  const index_t want = mask.size();
  index_t sum = 0;
  bool overflow = false;  // 2^30 counts of up to 2^61 each
  for (index_t c : d.counts) overflow = overflow || __builtin_add_overflow(sum, c, &sum);
  if (overflow || sum != want) {
    const std::string part = d.part == TileTriangle::full    ? "tile grid"
                             : d.part == TileTriangle::lower ? "lower triangle"
                                                             : "upper triangle";
    detail::parse_fail(arg,
                       "tile counts sum to " +
                           (overflow ? "more than " + std::to_string(want) : std::to_string(sum)) +
                           " but the " + part + " has " + std::to_string(want) + " tiles:",
                       d.text, d.text);
  }
  return {shape, SpecDistribution(synthesize(source, d.counts, mask))};
}

/// The tile-storage placement of a spec: bc2 -> MultiDevice on its devices (m mod G, or
/// the two-level rule on GP x GQ devices), else one packed allocation.
inline SpecPlacement make_placement(const LayoutSpec& s) {
  const DistributionSpec& d = s.distribution;
  if (d.kind != DistributionKind::block_cyclic_devices) return SpecPlacement::row_cyclic(1);
  if (d.devices.Q == 0) return SpecPlacement::row_cyclic(d.devices.P);
  return SpecPlacement::two_level(d.grid.P, d.grid.Q, d.devices.P, d.devices.Q);
}

/// Layout<SpecShape, BlockCyclic> of a bc spec (ScaLAPACK storage needs a GridDistribution).
/// @throws parse_error if the spec is not block-cyclic.
inline Layout<SpecShape, BlockCyclic> make_block_cyclic_layout(
    const LayoutSpec& s, std::string_view argument = "layout") {
  if (s.distribution.kind != DistributionKind::block_cyclic)
    detail::parse_fail(argument, "a grid (bc) distribution is needed here, got", s.text, s.text);
  return {make_shape(s), make_block_cyclic(s.distribution.grid)};
}

/// "bc:2x2:1x2", "random:7", "band:2:1x4:2x2", "hetero:1x2:1,3", "bc2:2x2:4".
inline std::string to_string(const DistributionSpec& d) {
  std::ostringstream os;
  const auto grid = [&](const GridSpec& g) { os << g.P << "x" << g.Q; };
  switch (d.kind) {
    case DistributionKind::block_cyclic:
      os << "bc:";
      grid(d.grid);
      if (d.grid.kp != 1 || d.grid.kq != 1) os << ":" << d.grid.kp << "x" << d.grid.kq;
      break;
    case DistributionKind::random:
      os << "random:" << d.seed;
      break;
    case DistributionKind::band:
      os << "band:" << d.band_width << ":";
      grid(d.band_grid);
      os << ":";
      grid(d.grid);
      break;
    case DistributionKind::heterogeneous:
    case DistributionKind::heterogeneous_1d:
    case DistributionKind::synthesized:
      os << d.text;  // powers and counts as given
      break;
    case DistributionKind::block_cyclic_devices:
      os << "bc2:";
      grid(d.grid);
      os << ":" << d.devices.P;
      if (d.devices.Q != 0) os << "x" << d.devices.Q;
      break;
  }
  return os.str();
}

/// The canonical spec text of a layout, e.g. "100x80/16x16/bc:2x2/tile".
inline std::string to_string(const LayoutSpec& s) {
  std::ostringstream os;
  os << s.extent.rows << "x" << s.extent.cols << "/" << s.tile.rows << "x" << s.tile.cols << "/"
     << to_string(s.distribution) << "/"
     << (s.storage == StorageKind::scalapack ? "scalapack" : "tile");
  return os.str();
}

/// "RxC@I,J->K,L".
inline std::string to_string(const Region& r) {
  std::ostringstream os;
  os << r.extent.rows << "x" << r.extent.cols << "@" << r.src_origin.i << "," << r.src_origin.j
     << "->" << r.dst_origin.i << "," << r.dst_origin.j;
  return os.str();
}

}  // namespace redist::tools
