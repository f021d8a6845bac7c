// redist-run's layout and region specs: good inputs parse to the right layouts, bad inputs
// throw redist::parse_error naming the argument and the offending text.
#include <string>
#include <vector>

#include <redist/tools/layout_report.hpp>
#include <redist/tools/layout_spec.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using namespace redist::tools;

static_assert(Distribution<SpecDistribution>);
static_assert(EnumeratesOwnedTiles<SpecDistribution>);

std::string parse_message(const std::string& text, const std::string& argument) {
  try {
    (void)parse_layout(text, argument);
  } catch (const parse_error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("layout spec: good inputs") {
  const LayoutSpec a = parse_layout("8192x8192/256x256/bc:1x4", "--src");
  CHECK(a.extent == Extents{8192, 8192});
  CHECK(a.tile == Extents{256, 256});
  CHECK(a.distribution.is<BlockCyclicSpec>());
  CHECK(a.distribution.as<BlockCyclicSpec>().grid == GridSpec{1, 4, 1, 1});
  CHECK(a.storage == StorageKind::tile);
  CHECK(a.ranks(16) == 4);
  CHECK(to_string(a) == "8192x8192/256x256/bc:1x4/tile");

  const LayoutSpec b = parse_layout("100x50/7x9/bc:2x3:2x1/scalapack");
  CHECK(b.distribution.as<BlockCyclicSpec>().grid == GridSpec{2, 3, 2, 1});
  CHECK(b.storage == StorageKind::scalapack);
  CHECK(to_string(b) == "100x50/7x9/bc:2x3:2x1/scalapack");

  const LayoutSpec c = parse_layout("10x10/3x3/random:18446744073709551615/tile");
  CHECK(c.distribution.is<RandomSpec>());
  CHECK(c.distribution.as<RandomSpec>().seed == 18446744073709551615ull);
  CHECK(c.ranks(5) == 5);

  const LayoutSpec d = parse_layout("64x64/8x8/band:2:1x4:2x2");
  CHECK(d.distribution.is<BandSpec>());
  CHECK(d.distribution.as<BandSpec>().band_width == 2);
  CHECK(d.distribution.as<BandSpec>().band_grid == GridSpec{1, 4, 1, 1});
  CHECK(d.distribution.as<BandSpec>().grid == GridSpec{2, 2, 1, 1});
  CHECK(d.ranks(1) == 4);
  CHECK(to_string(d) == "64x64/8x8/band:2:1x4:2x2/tile");
}

TEST_CASE("layout spec: the distributions it builds") {
  const LayoutSpec s = parse_layout("40x30/4x5/bc:2x3:2x1");
  const auto layout = make_layout(s, 6);
  const BlockCyclic bc(2, 3, 2, 1);
  CHECK(layout.tiles() == Extents{10, 6});
  for (index_t m = 0; m < 10; ++m)
    for (index_t n = 0; n < 6; ++n) {
      // rank of tile (m, n) = ((m / kp) mod P) * Q + ((n / kq) mod Q)
      CHECK(layout.owner({m, n}) == static_cast<int>(((m / 2) % 2) * 3 + (n % 3)));
      CHECK(layout.owner({m, n}) == bc.owner({m, n}));
    }
  // for_each_owned visits exactly the owned tiles, for every alternative.
  for (const char* text :
       {"40x30/4x5/bc:2x3:2x1", "40x30/4x5/random:9", "40x30/4x5/band:2:1x3:2x2"}) {
    const auto l = make_layout(parse_layout(text), 6);
    const TileBox box{{1, 2}, {9, 6}};
    for (int r = 0; r < 6; ++r) {
      index_t visited = 0, want = 0;
      l.distribution().for_each_owned(r, box, [&](TileIndex t) {
        CHECK(box.contains(t));
        CHECK(l.owner(t) == r);
        ++visited;
      });
      for (index_t m = 1; m < 9; ++m)
        for (index_t n = 2; n < 6; ++n) want += l.owner({m, n}) == r;
      CAPTURE(text);
      CHECK(visited == want);
    }
  }
  const auto band = make_layout(parse_layout("40x40/4x4/band:1:1x2:2x1"), 4);
  CHECK(band.owner({3, 3}) ==
        BandDistribution(1, BlockCyclic(1, 2), BlockCyclic(2, 1)).owner({3, 3}));
  CHECK(make_layout(parse_layout("40x40/4x4/random:1"), 7).ranks() == 7);
  CHECK(make_block_cyclic_layout(parse_layout("40x40/4x4/bc:2x2")).distribution() ==
        BlockCyclic(2, 2));
  CHECK_THROWS_AS(make_block_cyclic_layout(parse_layout("40x40/4x4/random:1"), "--dst"),
                  parse_error);
}

TEST_CASE("layout spec: bad inputs name the argument and the offending text") {
  // clang-format off
  struct Bad { const char* text; const char* offending; };
  const Bad bad[] = {
    {"",                               "''"},
    {"8192x8192",                      "'8192x8192'"},
    {"8192x8192/256x256",              "'8192x8192/256x256'"},
    {"8192/256x256/bc:1x4",            "'8192'"},
    {"8192x/256x256/bc:1x4",           "''"},
    {"axb/256x256/bc:1x4",             "'a'"},
    {"0x10/2x2/bc:1x1",                "'0'"},
    {"10x10/0x2/bc:1x1",               "'0'"},
    {"10x10/-2x2/bc:1x1",              "'-2'"},
    {"10x10/2x2x2/bc:1x1",             "'2x2x2'"},
    {"10x10/2x2/bc",                   "'bc'"},
    {"10x10/2x2/bc:0x2",               "'0'"},
    {"10x10/2x2/bc:2",                 "'2'"},
    {"10x10/2x2/bc:2x2:0x1",           "'0'"},
    {"10x10/2x2/bc:2x2:1x1:1",         "'bc:2x2:1x1:1'"},
    {"10x10/2x2/random",               "'random'"},
    {"10x10/2x2/random:x",             "'x'"},
    {"10x10/2x2/random:99999999999999999999", "'99999999999999999999'"},
    {"10x10/2x2/band:0:1x1:1x1",       "'0'"},
    {"10x10/2x2/band:2:1x1",           "'band:2:1x1'"},
    {"10x10/2x2/cyclic:2x2",           "'cyclic'"},
    {"10x10/2x2/bc:1x1/rowmajor",      "'rowmajor'"},
    {"10x10/2x2/random:1/scalapack",   "'random:1'"},
    {"10x10/2x2/band:1:1x1:1x1/scalapack", "'band:1:1x1:1x1'"},
    {"10x10/2x2/bc:1x1/tile/extra",    "'10x10/2x2/bc:1x1/tile/extra'"},
  };
  // clang-format on
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    CHECK_THROWS_AS((void)parse_layout(b.text, "--src"), parse_error);
    const std::string msg = parse_message(b.text, "--dst");
    CHECK(msg.find("--dst") != std::string::npos);
    CHECK(msg.find(b.offending) != std::string::npos);
    CHECK(msg.find("--src") == std::string::npos);
  }
  CHECK(parse_message("10x10/2x2/bc:0x2", "--src").find("grid rows P") != std::string::npos);
}

TEST_CASE("layout spec: every distribution kind parses, prints and counts its ranks") {
  // One sample per kind, in the grammar's order: the table and this list must agree.
  // clang-format off
  struct Sample { const char* dist; int ranks; };
  const Sample samples[] = {
    {"bc:2x3:2x1", 6}, {"random:7", 5}, {"band:2:1x4:2x2", 4}, {"hetero:1x2:1,3", 2},
    {"hetero1d:rows:1,2,3", 3}, {"synth:5,5,5", 3}, {"bc2:2x2:2x2", 4},
  };
  // clang-format on
  std::size_t index = 0;
  std::string tags;
  for_each_kind([&](const auto& kind) {
    using K = std::decay_t<decltype(kind)>;
    REQUIRE(index < std::size(samples));
    const Sample& sample = samples[index++];
    CAPTURE(sample.dist);
    const LayoutSpec s = parse_layout(std::string("30x30/3x3/") + sample.dist);
    CHECK(s.distribution.is<K>());
    CHECK(std::string_view(sample.dist).substr(0, K::tag.size()) == K::tag);
    CHECK(to_string(s.distribution) == sample.dist);
    CHECK(parse_layout(to_string(s)).distribution == s.distribution);
    CHECK(s.ranks(5) == sample.ranks);
    // Too few fields: the kind's own usage line.
    const std::string msg = parse_message(std::string("30x30/3x3/") + std::string(K::tag), "--src");
    CHECK(msg.find("expected " + std::string(K::usage)) != std::string::npos);
    tags += std::string(tags.empty() ? "" : ",") + std::string(K::tag);
  });
  CHECK(index == std::size(samples));
  CHECK(tags == "bc,random,band,hetero,hetero1d,synth,bc2");
  CHECK(parse_message("10x10/2x2/cyclic:2x2", "--src") ==
        "redist: --src: unknown distribution (expected bc, random, band, hetero, hetero1d, synth "
        "or bc2) 'cyclic' (in '10x10/2x2/cyclic:2x2')");
}

TEST_CASE("region spec: good and bad inputs") {
  CHECK(parse_region("4x5@1,2->3,0") == Region{{4, 5}, {1, 2}, {3, 0}});
  CHECK(parse_region("4x5") == Region{{4, 5}, {0, 0}, {0, 0}});
  CHECK(parse_region("0x7@0,0->0,0").empty());
  CHECK(to_string(parse_region("4x5@1,2->3,0")) == "4x5@1,2->3,0");
  // clang-format off
  struct Bad { const char* text; const char* offending; };
  const Bad bad[] = {
    {"",                 "''"},
    {"4",                "'4'"},
    {"4x",               "''"},
    {"4x5@",             "''"},
    {"4x5@1,2",          "'1,2'"},
    {"4x5@1,2->3",       "'3'"},
    {"4x5@1,2-3,4",      "'1,2-3,4'"},
    {"4x5@1,2->3,4->5,6", "'1,2->3,4->5,6'"},
    {"4x5@a,2->3,4",     "'a'"},
    {"4x5@1,-2->3,4",    "'-2'"},
    {"-4x5@1,2->3,4",    "'-4'"},
  };
  // clang-format on
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    std::string msg;
    try {
      (void)parse_region(b.text, "--region");
    } catch (const parse_error& e) {
      msg = e.what();
    }
    CHECK(msg.find("--region") != std::string::npos);
    CHECK(msg.find(b.offending) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("layout spec: grids whose P * Q overflows an int count their ranks in 64 bits") {
  CHECK(parse_layout("100x100/10x10/bc:65536x65536").ranks(2) == index_t{1} << 32);
  CHECK(parse_layout("100x100/10x10/bc:3x1073741824").ranks(2) == 3221225472);
  CHECK(parse_layout("100x100/10x10/band:1:65536x65536:1x2").ranks(2) == index_t{1} << 32);
}

TEST_CASE("escape_nonprintable: raw bytes and control characters as \\xHH, UTF-8 kept") {
  CHECK(escape_nonprintable("plain 10x10/2x2") == "plain 10x10/2x2");
  CHECK(escape_nonprintable("a\xFF"
                            "b") == "a\\xFFb");
  CHECK(escape_nonprintable("\t\n\x7F") == "\\x09\\x0A\\x7F");
  CHECK(escape_nonprintable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(escape_nonprintable("caf\xC3\xA9") == "caf\xC3\xA9");    // é
  CHECK(escape_nonprintable("\xE2\x82\xAC") == "\xE2\x82\xAC");  // €
  CHECK(escape_nonprintable("\xC3") == "\\xC3");                 // truncated
  CHECK(escape_nonprintable("\xC0\xAF") == "\\xC0\\xAF");        // overlong
  CHECK(escape_nonprintable("\xE2\x82"
                            "x") == "\\xE2\\x82x");
  // parse errors quote the offending text escaped.
  const std::string msg = parse_message("10x10/2x2/bc:1x\xFF", "--src");
  CHECK(msg ==
        "redist: --src: expected a non-negative integer for process grid columns Q, got "
        "'\\xFF' (in '10x10/2x2/bc:1x\\xFF')");
}

TEST_CASE("layout spec: heterogeneous, synthesized and two-level (issue 13)") {
  const LayoutSpec h = parse_layout("100x80/10x10/hetero:2x2:1,1.5,0,4", "--src");
  CHECK(h.distribution.is<HeterogeneousSpec>());
  CHECK(h.distribution.as<HeterogeneousSpec>().powers == std::vector<double>{1, 1.5, 0, 4});
  CHECK(h.ranks(8) == 4);
  CHECK(to_string(h) == "100x80/10x10/hetero:2x2:1,1.5,0,4/tile");
  const auto hl = make_layout(h, 4);
  const HeterogeneousGrid want(2, 2, {1, 1.5, 0, 4}, {10, 8});
  for (index_t m = 0; m < 10; ++m)
    for (index_t n = 0; n < 8; ++n) CHECK(hl.owner({m, n}) == want.owner({m, n}));

  const LayoutSpec r = parse_layout("100x80/10x10/hetero1d:cols:3,1,1");
  CHECK(r.distribution.as<Heterogeneous1DSpec>().axis == Axis::col);
  CHECK(r.ranks(8) == 3);
  CHECK(make_layout(r, 3).owner({4, 7}) ==
        Heterogeneous1D(Axis::col, {3, 1, 1}, {10, 8}).owner({4, 7}));

  // synth: Algorithm 2 from the source, on its tiling.
  const LayoutSpec s = with_source(parse_layout("100x80/10x10/synth:20,20,20,20", "--dst"), h);
  CHECK(s.ranks(8) == 4);
  CHECK(to_string(s) == "100x80/10x10/synth:20,20,20,20/tile");
  const auto sl = make_layout(s, 4);
  const TileMask all{sl.all_tiles()};
  CHECK(tiles_per_rank(sl.distribution(), all, 4) == std::vector<index_t>{20, 20, 20, 20});
  CHECK(tiles_moved(hl.distribution(), sl.distribution(), all) ==
        moves_lower_bound(tiles_per_rank(hl.distribution(), all, 4), {20, 20, 20, 20}));
  const LayoutSpec lower = with_source(parse_layout("100x100/10x10/synth:10,15,30:lower", "--dst"),
                                       parse_layout("100x100/10x10/bc:1x3"));
  CHECK(lower.distribution.as<SynthesizedSpec>().part == TileTriangle::lower);
  CHECK(tiles_per_rank(make_layout(lower, 3).distribution(),
                       TileMask{{{0, 0}, {10, 10}}, TileTriangle::lower},
                       3) == std::vector<index_t>{10, 15, 30});

  // bc2: block-cyclic owners, tiles on devices.
  const LayoutSpec b = parse_layout("64x64/8x8/bc2:2x2:3");
  CHECK(b.distribution.is<BlockCyclicDevicesSpec>());
  CHECK(to_string(b) == "64x64/8x8/bc2:2x2:3/tile");
  CHECK(make_layout(b, 4).distribution().get().index() == 0);  // BlockCyclic
  CHECK(make_placement(b).devices() == 3);
  CHECK(make_placement(b).rule() == DeviceRule::row_cyclic);
  const LayoutSpec b2 = parse_layout("64x64/8x8/bc2:2x2:2x2");
  CHECK(to_string(b2) == "64x64/8x8/bc2:2x2:2x2/tile");
  CHECK(make_placement(b2).rule() == DeviceRule::two_level);
  CHECK(make_placement(b2).devices() == 4);
  CHECK(make_placement(h).devices() == 1);

  // for_each_owned of every new alternative visits exactly the owned tiles.
  for (const auto* l : {&hl, &sl}) {
    for (int rank = 0; rank < 4; ++rank) {
      index_t visited = 0, owned = 0;
      l->distribution().for_each_owned(rank, {{2, 1}, {9, 8}},
                                       [&](TileIndex t) { visited += l->owner(t) == rank; });
      for (index_t m = 2; m < 9; ++m)
        for (index_t n = 1; n < 8; ++n) owned += l->owner({m, n}) == rank;
      CHECK(visited == owned);
    }
  }
}

TEST_CASE("layout spec: bad powers and counts name the value") {
  // clang-format off
  struct Bad { const char* text; const char* names; };
  const Bad bad[] = {
    {"10x10/2x2/hetero:2x2:1,2,-3,4",    "power w2 must be non-negative, got '-3'"},
    {"10x10/2x2/hetero:2x2:1,2,3",       "expected 4 powers (one per rank of the 2x2 grid), got 3: '1,2,3'"},
    {"10x10/2x2/hetero:1x2:1,x",         "expected a decimal number for power w1, got 'x'"},
    {"10x10/2x2/hetero:1x2:1,inf",       "power w1, got 'inf'"},
    {"10x10/2x2/hetero:1x2:0,0",         "powers must not all be zero, got '0,0'"},
    {"10x10/2x2/hetero:1x2",             "expected hetero:PxQ:W0,...,W(PQ-1)"},
    {"10x10/2x2/hetero1d:diag:1,2",      "expected hetero1d:rows:W0,... or hetero1d:cols:W0,..."},
    {"10x10/2x2/hetero1d:rows:1,,2",     "power w1, got ''"},
    {"10x10/2x2/synth:3,-1",             "tile count C1, got '-1'"},
    {"10x10/2x2/synth:3,4:diagonal",     "unknown tile mask (expected full, lower or upper) 'diagonal'"},
    {"10x10/2x2/bc2:2x2",                "expected bc2:PxQ:G or bc2:PxQ:GPxGQ"},
    {"10x10/2x2/bc2:2x2:0",              "device count G must be in [1, 1073741824], got '0'"},
    {"10x10/2x2/bc2:2x2:1x2/scalapack",  "scalapack storage needs a bc distribution"},
    {"10x10/2x2/hetero:1x1:1/scalapack", "scalapack storage needs a bc distribution"},
  };
  // clang-format on
  for (const Bad& b : bad) {
    const std::string msg = parse_message(b.text, "--dst");
    CAPTURE(b.text);
    CAPTURE(msg);
    CHECK(msg.find("redist: --dst: ") == 0);
    CHECK(msg.find(b.names) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  // Counts are checked against the source when the target is built.
  const LayoutSpec src = parse_layout("10x10/2x2/bc:2x2", "--src");  // 5x5 tiles
  const auto synth_message = [&](const char* text, const LayoutSpec* source) {
    LayoutSpec d = parse_layout(text, "--dst");
    if (source) d = with_source(d, *source);
    try {
      (void)make_layout(d, 4);
    } catch (const parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // clang-format off
  struct Late { const char* text; const char* names; };
  const Late late[] = {
    {"10x10/2x2/synth:5,5,5,5",          "tile counts sum to 20 but the tile grid has 25 tiles: 'synth:5,5,5,5'"},
    {"10x10/2x2/synth:5,5,5,5,6",        "tile counts sum to 26 but the tile grid has 25 tiles"},
    {"10x10/2x2/synth:4,4,4,3:lower",    "tile counts sum to 15 but the lower triangle has 15 tiles"},
    {"10x10/2x2/synth:10,15",            "expected at least 4 tile counts (one per rank of the source), got 2: 'synth:10,15'"},
    {"10x10/2x2/synth:2305843009213693951,2305843009213693951,2305843009213693951,2305843009213693951,2305843009213693951", "tile counts sum to more than 25"},
    {"10x12/2x2/synth:25,5",             "synth needs the source's tiling 10x10/2x2, got '10x12/2x2'"},
  };
  // clang-format on
  for (const Late& l : late) {
    const std::string msg = synth_message(l.text, &src);
    CAPTURE(l.text);
    CAPTURE(msg);
    if (std::string(l.names).find("15 but the lower triangle has 15") != std::string::npos) {
      CHECK(msg.empty());  // 4 + 4 + 4 + 3 = 15 = the lower triangle of 5 x 5 tiles: fine
      continue;
    }
    CHECK(msg.find("redist: --dst: ") == 0);
    CHECK(msg.find(l.names) != std::string::npos);
  }
  CHECK(synth_message("10x10/2x2/synth:25", nullptr)
            .find("synth builds a target from the source layout (--src)") != std::string::npos);
}

TEST_CASE("layout report: tiles per rank, moved tiles and their lower bound") {
  const LayoutSpec src = parse_layout("100x100/10x10/hetero:2x2:1,1,4,4");
  const LayoutSpec dst = with_source(parse_layout("100x100/10x10/synth:25,25,25,25"), src);
  const auto a = make_layout(src, 4), b = make_layout(dst, 4);
  const LayoutReport r = layout_report(a, b, Region{{100, 100}, {0, 0}, {0, 0}}, 4);
  CHECK(r.src_tiles == tiles_per_rank(a.distribution(), TileMask{a.all_tiles()}, 4));
  CHECK(r.dst_tiles == std::vector<index_t>{25, 25, 25, 25});
  CHECK(r.region_tiles == 100);
  CHECK(r.moved == r.lower_bound);
  CHECK(r.moved > 0);
  // A region inside: only the tiles it touches count.
  const LayoutReport inner = layout_report(a, b, Region{{25, 31}, {15, 9}, {15, 9}}, 4);
  CHECK(inner.region_tiles == 3 * 4);
  // Different tilings or displaced regions: no tile-for-tile count.
  const auto c = make_layout(parse_layout("100x100/20x10/bc:2x2"), 4);
  CHECK(layout_report(a, c, Region{{50, 50}, {0, 0}, {0, 0}}, 4).moved == -1);
  CHECK(layout_report(a, b, Region{{50, 50}, {0, 0}, {10, 0}}, 4).moved == -1);
  CHECK(!layout_report(a, b, Region{{50, 50}, {0, 0}, {0, 0}}, 4, 10).counted);
}
