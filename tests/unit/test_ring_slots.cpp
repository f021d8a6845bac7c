// The node window's rings without MPI (transport/ring_slots.hpp): chunks held within a slot
// by cutting members between their columns, or between their segments where messages are laid
// flat (engine/chunking.hpp), identically on both ends
// and back to back; each ring chunk's slot and the chunk it waits for; rings within the
// room whole messages would take; slot sizes from the caches, and the caches as sysfs lists
// them (detail/cpu_caches.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include <redist/detail/cpu_caches.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transport/ring_slots.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

/// Rank `rank` of 4's plan: 256^2 tiles on 1 x 4 -> 100^2 tiles on 4 x 1 of a 2000 x 1800
/// matrix, whose members (500 rows x up to 100 columns) are larger than the slots tried.
/// `whole_columns`: the target on 1 x 4 instead, a message's members all 2000 rows of
/// their columns.
Plan four_rank_plan(int rank, bool whole_columns = false) {
  const Layout src{Tiling{UniformAxis<>(2000, 256), UniformAxis<>(1800, 256)}, BlockCyclic(1, 4)};
  const Layout dst{Tiling{UniformAxis<>(2000, 100), UniformAxis<>(1800, 100)},
                   whole_columns ? BlockCyclic(1, 4) : BlockCyclic(4, 1)};
  PlanOptions o;
  o.batch = 3;
  return make_plan(src, dst, Region::whole({2000, 1800}), rank, 4, o);
}

const auto everywhere = [](const Message&) { return true; };

/// Each chunk of rank 0's sent messages (`plan`, cut into `c`) beside the same chunk as its
/// receiver cuts it (cut(their plan, their plan.recv)): f(mine, theirs, c, theirs' cut).
template <class Cut, class F>
void beside_receivers(const Plan& plan, const Chunking& c, Cut&& cut, F&& f,
                      bool whole_columns = false) {
  for (int peer = 1; peer < 4; ++peer) {
    const Plan theirs = four_rank_plan(peer, whole_columns);
    const Chunking r = cut(theirs, theirs.recv);
    for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
      const Message& msg = plan.send.messages[m];
      if (msg.peer != peer) continue;
      for (std::size_t n = 0; n < theirs.recv.messages.size(); ++n) {
        const Message& in = theirs.recv.messages[n];
        if (in.peer != 0 || in.batch != msg.batch) continue;
        REQUIRE(r.begin[n + 1] - r.begin[n] == c.begin[m + 1] - c.begin[m]);
        for (std::size_t k = 0; k < c.begin[m + 1] - c.begin[m]; ++k)
          f(c.chunks[c.begin[m] + k], r.chunks[r.begin[n] + k], c, r);
      }
    }
  }
}

}  // namespace

