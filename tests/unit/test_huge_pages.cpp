// Tests of include/redist/detail/huge_pages.hpp and its use by TiledMatrix: large host
// allocations are advised transparent huge pages before their first touch (the kernel then
// marks the mapping eligible, /proc/self/smaps "THPeligible"), small ones and bad ranges are
// left alone, and the storage still starts zeroed; tools::HugePageBuffer, the floors' buffers,
// is allocated the same way.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/detail/huge_pages.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/tools/huge_page_buffer.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;

/// The kernel's transparent-huge-page mode ("always", "madvise", "never"), or "" if unknown.
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

/// The "THPeligible" value of the mapping that holds address p (-1 if smaps does not say).
int thp_eligible(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::atoi(line.c_str() + 12);
  }
  return -1;
}

}  // namespace

TEST_CASE("advise_huge_pages: small, empty and null ranges are left alone") {
  std::vector<char> small(detail::huge_page_advice_bytes - 1);
  CHECK_FALSE(detail::advise_huge_pages(small.data(), small.size()));
  CHECK_FALSE(detail::advise_huge_pages(nullptr, detail::huge_page_advice_bytes));
  CHECK_FALSE(detail::advise_huge_pages(small.data(), 0));
}

TEST_CASE("TiledMatrix: large host storage is advised huge pages and starts zeroed") {
  // 1024 x 1024 doubles in one allocation: 8 MiB, above the advice threshold.
  const Layout l(Tiling{UniformAxis<>(1024, 256), UniformAxis<>(1024, 256)}, BlockCyclic(1, 1));
  TiledMatrix<double, decltype(l), PackedTiles<>> a(l, PackedTiles<>{}, 0);
  REQUIRE(a.allocations().size() == 1);
  // The middle of the allocation: its first and last partial pages are not advised.
  const double* middle = a.allocations()[0].data() + a.allocations()[0].size() / 2;
  const std::string mode = thp_mode();
  const int eligible = thp_eligible(middle);
  INFO("transparent_hugepage mode: '" << mode << "', THPeligible: " << eligible);
  if (mode == "madvise" || mode == "always") {
    if (eligible >= 0) CHECK(eligible == 1);  // kernels before 5.x do not report it
  } else {
    MESSAGE("transparent huge pages are off here (" << mode << "): nothing to check");
  }
  index_t nonzero = 0, count = 0;
  a.for_each_element([&](ElementIndex, double& x) {
    nonzero += x != 0.0;
    ++count;
  });
  CHECK(count == 1024 * 1024);
  CHECK(nonzero == 0);
}

TEST_CASE("HugePageBuffer: aligned to a huge page, advised, every byte set") {
  const std::size_t bytes = (std::size_t{8} << 20) + 3;  // not a whole number of pages
  tools::HugePageBuffer b(bytes, 7);
  REQUIRE(b.size() == bytes);
  CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % (std::size_t{2} << 20) == 0);
  std::size_t sevens = 0;
  for (std::size_t i = 0; i < bytes; ++i) sevens += b.data()[i] == 7;
  CHECK(sevens == bytes);
  const std::string mode = thp_mode();
  const int eligible = thp_eligible(b.data() + bytes / 2);
  INFO("transparent_hugepage mode: '" << mode << "', THPeligible: " << eligible);
  if ((mode == "madvise" || mode == "always") && eligible >= 0) CHECK(eligible == 1);

  // Small and empty buffers are allocated (and left to the kernel's default pages).
  tools::HugePageBuffer small(100, 1), empty(0);
  CHECK(small.size() == 100);
  CHECK(small.data()[99] == 1);
  CHECK(empty.size() == 0);
  CHECK(empty.data() != nullptr);
}

TEST_CASE("TiledMatrix: a tile per allocation, small tiles on huge pages, each its own range") {
  // 1024 x 2048 doubles in 256^2 tiles: 32 allocations of 512 KiB, each below the advice
  // threshold, together 16 MiB: carved from one advised arena.
  const Layout l(Tiling{UniformAxis<>(1024, 256), UniformAxis<>(2048, 256)}, BlockCyclic(1, 1));
  using Matrix = TiledMatrix<double, std::remove_const_t<decltype(l)>, TilePerAllocation<>>;
  auto owner = std::make_unique<Matrix>(l, TilePerAllocation<>{}, 0);
  Matrix& a = *owner;
  const auto& views = a.allocations();
  REQUIRE(views.size() == 32);
  std::vector<std::pair<const double*, const double*>> ranges;
  for (const auto& v : views) {
    CHECK(v.size() == 256 * 256);
    CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % 64 == 0);
    ranges.emplace_back(v.data(), v.data() + v.size());
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t k = 1; k < ranges.size(); ++k) CHECK(ranges[k - 1].second <= ranges[k].first);
  const std::string mode = thp_mode();
  const int eligible = thp_eligible(views[16].data() + 100);
  INFO("transparent_hugepage mode: '" << mode << "', THPeligible: " << eligible);
  if ((mode == "madvise" || mode == "always") && eligible >= 0) CHECK(eligible == 1);
  // Zeroed, and every element its own: written through the tiles, read back.
  index_t nonzero = 0;
  a.for_each_element([&](ElementIndex, double& x) { nonzero += x != 0.0; });
  CHECK(nonzero == 0);
  a.for_each_element([](ElementIndex e, double& x) {
    x = static_cast<double>(e.i) + 4096.0 * static_cast<double>(e.j);
  });
  index_t wrong = 0;
  a.for_each_element([&](ElementIndex e, double& x) {
    wrong += x != static_cast<double>(e.i) + 4096.0 * static_cast<double>(e.j);
  });
  CHECK(wrong == 0);
  // A copy of the matrix shares the arena: its tiles stay valid after the original goes.
  Matrix copy = a;
  owner.reset();
  index_t kept = 0;
  copy.for_each_element([&](ElementIndex e, double& x) {
    kept += x == static_cast<double>(e.i) + 4096.0 * static_cast<double>(e.j);
  });
  CHECK(kept == 1024 * 2048);
}
