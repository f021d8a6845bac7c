// The geometry of op(A) and of triangles, by brute force, on every rank of virtual
// communicators: a transposed target tile's category equals the count of distinct source
// tiles along each axis; a masked plan covers every kept target element exactly
// once (from its source owner, at its target owner) and no other, and both ends of every
// message agree on its size.
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/plan/block_family.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transform.hpp>
#include <redist/triangle.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

Tiling<UniformAxis<>, UniformAxis<>> shape(index_t r, index_t c, index_t mb, index_t nb) {
  return {UniformAxis<>(r, mb), UniformAxis<>(c, nb)};
}

index_t draw(std::mt19937& g, index_t lo, index_t hi) {
  return lo + static_cast<index_t>(g() % static_cast<unsigned>(hi - lo + 1));
}

}  // namespace

TEST_CASE("transform: a transposed tile's category is the brute-force count of source tiles") {
  std::mt19937 g(7);
  for (int k = 0; k < 300; ++k) {
    const auto src = shape(draw(g, 1, 40), draw(g, 1, 40), draw(g, 1, 9), draw(g, 1, 9));
    const Extents se = element_extents(src);
    const index_t R = draw(g, 1, se.rows), C = draw(g, 1, se.cols);
    const auto dst = shape(C + draw(g, 0, 9), R + draw(g, 0, 9), draw(g, 1, 9), draw(g, 1, 9));
    const Extents de = element_extents(dst);
    const Region r{{R, C},
                   {draw(g, 0, se.rows - R), draw(g, 0, se.cols - C)},
                   {draw(g, 0, de.rows - C), draw(g, 0, de.cols - R)}};
    CAPTURE(k);
    for (index_t m = 0; m < dst.rows().count(); ++m)
      for (index_t n = 0; n < dst.cols().count(); ++n) {
        // Target rows of tile m in the C x R rectangle map to source columns, target
        // columns to source rows: count the distinct source tiles met.
        std::set<index_t> src_cols, src_rows;
        for (index_t i = dst.rows().begin(m); i < dst.rows().begin(m) + dst.rows().size(m); ++i)
          if (i >= r.dst_origin.i && i < r.dst_origin.i + C)
            src_cols.insert(src.cols().tile_of(r.src_origin.j + i - r.dst_origin.i));
        for (index_t j = dst.cols().begin(n); j < dst.cols().begin(n) + dst.cols().size(n); ++j)
          if (j >= r.dst_origin.j && j < r.dst_origin.j + R)
            src_rows.insert(src.rows().tile_of(r.src_origin.i + j - r.dst_origin.j));
        if (src_cols.empty() || src_rows.empty()) {
          CHECK_THROWS_AS(category(src, dst, r, {m, n}, Op::transpose), invalid_argument);
          continue;
        }
        CHECK(category(src, dst, r, {m, n}, Op::transpose) ==
              category_of(static_cast<index_t>(src_cols.size()),
                          static_cast<index_t>(src_rows.size())));
      }
  }
}

