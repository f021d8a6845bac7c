// Tests of the multi-device placement (placements/multi_device.hpp, Bouteiller et al.): each
// rule puts tiles on the devices its formula says, the allocations are the devices' packed
// tiles, the load-based rule moves from "keep with the input" (skew 0) to "least loaded"
// (skew 1), and bad parameters throw naming the value. (The generic slot checks of every
// placement are in test_placement.cpp.)
#include <algorithm>
#include <string>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placements/multi_device.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

namespace {

using namespace redist;
using test::message_of;

static_assert(Placement<MultiDevice<>, Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>>);

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Elements per device of rank r's storage map.
template <class L>
std::vector<index_t> device_loads(const L& layout, const MultiDevice<>& d, int r) {
  const StorageMap map = d.map(layout, r);
  std::vector<index_t> load(static_cast<std::size_t>(d.devices()), 0);
  map.for_each_tile([&](TileIndex t) {
    load[static_cast<std::size_t>(map.slot(t).allocation)] +=
        tile_extents(layout.shape(), t).size();
  });
  CHECK(load == map.allocation_sizes());  // packed: an allocation is exactly its tiles
  return load;
}

}  // namespace

TEST_CASE("MultiDevice: the cyclic rules of Bouteiller et al., section 4") {
  const Layout l(Tiling{UniformAxis<>(120, 10), UniformAxis<>(90, 10)}, BlockCyclic(2, 3));
  const auto row = MultiDevice<>::row_cyclic(3);
  const auto two = MultiDevice<>::two_level(2, 3, 2, 2);
  for (int r = 0; r < 6; ++r) {
    const StorageMap a = row.map(l, r), b = two.map(l, r);
    CHECK(a.allocation_sizes().size() == 3);
    CHECK(b.allocation_sizes().size() == 4);
    bool ok = true;
    a.for_each_tile([&](TileIndex t) { ok = ok && a.slot(t).allocation == t.m % 3; });
    b.for_each_tile([&](TileIndex t) {
      ok = ok && b.slot(t).allocation == ((t.m / 2) % 2) * 2 + (t.n / 3) % 2;
    });
    CHECK(ok);
    // Every device of a rank gets tiles: 6 tile rows x 3 tile columns per rank.
    for (index_t n : b.allocation_sizes()) CHECK(n > 0);
  }
  // gcd(P, G) > 1: with P = G = 2, m mod G gives each rank a single device.
  const Layout l2(Tiling{UniformAxis<>(80, 10), UniformAxis<>(80, 10)}, BlockCyclic(2, 2));
  const auto used = [&](const MultiDevice<>& d, int r) {
    const auto load = device_loads(l2, d, r);
    return std::count_if(load.begin(), load.end(), [](index_t x) { return x > 0; });
  };
  CHECK(used(MultiDevice<>::row_cyclic(2), 0) == 1);
  CHECK(used(MultiDevice<>::two_level(2, 2, 2, 1), 0) == 2);
}

TEST_CASE("MultiDevice: random is seeded and spreads the tiles") {
  const Layout l(Tiling{UniformAxis<>(400, 10), UniformAxis<>(400, 10)}, BlockCyclic(1, 1));
  const auto a = MultiDevice<>::random(4, 11), b = MultiDevice<>::random(4, 11),
             c = MultiDevice<>::random(4, 12);
  CHECK(a.assign(l, 0) == b.assign(l, 0));
  CHECK(a.assign(l, 0) != c.assign(l, 0));
  for (index_t n : device_loads(l, a, 0)) {  // 1600 tiles of 100 elements over 4 devices
    CHECK(n > 30000);
    CHECK(n < 50000);
  }
}

TEST_CASE("MultiDevice: load-based, from keeping data with its inputs to least loaded") {
  const Layout l(Tiling{UniformAxis<>(200, 10), UniformAxis<>(200, 10)}, BlockCyclic(1, 1));
  const auto spread = [](const std::vector<index_t>& load) {
    return *std::max_element(load.begin(), load.end()) -
           *std::min_element(load.begin(), load.end());
  };
  // skew 0: every tile follows its input (the first tile's device): one device holds all.
  const auto keep = device_loads(l, MultiDevice<>::load_based(4, 0.0), 0);
  CHECK(std::count(keep.begin(), keep.end(), 0) == 3);
  // skew 1: always the least loaded device: equal tiles, perfectly balanced.
  const auto balance = device_loads(l, MultiDevice<>::load_based(4, 1.0), 0);
  CHECK(spread(balance) == 0);
  // In between: balanced within the tolerance, and more tiles next to their input.
  const auto reuse = [&](const MultiDevice<>& d) {
    const auto tiles = d.assign(l, 0);
    index_t same = 0;
    for (std::size_t k = 1; k < tiles.size(); ++k) same += tiles[k].second == tiles[k - 1].second;
    return same;
  };
  const auto mid = MultiDevice<>::load_based(4, 1 / 1.2);  // the paper's 20% threshold
  const auto load = device_loads(l, mid, 0);
  const index_t total = 400 * 100;
  CHECK(*std::max_element(load.begin(), load.end()) <= total / 4 * 1.2 + 100);
  CHECK(reuse(mid) > reuse(MultiDevice<>::load_based(4, 1.0)));
  CHECK(reuse(MultiDevice<>::load_based(4, 0.0)) >= reuse(mid));
}

TEST_CASE("MultiDevice: user function and bad parameters") {
  const Layout l(Tiling{UniformAxis<>(40, 10), UniformAxis<>(40, 10)}, BlockCyclic(2, 1));
  const auto d = MultiDevice<>::user(2, [](TileIndex t, int rank) {
    return static_cast<int>((t.n + static_cast<index_t>(rank)) % 2);
  });
  const StorageMap map = d.map(l, 1);
  map.for_each_tile([&](TileIndex t) { CHECK(map.slot(t).allocation == (t.n + 1) % 2); });
  CHECK(d.rule() == DeviceRule::user);

  const auto bad = MultiDevice<>::user(2, [](TileIndex, int) { return 2; });
  CHECK(contains(message_of<storage_error>([&] { bad.map(l, 0); }), "device = 2"));
  CHECK(contains(message_of<invalid_argument>([] { MultiDevice<>::row_cyclic(0); }), "G = 0"));
  CHECK(contains(message_of<invalid_argument>([] { MultiDevice<>::load_based(2, 1.5); }),
                 "skew = 1.5"));
  CHECK(contains(message_of<invalid_argument>([] { MultiDevice<>::two_level(2, 0, 1, 1); }),
                 "Q = 0"));
  CHECK(contains(message_of<invalid_argument>([] { MultiDevice<>::two_level(2, 2, 1, -3); }),
                 "GQ = -3"));
  CHECK(contains(message_of<invalid_argument>([] { MultiDevice<>::user(2, {}); }), "f = empty"));
}
