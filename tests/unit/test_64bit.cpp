// 64-bit planning (issue "Robustness", item 2): plans of virtual problems far beyond 2^31
// elements, for one rank of a virtual communicator, with no data allocated. The plan's
// element counts are checked exactly against values computed independently here, in
// __int128, from the block-cyclic formulas (closed form per axis, cross-checked by
// counting along each axis element by element).
#include <climits>
#include <cstdint>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
__extension__ typedef __int128 i128;  // __extension__: no -Wpedantic warning

/// One axis of a uniformly tiled block-cyclic layout: element i is on grid coordinate
/// (i / tile / super + first) mod grid.
struct AxisModel {
  index_t tile;
  int grid;
  int first = 0;
  index_t super = 1;
  int coord(index_t i) const { return static_cast<int>((i / tile / super + first) % grid); }
};

/// #{ i in [0, x) : coord(i) == c } in closed form, for super == 1 and first == 0:
/// whole periods of tile * grid elements contribute `tile` each, the partial period
/// contributes its overlap with [c * tile, (c + 1) * tile).
i128 owned_prefix(const AxisModel& a, index_t x, int c) {
  REQUIRE(a.super == 1);
  const int shifted = ((c - a.first) % a.grid + a.grid) % a.grid;
  const i128 period = static_cast<i128>(a.tile) * a.grid;
  const i128 whole = x / period, rest = x % period;
  const i128 lo = static_cast<i128>(shifted) * a.tile;
  const i128 part = rest <= lo ? 0 : (rest - lo < a.tile ? rest - lo : a.tile);
  return whole * a.tile + part;
}
i128 owned_closed_form(const AxisModel& a, index_t begin, index_t length, int c) {
  return owned_prefix(a, begin + length, c) - owned_prefix(a, begin, c);
}

/// Counts along one axis, element by element: how many of the region's `length`
/// positions the target coordinate dc owns, the source coordinate sc owns, and both.
struct AxisCounts {
  i128 dst = 0, src = 0, both = 0;
};
AxisCounts count_axis(const AxisModel& s, const AxisModel& d, index_t src_origin,
                      index_t dst_origin, index_t length, int sc, int dc) {
  AxisCounts n;
  for (index_t k = 0; k < length; ++k) {
    const bool in_dst = d.coord(dst_origin + k) == dc, in_src = s.coord(src_origin + k) == sc;
    n.dst += in_dst;
    n.src += in_src;
    n.both += in_dst && in_src;
  }
  return n;
}

struct Expected {
  i128 received = 0, sent = 0, local = 0;
};

/// The plan of `rank` for a block-cyclic -> block-cyclic move, from the axis models alone.
Expected expected_counts(const AxisModel& sr, const AxisModel& sc, const AxisModel& dr,
                         const AxisModel& dc, int src_Q, int dst_Q, const Region& r, int rank) {
  const int src_p = rank / src_Q, src_q = rank % src_Q;
  const int dst_p = rank / dst_Q, dst_q = rank % dst_Q;
  const bool src_has = src_p < sr.grid, dst_has = dst_p < dr.grid;
  const AxisCounts rows =
      count_axis(sr, dr, r.src_origin.i, r.dst_origin.i, r.extent.rows, src_p, dst_p);
  const AxisCounts cols =
      count_axis(sc, dc, r.src_origin.j, r.dst_origin.j, r.extent.cols, src_q, dst_q);
  if (sr.super == 1 && dr.super == 1 && sc.super == 1 && dc.super == 1 && src_has && dst_has) {
    // Cross-check the element-by-element counts against the closed form.
    CHECK((rows.dst == owned_closed_form(dr, r.dst_origin.i, r.extent.rows, dst_p)));
    CHECK((rows.src == owned_closed_form(sr, r.src_origin.i, r.extent.rows, src_p)));
    CHECK((cols.dst == owned_closed_form(dc, r.dst_origin.j, r.extent.cols, dst_q)));
    CHECK((cols.src == owned_closed_form(sc, r.src_origin.j, r.extent.cols, src_q)));
  }
  Expected e;
  e.local = src_has && dst_has ? rows.both * cols.both : 0;
  e.received = (dst_has ? rows.dst * cols.dst : 0) - e.local;
  e.sent = (src_has ? rows.src * cols.src : 0) - e.local;
  return e;
}

/// Internal consistency of a plan: message and segment sums match the stats.
void check_plan_sums(const ReferencePlan& p) {
  i128 recv = 0, sent = 0, local = 0, msg_recv = 0, msg_sent = 0;
  for (const auto& s : p.recv.segments) recv += s.segment.extent.size();
  for (const auto& s : p.send.segments) sent += s.segment.extent.size();
  for (const auto& s : p.local) local += s.segment.extent.size();
  for (const auto& m : p.recv.messages) msg_recv += m.elements;
  for (const auto& m : p.send.messages) msg_sent += m.elements;
  CHECK((recv == p.stats.elements_received));
  CHECK((sent == p.stats.elements_sent));
  CHECK((local == p.stats.elements_local));
  CHECK((msg_recv == recv));
  CHECK((msg_sent == sent));
}

bool fits_int64(i128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

}  // namespace

