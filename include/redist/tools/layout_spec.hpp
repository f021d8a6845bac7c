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
///   STORAGE := "tile" (default: owned tiles packed back to back) | "scalapack"
///   region  := R "x" C [ "@" I "," J "->" K "," L ]   R x C elements from source (I, J)
///                                                  to target (K, L); origins default to 0
///
/// Example: "8192x8192/256x256/bc:2x2:1x2/scalapack" and "100x50@10,0->0,20".
/// Block-cyclic owner: rank of tile (m, n) = ((m / KP) mod P) * Q + ((n / KQ) mod Q).
///
/// Malformed text throws redist::parse_error whose message names the argument (e.g.
/// "--src"), the offending piece and the whole text.

#include <charconv>
#include <cstdint>
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
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/region.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace redist::tools {

/// How a rank stores its tiles.
enum class StorageKind { tile, scalapack };

/// Which distribution a spec names.
enum class DistributionKind { block_cyclic, random, band };

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
  GridSpec grid;           ///< bc: the grid; band: the off-band grid
  GridSpec band_grid;      ///< band: the grid of the band
  index_t band_width = 0;  ///< band: B
  std::uint64_t seed = 0;  ///< random: SEED
  friend bool operator==(const DistributionSpec&, const DistributionSpec&) = default;
};

/// A parsed layout spec.
struct LayoutSpec {
  Extents extent;  ///< M x N elements
  Extents tile;    ///< MB x NB elements
  DistributionSpec distribution;
  StorageKind storage = StorageKind::tile;
  std::string text;  ///< the text it was parsed from

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

/// One run-time distribution type for every DIST a spec can name. Models Distribution
/// and EnumeratesOwnedTiles: block-cyclic enumerates its own tiles in O(owned tiles);
/// random and band scan the box they are asked about.
class SpecDistribution {
 public:
  using variant_type = std::variant<BlockCyclic, RandomDistribution, BandDistribution>;

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
    if (const auto* bc = std::get_if<BlockCyclic>(&d_)) {
      bc->for_each_owned(rank, box, f);
      return;
    }
    if (box.empty()) return;
    for (index_t n = box.begin.n; n < box.end.n; ++n)
      for (index_t m = box.begin.m; m < box.end.m; ++m)
        if (owner(TileIndex{m, n}) == rank) f(TileIndex{m, n});
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

  DistributionSpec distribution(std::string_view s) const {
    const auto parts = split(s, ':');
    DistributionSpec d;
    if (parts[0] == "bc") {
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
      parse_fail(argument, "unknown distribution (expected bc, random or band)", parts[0], text);
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

/// The tile shape of a spec.
inline SpecShape make_shape(const LayoutSpec& s) {
  return SpecShape{UniformAxis<>(s.extent.rows, s.tile.rows),
                   UniformAxis<>(s.extent.cols, s.tile.cols)};
}

/// The block-cyclic distribution of a bc spec (or the off-band grid of a band spec).
inline BlockCyclic make_block_cyclic(const GridSpec& g) {
  return BlockCyclic(g.P, g.Q, g.kp, g.kq);
}

/// The distribution a spec names, on a communicator of `comm_size` ranks (used by random).
inline SpecDistribution make_distribution(const DistributionSpec& d, int comm_size) {
  switch (d.kind) {
    case DistributionKind::random:
      return SpecDistribution(RandomDistribution(comm_size, d.seed));
    case DistributionKind::band:
      return SpecDistribution(BandDistribution(d.band_width, make_block_cyclic(d.band_grid),
                                               make_block_cyclic(d.grid)));
    case DistributionKind::block_cyclic:
      break;
  }
  return SpecDistribution(make_block_cyclic(d.grid));
}

/// Layout<SpecShape, SpecDistribution> of any spec (tile storage).
inline Layout<SpecShape, SpecDistribution> make_layout(const LayoutSpec& s, int comm_size) {
  return {make_shape(s), make_distribution(s.distribution, comm_size)};
}

/// Layout<SpecShape, BlockCyclic> of a bc spec (ScaLAPACK storage needs a GridDistribution).
/// @throws parse_error if the spec is not block-cyclic.
inline Layout<SpecShape, BlockCyclic> make_block_cyclic_layout(
    const LayoutSpec& s, std::string_view argument = "layout") {
  if (s.distribution.kind != DistributionKind::block_cyclic)
    detail::parse_fail(argument, "a grid (bc) distribution is needed here, got", s.text, s.text);
  return {make_shape(s), make_block_cyclic(s.distribution.grid)};
}

/// "bc:2x2:1x2", "random:7", "band:2:1x4:2x2".
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
