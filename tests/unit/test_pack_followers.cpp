// Local parts that follow the pack reading the same source (engine/pack_followers.hpp):
// the pairing by address spans. The graph and walk that run each follower right after its
// pack: test_task_graph.cpp.
#include <cstdint>
#include <vector>

#include <redist/engine/pack_followers.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using engine::AddressSpan;
using engine::pack_followers;

TEST_CASE("pack followers: the sent chunk of the batch that shares the most source") {
  // Chunks 0-2 read [0, 100), [100, 200), [200, 300) in batch 0; chunk 3 reads [0, 300)
  // in batch 1; chunk 4 packs nothing here.
  const std::vector<AddressSpan> sent{{0, 100}, {100, 200}, {200, 300}, {0, 300}, {}};
  const std::vector<index_t> sent_batch{0, 0, 0, 1, 0};
  const std::vector<AddressSpan> local{
      {10, 90},    // inside chunk 0
      {150, 260},  // 50 bytes with chunk 1, 60 with chunk 2
      {180, 220},  // 20 and 20: the first
      {500, 600},  // nothing overlaps
      {},          // reads nothing
      {120, 130},  // batch 1: chunk 3
      {250, 450},  // 50 of its 200 bytes with chunk 2: other columns, not followed
  };
  const std::vector<index_t> local_batch{0, 0, 0, 0, 0, 1, 0};
  const auto f = pack_followers(sent, sent_batch, local, local_batch);
  CHECK(f == std::vector<std::size_t>{0, 2, 1, SIZE_MAX, SIZE_MAX, 3, SIZE_MAX});
}

TEST_CASE("pack followers: many chunks over the same columns, the best among the nearest") {
  // 40 peers' chunks over the same 1000 bytes, and one that matches exactly, started last.
  std::vector<AddressSpan> sent(40, AddressSpan{0, 1000});
  sent.push_back({400, 500});
  const std::vector<index_t> batch(sent.size(), 0);
  const auto f = pack_followers(sent, batch, {{400, 500}}, {0});
  // Every chunk shares the 100 bytes; the exact one shares them with nothing else.
  REQUIRE(f.size() == 1);
  CHECK(f[0] == 40);
}

TEST_CASE("pack followers: a chunk whose span wraps the part's does not win by a few bytes") {
  // Case a in tile storage, cut between segments: a chunk of a member of 56 columns spans
  // four source tiles [0, 2136) KiB; the pack of this member's 100 columns reads two of
  // them, [88, 799), and its local part [88, 800): one byte more than the pack shares.
  const std::vector<AddressSpan> sent{{0, 2136}, {88, 799}, {2136, 2848}};
  const std::vector<index_t> batch(sent.size(), 0);
  const std::vector<AddressSpan> local{{88, 800}, {0, 2136}, {2100, 2848}};
  const auto f = pack_followers(sent, batch, local, {0, 0, 0});
  CHECK(f == std::vector<std::size_t>{1, 0, 2});
}

}  // namespace