TEST_SUITE("64bit") {
  TEST_CASE(
      "3e6 x 3e6 matrix, 1000 x 1000 tiles on 64 x 64 ranks -> 1500 x 1200 tiles on 32 x 128") {
    const index_t n = 3'000'000;
    const Layout src{Tiling{UniformAxis<>(n, 1000), UniformAxis<>(n, 1000)}, BlockCyclic(64, 64)};
    const Layout dst{Tiling{UniformAxis<>(n, 1500), UniformAxis<>(n, 1200)}, BlockCyclic(32, 128)};
    const AxisModel sr{1000, 64}, sc{1000, 64}, dr{1500, 32}, dc{1200, 128};
    // clang-format off
    const std::vector<Region> regions{
        Region::whole({n, n}),
        Region{{2'900'000, 2'950'000}, {50'000, 30'000}, {70'000, 10'001}},
    };
    // clang-format on
    for (const Region& r : regions)
      for (int rank : {0, 1234, 4095}) {
        CAPTURE(rank);
        const ReferencePlan p = make_reference_plan(src, dst, r, rank, 4096);
        const Expected e = expected_counts(sr, sc, dr, dc, 64, 128, r, rank);
        REQUIRE(fits_int64(e.received));
        CHECK(p.stats.elements_received == static_cast<index_t>(e.received));
        CHECK(p.stats.elements_sent == static_cast<index_t>(e.sent));
        CHECK(p.stats.elements_local == static_cast<index_t>(e.local));
        // Far beyond what a 32-bit count holds, on one rank.
        CHECK(p.stats.elements_received + p.stats.elements_sent + p.stats.elements_local >
              index_t{INT_MAX});
        check_plan_sums(p);
        // The rank's share stays small: it only touches its own tiles.
        CHECK(p.recv.segments.size() + p.local.size() < 20'000);
        CHECK(p.send.segments.size() < 20'000);
      }
  }

  TEST_CASE("same layout on both sides: everything is local, closed form per rank") {
    const index_t n = 3'000'000;  // 3000 tile rows = 46 * 64 + 56
    const Layout l{Tiling{UniformAxis<>(n, 1000), UniformAxis<>(n, 1000)}, BlockCyclic(64, 64)};
    for (int rank : {0, 55 * 64 + 55, 56 * 64 + 56, 4095}) {
      CAPTURE(rank);
      const ReferencePlan p = make_reference_plan(l, l, Region::whole({n, n}), rank, 4096);
      const i128 rows = (rank / 64 < 56 ? 47 : 46) * i128{1000};
      const i128 cols = (rank % 64 < 56 ? 47 : 46) * i128{1000};
      CHECK((p.stats.elements_local == rows * cols));
      CHECK(p.stats.elements_sent == 0);
      CHECK(p.stats.elements_received == 0);
      CHECK(p.stats.messages_sent == 0);
      CHECK(p.stats.segments_local == (rows / 1000) * (cols / 1000));
      CHECK(p.stats.dst_tiles == p.stats.segments_local);
      CHECK(p.stats.categories[0] == p.stats.dst_tiles);
    }
  }

  TEST_CASE("a single tile larger than 2^31 elements") {
    const index_t n = 150'000;  // 3 x 3 tiles of 50000 x 50000 = 2.5e9 elements each
    const Layout src{Tiling{UniformAxis<>(n, 50'000), UniformAxis<>(n, 50'000)}, BlockCyclic(2, 2)};
    const Layout dst{Tiling{UniformAxis<>(n, 100'000), UniformAxis<>(n, 70'000)},
                     BlockCyclic(2, 1, 1, 1, GridCoord{1, 0})};
    const AxisModel sr{50'000, 2}, sc{50'000, 2}, dr{100'000, 2, 1}, dc{70'000, 1};
    // Source tile (1, 1) = rows and columns [50000, 100000) lands whole inside target tile
    // (0, 1) = [0, 100000) x [70000, 140000): a 2.5e9-element segment.
    const Region r{{120'000, 120'000}, {17, 5}, {17, 20'005}};
    i128 total_recv = 0, total_sent = 0, total_local = 0;
    bool big_segment = false, big_message = false;
    // One source tile column per batch: the default 1 GiB cap would cut this 20 GB tile.
    PlanOptions o;
    o.batch = 1;
    for (int rank = 0; rank < 4; ++rank) {
      CAPTURE(rank);
      const ReferencePlan p = make_reference_plan(src, dst, r, rank, 4, o);
      const Expected e = expected_counts(sr, sc, dr, dc, 2, 1, r, rank);
      CHECK(p.stats.elements_received == static_cast<index_t>(e.received));
      CHECK(p.stats.elements_sent == static_cast<index_t>(e.sent));
      CHECK(p.stats.elements_local == static_cast<index_t>(e.local));
      check_plan_sums(p);
      total_recv += p.stats.elements_received;
      total_sent += p.stats.elements_sent;
      total_local += p.stats.elements_local;
      for (const auto& s : p.recv.segments)
        big_segment |= s.segment.extent.size() > index_t{INT_MAX};
      for (const auto& s : p.local) big_segment |= s.segment.extent.size() > index_t{INT_MAX};
      // A message this large must be split into ceil(bytes / INT_MAX) MPI messages.
      for (const auto& m : p.send.messages)
        big_message |= m.elements * p.options.element_bytes > index_t{INT_MAX};
    }
    // Nothing lost, nothing counted twice: received + local over all ranks is the region.
    CHECK((total_recv + total_local == i128{120'000} * 120'000));
    CHECK((total_sent == total_recv));
    CHECK(big_segment);
    CHECK(big_message);
  }
}