TEST_CASE("ring chunks: within the limit, members cut between columns, back to back") {
  for (const index_t limit : {index_t{1}, index_t{700}, index_t{4096}, index_t{60000}}) {
    CAPTURE(limit);
    const Plan plan = four_rank_plan(0);
    const Chunking c = cut_chunks(
        plan, plan.send, [limit](const Message&) { return limit; }, everywhere);
    REQUIRE(c.begin.size() == plan.send.messages.size() + 1);
    bool cut_inside = false;
    for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
      index_t at = 0;
      for (std::size_t k = c.begin[m]; k < c.begin[m + 1]; ++k) {
        const Chunk& ch = c.chunks[k];
        CHECK(ch.message == m);
        CHECK(ch.offset == at);
        CHECK(ch.elements > 0);
        index_t in = 0, ld = 0;
        for (std::size_t s = ch.first; s < ch.end; ++s) {
          const Slice& sl = c.slices[s];
          CHECK(sl.offset == at + in);
          const PieceGroup cols = engine::slice_cols(plan, plan.send, sl);
          ld = plan.send.families[sl.family].buffer_ld;
          CHECK(sl.elements == ld * cols.length * cols.count);
          if (sl.col_take > 0) {
            cut_inside = true;
            CHECK(sl.col_count == 1);
            CHECK(cols.length == sl.col_take);
            // Whole blocks of cut_columns, but for the member's last piece.
            const auto& fam = plan.send.families[sl.family];
            const index_t width = plan.col_groups[static_cast<std::size_t>(fam.cols.group)].length;
            CHECK(sl.col_skip % cut_columns == 0);
            CHECK((sl.col_take % cut_columns == 0 || sl.col_skip + sl.col_take == width));
          }
          in += sl.elements;
        }
        CHECK(in == ch.elements);
        // Within the limit unless cut_columns columns alone are larger.
        CHECK((ch.elements <= limit || ch.elements <= cut_columns * ld));
        at += ch.elements;
      }
      CHECK(at == plan.send.messages[m].elements);
    }
    if (limit < 50000) CHECK(cut_inside);
    // The receiver of each message cuts it alike.
    const auto cut = [limit](const Plan& p, const FamilyList& d) {
      return cut_chunks(
          p, d, [limit](const Message&) { return limit; }, everywhere);
    };
    beside_receivers(plan, c, cut, [](const Chunk& mine, const Chunk& theirs, auto&, auto&) {
      CHECK(theirs.offset == mine.offset);
      CHECK(theirs.elements == mine.elements);
    });
  }
}

TEST_CASE("ring chunks laid flat: members cut between whole segments, in the order they lie") {
  for (const index_t limit :
       {index_t{1}, index_t{700}, index_t{4096}, index_t{25000}, index_t{60000}}) {
    CAPTURE(limit);
    const auto cut = [limit](const Plan& p, const FamilyList& d) {
      return cut_chunks(
          p, d, [limit](const Message&) { return limit; }, everywhere, true);
    };
    // Members of every row of their columns, and of every fourth 100 rows (case a's
    // pattern at 4 ranks: pieces of their source tiles): both cut between segments.
    for (const bool whole : {true, false}) {
      CAPTURE(whole);
      const Plan plan = four_rank_plan(0, whole);
      const Chunking c = cut(plan, plan.send);
      bool rows_cut = false, columns_cut = false;
      for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
        index_t at = 0;
        // Each (family, row piece, first column) once: no segment in two slices.
        std::set<std::tuple<std::size_t, index_t, index_t, index_t>> seen;
        for (std::size_t k = c.begin[m]; k < c.begin[m + 1]; ++k) {
          const Chunk& ch = c.chunks[k];
          CHECK(ch.offset == at);
          index_t in = 0;
          for (std::size_t s = ch.first; s < ch.end; ++s) {
            const Slice& sl = c.slices[s];
            CHECK(sl.offset == at + in);
            index_t held = 0;
            // Slices of one member follow each other in RowKey order.
            if (sl.rows_cut && s > ch.first) {
              const Slice& before = c.slices[s - 1];
              if (before.rows_cut && before.col_first == sl.col_first && sl.col_skip == 0)
                CHECK(before.rows_last < sl.rows_first);
            }
            if (sl.rows_cut && k > c.begin[m] && s == ch.first) {
              const Chunk& prev = c.chunks[k - 1];
              const Slice& before = c.slices[prev.end - 1];
              if (before.rows_cut && before.family == sl.family &&
                  before.col_first == sl.col_first && sl.col_skip == 0)
                CHECK(before.rows_last < sl.rows_first);
            }
            engine::for_each_slice_segment(
                plan, plan.send, sl, [&](index_t row, index_t, const Piece& r, const Piece& col) {
                  held += r.length * col.length;
                  CHECK(seen.emplace(sl.family, row, col.dst_tile, col.dst_offset).second);
                  if (sl.rows_cut) {
                    CHECK(sl.rows_first <= row_key(r));
                    CHECK(row_key(r) <= sl.rows_last);
                  }
                });
            CHECK(held == sl.elements);  // the slice is the segments it holds
            CHECK(engine::slice_row_pieces(plan, plan.send, sl) > 0);
            if (sl.rows_cut) {
              rows_cut = true;
              CHECK(sl.col_count == 1);
              // Whole segments within the limit; a segment alone may exceed it, then
              // cut between columns as a stacked member is.
              if (sl.col_take == 0)
                CHECK((sl.elements <= limit || engine::slice_row_pieces(plan, plan.send, sl) == 1));
              else
                columns_cut = true;
            }
            in += sl.elements;
          }
          CHECK(in == ch.elements);
          at += ch.elements;
        }
        CHECK(at == plan.send.messages[m].elements);
      }
      if (limit < 50000) CHECK(rows_cut);
      if (limit < 100) CHECK(columns_cut);
      // The receiver of each message cuts it alike, slice by slice.
      beside_receivers(
          plan, c, cut,
          [](const Chunk& mine, const Chunk& their, const Chunking& c_mine,
             const Chunking& c_their) {
            CHECK(their.offset == mine.offset);
            CHECK(their.elements == mine.elements);
            REQUIRE(their.end - their.first == mine.end - mine.first);
            for (std::size_t s = 0; s < mine.end - mine.first; ++s) {
              const Slice& a = c_mine.slices[mine.first + s];
              const Slice& b = c_their.slices[their.first + s];
              CHECK(a.rows_cut == b.rows_cut);
              CHECK(a.rows_first == b.rows_first);
              CHECK(a.rows_last == b.rows_last);
              CHECK(a.col_skip == b.col_skip);
              CHECK(a.elements == b.elements);
            }
          },
          whole);
    }
  }
}

