// The peers' pages a move touches in place (engine/peer_pages.hpp): spans widened to whole
// pages and merged into the fewest calls that cover them, and the member spans a pool's
// copies give on each side (engine/bound_pool.hpp), which those spans are gathered from.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/engine/bound_pool.hpp>
#include <redist/engine/peer_pages.hpp>

#include <doctest/doctest.h>

using namespace redist;
using engine::AddressSpan;

TEST_CASE("peer pages: spans widened to pages, sorted and merged") {
  constexpr std::size_t page = 4096;
  const std::vector<AddressSpan> spans = {
      {5 * page + 10, 6 * page + 1},  // pages 5 and 6
      {page, page + 8},               // page 1
      {7 * page, 7 * page + 100},     // page 7: touches 5-6 once widened
      {3 * page + 1, 3 * page + 1},   // empty: dropped
      {2 * page - 1, 2 * page},       // page 1 again
      {20 * page, 22 * page},         // pages 20 and 21, exactly
  };
  const std::vector<AddressSpan> merged = engine::page_spans(spans, page);
  REQUIRE(merged.size() == 3);
  CHECK(merged[0] == AddressSpan{page, 2 * page});
  CHECK(merged[1] == AddressSpan{5 * page, 8 * page});
  CHECK(merged[2] == AddressSpan{20 * page, 22 * page});
  CHECK(engine::page_spans({}, page).empty());
}

TEST_CASE("peer pages: a pool's member spans on the source and on the target") {
  using Pool = engine::BoundPool<double, Kokkos::HostSpace>;
  using Side = Pool::Side;
  // One copy of two members of 3 columns; runs of 4 and 2 rows at rows 1 and 8 of the
  // source (lds 100) and at 0 and 4 of the target (ldd 10).
  static double src[1000], dst[1000];
  Pool p;
  StridedCopy<double> c;
  c.src = src;
  c.dst = dst;
  c.lds = 100;
  c.ldd = 10;
  c.run_first = 0;
  c.runs = 2;
  c.member_first = 0;
  c.members = 2;
  c.col_len = 3;
  p.pool.copies.push_back(c);
  p.pool.runs = {RowRun{1, 0, 4}, RowRun{8, 4, 2}};
  p.pool.members = {ColumnMember{0, 0}, ColumnMember{500, 60}};
  p.range.emplace_back(0, 1);
  const auto at = [](const double* x) { return reinterpret_cast<std::uintptr_t>(x); };
  std::vector<AddressSpan> source, target;
  LastRunSummary summaries;
  p.for_each_member_span(0, Side::source, summaries, [&](std::uintptr_t a, std::uintptr_t b) {
    source.push_back({a, b});
  });
  p.for_each_member_span(0, Side::target, summaries, [&](std::uintptr_t a, std::uintptr_t b) {
    target.push_back({a, b});
  });
  // Member 0: columns 0-2 of the source, rows 1 to 9 -> [1, 2 * 100 + 10).
  REQUIRE(source.size() == 2);
  CHECK(source[0] == AddressSpan{at(src + 1), at(src + 210)});
  CHECK(source[1] == AddressSpan{at(src + 501), at(src + 710)});
  // Target rows 0 to 5 of columns 0-2 (ldd 10) -> [0, 26); member 1 from 60.
  REQUIRE(target.size() == 2);
  CHECK(target[0] == AddressSpan{at(dst), at(dst + 26)});
  CHECK(target[1] == AddressSpan{at(dst + 60), at(dst + 86)});
  // The chunk's source span is what its members' spans reach.
  const std::vector<AddressSpan> chunk = p.source_spans();
  REQUIRE(chunk.size() == 1);
  CHECK(chunk[0] == AddressSpan{at(src + 1), at(src + 710)});
}

TEST_CASE("peer pages: gathered spans that meet within a page join") {
  static char memory[16 * 4096];
  engine::PeerPages pages;
  const auto at = reinterpret_cast<std::uintptr_t>(memory);
  pages.add(at, at + 100);
  pages.add(at + 200, at + 300);  // joins
  pages.add(at, at);              // empty: ignored
  // Populating memory of this process's own reaches at least the pages asked for where
  // the kernel can (Linux 5.14), and nothing where it cannot.
  const std::size_t bytes = pages.populate(detail::PageAccess::write);
  CHECK((bytes == 0 || bytes >= 300));
  CHECK(bytes <= 2 * detail::page_bytes());
}
