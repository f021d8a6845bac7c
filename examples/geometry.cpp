// redist geometry explorer: for a source and a target tiling and a region, prints how many
// target tiles fall in each of the nine categories (Cao et al. 2021
// Fig. 3) and the segments of one target tile. Pure index math: no MPI, no Kokkos.
//
// Usage: geometry [src=MxN:MBxNB] [dst=MxN:MBxNB] [region=ROWSxCOLS] [from=I,J] [to=I,J]
//                 [tile=M,N]
// Run with: ./geometry
// Defaults: src=1000x1000:100x100 dst=1000x1000:70x130 region=whole (largest that fits)
//           from=0,0 to=0,0 tile=first target tile the region touches.
// Example:  geometry src=12x12:3x3 dst=12x12:9x9 tile=0,0       (a category 8 tile)
#include <algorithm>
#include <array>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <redist/error.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace {

using redist::index_t;
using Shape = redist::Tiling<redist::UniformAxis<>, redist::UniformAxis<>>;

constexpr const char* role_names[] = {"NW", "N", "NE", "W", "I", "E", "SW", "S", "SE"};

/// Parses "A<sep>B" into two integers; throws redist::parse_error naming the key otherwise.
std::array<index_t, 2> pair_of(const std::string& key, const std::string& text, char sep) {
  const auto at = text.find(sep);
  try {
    if (at == std::string::npos) throw std::invalid_argument("separator");
    std::size_t used_a = 0, used_b = 0;
    const index_t a = std::stoll(text.substr(0, at), &used_a);
    const index_t b = std::stoll(text.substr(at + 1), &used_b);
    if (used_a != at || used_b != text.size() - at - 1) throw std::invalid_argument("trailing");
    return {a, b};
  } catch (const std::logic_error&) {
    throw redist::parse_error(redist::describe(
        std::string("expected two integers separated by '") + sep + "'", key, text));
  }
}

/// "MxN:MBxNB" -> a uniform tiling.
Shape shape_of(const std::string& key, const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw redist::parse_error(redist::describe("expected MxN:MBxNB", key, text));
  const auto e = pair_of(key, text.substr(0, colon), 'x');
  const auto t = pair_of(key, text.substr(colon + 1), 'x');
  return Shape{redist::UniformAxis<>(e[0], t[0]), redist::UniformAxis<>(e[1], t[1])};
}

int run(int argc, char** argv) {
  Shape src = shape_of("src", "1000x1000:100x100");
  Shape dst = shape_of("dst", "1000x1000:70x130");
  std::optional<redist::Extents> extent;
  redist::ElementIndex from{0, 0}, to{0, 0};
  std::optional<redist::TileIndex> tile;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq),
                      value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "src") {
      src = shape_of(key, value);
    } else if (key == "dst") {
      dst = shape_of(key, value);
    } else if (key == "region") {
      const auto v = pair_of(key, value, 'x');
      extent = redist::Extents{v[0], v[1]};
    } else if (key == "from") {
      const auto v = pair_of(key, value, ',');
      from = {v[0], v[1]};
    } else if (key == "to") {
      const auto v = pair_of(key, value, ',');
      to = {v[0], v[1]};
    } else if (key == "tile") {
      const auto v = pair_of(key, value, ',');
      tile = redist::TileIndex{v[0], v[1]};
    } else {
      throw redist::parse_error(redist::describe("unknown argument", "argument", arg));
    }
  }
  const redist::Extents se = redist::element_extents(src), de = redist::element_extents(dst);
  if (!extent) {  // the largest region that fits both sides from the given origins
    extent = redist::Extents{std::min(se.rows - from.i, de.rows - to.i),
                             std::min(se.cols - from.j, de.cols - to.j)};
  }
  const redist::Region region{*extent, from, to};
  redist::validate_region(region, src, dst);
  if (tile) (void)redist::category(src, dst, region, *tile);  // throws if the region misses it

  std::cout << "source " << se << " in tiles of " << src.rows().tile() << "x" << src.cols().tile()
            << ", target " << de << " in tiles of " << dst.rows().tile() << "x" << dst.cols().tile()
            << "\nregion " << region.extent << " from " << region.src_origin << " to "
            << region.dst_origin << "\n\n";

  // Category histogram over the target tiles the region touches.
  std::array<index_t, 9> histogram{};
  index_t segments = 0, touched = 0;
  const redist::Extents n = redist::tile_counts(dst);
  for (index_t m = 0; m < n.rows; ++m)
    for (index_t k = 0; k < n.cols; ++k) {
      const index_t count = redist::for_each_segment(src, dst, region, {m, k}, [](const auto&) {});
      if (count == 0) continue;
      if (!tile) tile = redist::TileIndex{m, k};
      ++touched;
      segments += count;
      ++histogram[static_cast<std::size_t>(redist::category(src, dst, region, {m, k}))];
    }
  std::cout << "category  target tiles\n";
  for (std::size_t c = 0; c < 9; ++c)
    std::cout << std::setw(8) << c << "  " << histogram[c] << "\n";
  std::cout << "touched target tiles: " << touched << ", segments: " << segments << "\n\n";
  if (!tile) return 0;  // empty region

  // The segments of one tile, in emission order (column pieces outer, row pieces inner).
  std::cout << "target " << *tile << ": category " << redist::category(src, dst, region, *tile)
            << "\n";
  const auto cell = [](const auto& v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  std::cout << "  role  source tile       at source      at target      extent\n";
  redist::for_each_segment(src, dst, region, *tile, [&](const redist::Segment& s) {
    std::cout << "  " << std::left << std::setw(6) << role_names[static_cast<int>(s.role)]
              << std::setw(18) << cell(s.src_tile) << std::setw(15) << cell(s.src_offset)
              << std::setw(15) << cell(s.dst_offset) << cell(s.extent) << "\n";
  });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const redist::error& e) {
    std::cerr << e.what() << "\nusage: " << argv[0]
              << " [src=MxN:MBxNB] [dst=MxN:MBxNB] [region=ROWSxCOLS] [from=I,J] [to=I,J]"
                 " [tile=M,N]\n";
    return 2;
  }
}
