#pragma once
/// @file tools/layout_spec.hpp
/// Textual layouts and regions for command-line tools (redist-run). The pieces are read by
/// tools/spec_parser.hpp; each distribution kind's grammar, printing and making live in
/// tools/distribution_specs.hpp, with SpecDistribution, the run-time type that holds any
/// distribution a spec names.
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

#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/region.hpp>
#include <redist/synthesize.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tools/distribution_specs.hpp>
#include <redist/tools/spec_parser.hpp>

namespace redist::tools {

/// How a rank stores its tiles.
enum class StorageKind { tile, scalapack };

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
  index_t ranks(int comm_size) const { return distribution.ranks(comm_size); }
};

/// The tile shape every spec layout uses.
using SpecShape = Tiling<UniformAxis<>, UniformAxis<>>;

/// The tile shape of a spec.
inline SpecShape make_shape(const LayoutSpec& s) {
  return SpecShape{UniformAxis<>(s.extent.rows, s.tile.rows),
                   UniformAxis<>(s.extent.cols, s.tile.cols)};
}

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
  spec.distribution = parse_distribution(p, parts[2]);
  if (parts.size() == 4) {
    if (parts[3] == "tile") {
      spec.storage = StorageKind::tile;
    } else if (parts[3] == "scalapack") {
      spec.storage = StorageKind::scalapack;
    } else {
      detail::parse_fail(argument, "unknown storage (expected tile or scalapack)", parts[3], text);
    }
  }
  if (spec.storage == StorageKind::scalapack && !spec.distribution.is<BlockCyclicSpec>())
    detail::parse_fail(argument, "scalapack storage needs a bc distribution, got", parts[2], text);
  // The heterogeneous distributions hold per-tile tables: their tile grid must fit memory.
  if (spec.distribution.per_tile_tables()) {
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

/// `dst` with `src` as the layout a synth target is synthesized from (other specs are
/// returned unchanged).
inline LayoutSpec with_source(LayoutSpec dst, const LayoutSpec& src) {
  if (dst.distribution.is<SynthesizedSpec>()) dst.source = std::make_shared<const LayoutSpec>(src);
  return dst;
}

/// The layout types the tools make from specs: tile storage, any distribution
/// (make_layout), and ScaLAPACK storage, block-cyclic (make_block_cyclic_layout).
using TileMatrixLayout = Layout<SpecShape, SpecDistribution>;
using GridMatrixLayout = Layout<SpecShape, BlockCyclic>;

/// The TileMatrixLayout of any spec (tile storage). A synth spec is built
/// by Algorithm 2 from its source (with_source) on the same tiling.
/// @throws parse_error naming the spec's argument and the offending piece (one line, not
/// repeating the whole spec) when a synth spec has no source (or is its own source's
/// source), a tiling other than the source's, fewer counts than the source has ranks, or
/// counts that do not sum to the tiles of its mask.
inline TileMatrixLayout make_layout(const LayoutSpec& s, int comm_size) {
  const SpecShape shape = make_shape(s);
  if (!s.distribution.is<SynthesizedSpec>())
    return {shape, make_distribution(s.distribution, comm_size, tile_counts(shape))};
  const SynthesizedSpec& d = s.distribution.as<SynthesizedSpec>();
  const std::string& text = s.distribution.text;
  const std::string arg = s.argument.empty() ? "layout" : s.argument;
  if (!s.source || s.source->distribution.is<SynthesizedSpec>())
    detail::parse_fail(arg, "synth builds a target from the source layout (--src), got", text,
                       text);
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
                       text, text);
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
                       text, text);
  }
  return {shape, SpecDistribution(synthesize(source, d.counts, mask))};
}

/// The tile-storage placement of a spec: bc2 -> MultiDevice on its devices (m mod G, or
/// the two-level rule on GP x GQ devices), else one packed allocation.
inline SpecPlacement make_placement(const LayoutSpec& s) { return s.distribution.placement(); }

/// The GridMatrixLayout of a bc spec (ScaLAPACK storage needs a GridDistribution).
/// @throws parse_error if the spec is not block-cyclic.
inline GridMatrixLayout make_block_cyclic_layout(const LayoutSpec& s,
                                                 std::string_view argument = "layout") {
  if (!s.distribution.is<BlockCyclicSpec>())
    detail::parse_fail(argument, "a grid (bc) distribution is needed here, got", s.text, s.text);
  return {make_shape(s), make_block_cyclic(s.distribution.as<BlockCyclicSpec>().grid)};
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