TEST_CASE("a message's segments walked until the walker says stop") {
  const Plan plan = four_rank_plan(0);
  const Chunking c = cut_chunks(plan, plan.send, 4000);
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    CAPTURE(m);
    index_t all = 0, elements = 0;
    engine::for_each_message_segment(plan, plan.send, c, m,
                                     [&](index_t, const Piece& r, const Piece& col) {
                                       ++all;
                                       elements += r.length * col.length;
                                       return true;
                                     });
    CHECK(elements == plan.send.messages[m].elements);
    REQUIRE(all > 2);
    // The walk ends at the first false, also inside a slice, not after its other segments.
    for (const index_t stop : {index_t{1}, index_t{2}, all / 2, all}) {
      index_t visits = 0;
      engine::for_each_message_segment(plan, plan.send, c, m,
                                       [&](index_t, auto&, auto&) { return ++visits < stop; });
      CHECK(visits == stop);
    }
  }
  // One slice: a walker that returns nothing sees it whole; one that returns false stops it.
  const Slice& first = c.slices[c.chunks[0].first];
  index_t whole = 0, once = 0;
  CHECK(engine::for_each_slice_segment(plan, plan.send, first,
                                       [&](index_t, index_t, auto&, auto&) { ++whole; }));
  CHECK_FALSE(
      engine::for_each_slice_segment(plan, plan.send, first, [&](index_t, index_t, auto&, auto&) {
        ++once;
        return false;
      }));
  CHECK(once == 1);
  CHECK(whole >= 1);
}

