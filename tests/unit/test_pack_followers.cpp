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
  // Every chunk shares the 100 bytes: a tie goes to the first of the candidates, which
  // overlaps as much as the exact one.
  REQUIRE(f.size() == 1);
  REQUIRE(f[0] < sent.size());
  CHECK(engine::overlap(sent[f[0]], {400, 500}) == 100);
}

}  // namespace