TEST_CASE("transform: a masked plan covers exactly the kept elements, once, at every rank") {
  std::mt19937 g(11);
  for (int k = 0; k < 120; ++k) {
    const int np = static_cast<int>(draw(g, 1, 4));
    const int sp = static_cast<int>(draw(g, 1, np)), dp = static_cast<int>(draw(g, 1, np));
    const Layout src{shape(draw(g, 1, 30), draw(g, 1, 30), draw(g, 1, 6), draw(g, 1, 6)),
                     BlockCyclic(sp, np / sp)};
    const Layout dst{shape(draw(g, 1, 30), draw(g, 1, 30), draw(g, 1, 6), draw(g, 1, 6)),
                     BlockCyclic(dp, np / dp, 1, 1, GridCoord{dp - 1, 0})};
    const Extents se = src.extents(), de = dst.extents();
    const index_t R = draw(g, 0, std::min(se.rows, de.rows)),
                  C = draw(g, 0, std::min(se.cols, de.cols));
    const Region r{{R, C},
                   {draw(g, 0, se.rows - R), draw(g, 0, se.cols - C)},
                   {draw(g, 0, de.rows - R), draw(g, 0, de.cols - C)}};
    const Triangle tri{k % 2 ? Uplo::lower : Uplo::upper, k % 4 < 2 ? Diag::non_unit : Diag::unit};
    PlanOptions options;
    options.batch = draw(g, 0, 3);
    CAPTURE(k);
    CAPTURE(np);
    std::map<std::pair<index_t, index_t>, int> covered;  // target element -> times
    std::map<std::tuple<int, int, index_t>, index_t> sent, received;
    index_t kept_tiles = 0;
    for (int rank = 0; rank < np; ++rank) {
      const Plan p = make_plan(src, dst, r, rank, np, options, tri);
      const auto cover = [&](const FamilyList& d, bool remote) {
        for (const Message& msg : d.messages) {
          (remote ? received[{msg.peer, rank, msg.batch}] : received[{rank, rank, msg.batch}]) +=
              msg.elements;
          for (index_t f = msg.first; f < msg.first + msg.count; ++f) {
            const BlockFamily& fam = d.families[static_cast<std::size_t>(f)];
            for_each_segment(
                p.rows(fam), p.cols(fam), 0, [&](const Piece& pr, const Piece& pc, index_t) {
                  for (index_t a = 0; a < pr.length; ++a)
                    for (index_t b = 0; b < pc.length; ++b) {
                      const index_t i = dst.shape().rows().begin(pr.dst_tile) + pr.dst_offset + a;
                      const index_t j = dst.shape().cols().begin(pc.dst_tile) + pc.dst_offset + b;
                      CHECK(dst.owner({pr.dst_tile, pc.dst_tile}) == rank);
                      const index_t si = src.shape().rows().begin(pr.src_tile) + pr.src_offset + a;
                      const index_t sj = src.shape().cols().begin(pc.src_tile) + pc.src_offset + b;
                      CHECK(si - r.src_origin.i == i - r.dst_origin.i);
                      CHECK(sj - r.src_origin.j == j - r.dst_origin.j);
                      CHECK(src.owner({pr.src_tile, pc.src_tile}) == (remote ? msg.peer : rank));
                      covered[{i, j}] += 1;
                    }
                });
          }
        }
      };
      cover(p.recv, true);
      cover(p.local, false);
      for (const Message& msg : p.send.messages) sent[{rank, msg.peer, msg.batch}] += msg.elements;
      for (const Message& msg : p.local.messages) sent[{rank, rank, msg.batch}] += msg.elements;
      CHECK(p.stats.elements_received + p.stats.elements_local == [&] {
        index_t n = 0;
        for (index_t i = 0; i < R; ++i)
          for (index_t j = 0; j < C; ++j)
            n += tri.keeps(i, j, {R, C}) &&
                 dst.owner({dst.shape().rows().tile_of(r.dst_origin.i + i),
                            dst.shape().cols().tile_of(r.dst_origin.j + j)}) == rank;
        return n;
      }());
      kept_tiles += p.stats.dst_tiles;
    }
    index_t kept = 0, wrong = 0;
    std::set<std::pair<index_t, index_t>> tiles;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j) {
        const auto it = covered.find({r.dst_origin.i + i, r.dst_origin.j + j});
        const int times = it == covered.end() ? 0 : it->second;
        if (tri.keeps(i, j, {R, C})) {
          ++kept;
          wrong += times != 1;
          tiles.insert({dst.shape().rows().tile_of(r.dst_origin.i + i),
                        dst.shape().cols().tile_of(r.dst_origin.j + j)});
        } else {
          wrong += times != 0;
        }
      }
    CHECK(wrong == 0);
    CHECK(static_cast<index_t>(covered.size()) == kept);
    CHECK(kept == tri.elements({R, C}));
    CHECK(sent == received);
    CHECK(kept_tiles == static_cast<index_t>(tiles.size()));
  }
}