TEST_CASE("flat rows cut: whole source tiles a span, places never cut") {
  using detail::FlatRow;
  using detail::RowSpan;
  // Case a's pattern: 100-row target tiles (keys) over 256-row source tiles.
  const std::vector<FlatRow> rows{{{1, 0}, 100, 0}, {{3, 0}, 56, 1},  {{3, 56}, 44, 2},
                                  {{5, 0}, 100, 2}, {{7, 0}, 12, 2},  {{7, 12}, 88, 3},
                                  {{9, 0}, 100, 3}, {{11, 0}, 68, 4}, {{11, 68}, 32, 4}};
  const auto spans = [&](const std::vector<FlatRow>& in, index_t most) {
    std::vector<RowSpan> out;
    detail::cut_rows(in, most, [&](const RowSpan& s) { out.push_back(s); });
    return out;
  };
  // Every piece in exactly one span, in order; a span within `most` rows unless it is one
  // place of more.
  const auto covers = [](const std::vector<FlatRow>& in, const std::vector<RowSpan>& out,
                         index_t most) {
    std::size_t k = 0;
    for (const RowSpan& s : out) {
      REQUIRE(k < in.size());
      CHECK(in[k].key == s.first);
      index_t n = 0, places = 0;
      for (; k < in.size() && in[k].key <= s.last; ++k) {
        n += in[k].rows;
        places += k == 0 || !(in[k - 1].key == in[k].key) ? 1 : 0;
      }
      CHECK(in[k - 1].key == s.last);
      CHECK(n == s.rows);
      CHECK((s.rows <= most || places == 1));
    }
    CHECK(k == in.size());
  };
  SUBCASE("whole source tiles, as many as fit") {
    const auto out = spans(rows, 300);
    covers(rows, out, 300);
    // Tiles 0 and 1 (100 + 56 rows), 2 (156), 3 and 4 (188 + 100): 156 + 156 > 300.
    REQUIRE(out.size() == 3);
    CHECK(out[0].last == RowKey{3, 0});
    CHECK(out[1].first == RowKey{3, 56});
    CHECK(out[1].last == RowKey{7, 0});
    CHECK(out[2].first == RowKey{7, 12});
    CHECK(out[2].rows == 288);
  }
  SUBCASE("a tile of more rows than a span is cut between its places") {
    const auto out = spans(rows, 120);
    covers(rows, out, 120);
    // Tile 2 (200 rows) goes in two spans; no span mixes tiles 2 and 3.
    for (const RowSpan& s : out) CHECK(!(s.first <= RowKey{7, 0} && RowKey{7, 12} <= s.last));
  }
  SUBCASE("a place of more rows than a span is a span alone") {
    const auto out = spans(rows, 50);
    covers(rows, out, 50);
    CHECK(out.size() == 9);  // no two places of one tile fit together
  }
  SUBCASE("pieces of one place (two parts) stay together") {
    const std::vector<FlatRow> two{{{0, 0}, 40, 0}, {{0, 0}, 40, 5}, {{1, 0}, 40, 1}};
    for (const index_t most : {index_t{1}, index_t{40}, index_t{80}, index_t{200}}) {
      CAPTURE(most);
      const auto out = spans(two, most);
      covers(two, out, most);
      CHECK(out.front().rows >= 80);
    }
  }
}

TEST_CASE("ring slots: lanes by rounds, slots in turn, each waits for the chunk a ring before") {
  const Plan plan = four_rank_plan(1);
  const Chunking c = cut_chunks(
      plan, plan.send, [](const Message&) { return index_t{4096}; }, everywhere);
  const std::vector<bool> ring(plan.send.messages.size(), true);
  const std::vector<int> node_rank{0, 1, 2, 3};
  for (const index_t slots : {index_t{1}, index_t{2}, index_t{4}}) {
    CAPTURE(slots);
    const transport::RingSlots r =
        transport::lay_out_rings(plan.send, c, ring, node_rank, 1, 4, slots, sizeof(double));
    REQUIRE(r.offset.size() == c.chunks.size());
    for (std::size_t b = 0; b < r.batch_elements.size(); ++b) {
      index_t room = 0;
      std::set<index_t> used;
      for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
        if (plan.send.messages[m].batch != static_cast<index_t>(b)) continue;
        room += plan.send.messages[m].elements;
        for (std::size_t k = c.begin[m]; k < c.begin[m + 1]; ++k) {
          CHECK(r.reuse.in_ring[k] == 1);
          CHECK(r.offset[k] >= 0);
          CHECK(r.offset[k] + c.chunks[k].elements <= r.batch_elements[b]);
          used.insert(r.offset[k]);
          // The chunk it waits for is of its batch, and held the same slot.
          if (r.reuse.after[k] != SIZE_MAX) {
            const std::size_t before = r.reuse.after[k];
            CHECK(before != k);
            CHECK(plan.send.messages[c.chunks[before].message].batch == static_cast<index_t>(b));
            CHECK(r.offset[before] == r.offset[k]);
          }
        }
      }
      CHECK(r.batch_elements[b] <= room);  // never more than the messages whole
      CHECK(static_cast<index_t>(used.size()) <= transport::ring_lanes * slots);
    }
    // Within a message, chunk j waits for chunk j - slots when one lane holds it alone.
    for (std::size_t m = 0; m < plan.send.messages.size(); ++m)
      for (std::size_t k = c.begin[m]; k < c.begin[m + 1]; ++k)
        if (k >= c.begin[m] + static_cast<std::size_t>(slots) && r.reuse.after[k] != SIZE_MAX)
          CHECK(r.reuse.after[k] <= k - static_cast<std::size_t>(slots));
  }
  // The task graph: one Ack per ring chunk, Send(c) after the Ack it waits for.
  const transport::RingSlots r =
      transport::lay_out_rings(plan.send, c, ring, node_rank, 1, 4, 2, sizeof(double));
  Chunkings all{c, cut_chunks(plan, plan.recv, 4096), cut_chunks(plan, plan.local, 4096)};
  const std::vector<Transport> window(plan.send.messages.size(), Transport::shared_window);
  const TaskGraph tg = make_task_graph(
      plan, all, window,
      std::vector<Transport>(plan.recv.messages.size(), Transport::shared_window), r.reuse);
  CHECK(tg.count(TaskKind::ack) == c.chunks.size());
  std::vector<std::size_t> send_vertex(c.chunks.size());
  for (std::size_t v = 0; v < tg.tasks.size(); ++v)
    if (tg.tasks[v].kind == TaskKind::send) send_vertex[tg.tasks[v].index] = v;
  for (std::size_t k = 0; k < c.chunks.size(); ++k) {
    const auto has = [&](std::size_t from, std::size_t to) {
      for (const TaskEdge& e : tg.edges)
        if (e.from == from && e.to == to) return true;
      return false;
    };
    CHECK(has(send_vertex[k], tg.slot_ack_vertex[k]));
    if (r.reuse.after[k] != SIZE_MAX)
      CHECK(has(tg.slot_ack_vertex[r.reuse.after[k]], send_vertex[k]));
  }
}

TEST_CASE("ring slots: sized from the caches") {
  const detail::CpuCaches here{index_t{1} << 20, index_t{32} << 20};
  CHECK(transport::automatic_slot_bytes(here, 2, 4) == index_t{512} << 10);  // L2 / 2
  CHECK(transport::automatic_slot_bytes(here, 16, 4) == index_t{128} << 10);
  CHECK(transport::automatic_slot_bytes(here, 128, 4) == index_t{16} << 10);  // the least
  CHECK(transport::automatic_slot_bytes({}, 2, 4) == index_t{256} << 10);     // unknown
  // 16 ranks: every ring in use within half the shared cache.
  CHECK(16 * transport::ring_lanes * 4 * transport::automatic_slot_bytes(here, 16, 4) <=
        here.l3 / 2);

  CHECK(detail::parse_cache_size("1024K") == index_t{1} << 20);
  CHECK(detail::parse_cache_size("32M") == index_t{32} << 20);
  CHECK(detail::parse_cache_size("49152") == 49152);
  CHECK(detail::parse_cache_size("x") == 0);
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("redist-caches-" + std::to_string(::getpid()));
  const auto level = [&](int i, const char* lv, const char* type, const char* size) {
    const auto dir = root / ("index" + std::to_string(i));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "level") << lv << "\n";
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "size") << size << "\n";
  };
  level(0, "1", "Data", "48K");
  level(1, "1", "Instruction", "32K");
  level(2, "2", "Unified", "2048K");
  level(3, "3", "Unified", "105M");
  const detail::CpuCaches read = detail::read_cpu_caches(root.string());
  CHECK(read.l2 == index_t{2} << 20);
  CHECK(read.l3 == index_t{105} << 20);
  std::filesystem::remove_all(root);
  CHECK(detail::read_cpu_caches(root.string()).l3 == 0);  // nothing listed
}
