// Checked size arithmetic (issue 10): element counts, grid sizes, storage and allocation
// bytes that overflow are an invalid_argument naming the quantity and its operands, never a
// wrapped size that plans or allocates the wrong amount.
#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/region.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

using namespace redist;
using redist::test::message_of;

namespace {
constexpr index_t max64 = std::numeric_limits<index_t>::max();
constexpr index_t two32 = index_t{1} << 32;
using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
Shape shape(index_t rows, index_t cols, index_t mb, index_t nb) {
  return Shape{UniformAxis<>(rows, mb), UniformAxis<>(cols, nb)};
}
}  // namespace

TEST_SUITE("checked") {
  TEST_CASE("checked_mul and checked_add: exact results, or an error naming the operands") {
    static_assert(detail::checked_mul(3, 4, "x") == 12);
    static_assert(detail::checked_add(max64 - 1, 1, "x") == max64);
    CHECK(detail::checked_mul(-two32, two32 / 2, "x") == std::numeric_limits<index_t>::min());
    CHECK(detail::checked_mul(max64, 1, "x") == max64);
    CHECK(detail::checked_mul(0, max64, "x") == 0);
    CHECK(message_of<invalid_argument>([] {
            detail::checked_mul(two32, two32, "matrix elements");
          }) == "redist: size overflows 64 bits: matrix elements = 4294967296 * 4294967296");
    CHECK(message_of<invalid_argument>([] { detail::checked_mul(-two32, two32, "x"); }) ==
          "redist: size overflows 64 bits: x = -4294967296 * 4294967296");
    CHECK(message_of<invalid_argument>([] { detail::checked_add(max64, 1, "bytes"); }) ==
          "redist: size overflows 64 bits: bytes = 9223372036854775807 + 1");
    CHECK(detail::checked_mul_int(46340, 46340, "P * Q") == 46340 * 46340);
    CHECK(message_of<distribution_error>([] {
            detail::checked_mul_int<distribution_error>(65536, 65536, "P * Q");
          }) == "redist: count overflows an int: P * Q = 65536 * 65536");
  }

  TEST_CASE("UniformAxis counts tiles without overflow near 2^63") {
    CHECK(UniformAxis<>(max64, 1).count() == max64);
    CHECK(UniformAxis<>(max64, max64).count() == 1);
    CHECK(UniformAxis<>(max64, max64 / 2).count() == 3);
    CHECK(UniformAxis<>(max64 - 1, max64).count() == 1);
    CHECK(UniformAxis<>(0, max64).count() == 0);
    for (index_t e = 0; e < 50; ++e)
      for (index_t b = 1; b < 12; ++b) REQUIRE(UniformAxis<>(e, b).count() == (e + b - 1) / b);
  }

  TEST_CASE("a layout whose element count overflows is refused (issue 10, cases 1 to 3)") {
    // 4294967296 x 4294967296 in one tile: 2^64 elements wrapped to 0 and crashed.
    CHECK(message_of<invalid_argument>([] {
            Layout l{shape(two32, two32, two32, two32), BlockCyclic(1, 1)};
          }) == "redist: size overflows 64 bits: matrix elements = 4294967296 * 4294967296");
    // 2^60 x 16 (2^64 elements) read as a 0-element tile.
    CHECK(message_of<invalid_argument>([] {
            Layout l{shape(index_t{1} << 60, 16, index_t{1} << 60, 16), BlockCyclic(1, 1)};
          }) == "redist: size overflows 64 bits: matrix elements = 1152921504606846976 * 16");
    // (2^61 - 1)^2 elements in 1 x 1 tiles: listing them grew memory without bound.
    const index_t big = (index_t{1} << 61) - 1;
    CHECK(message_of<invalid_argument>([&] {
            Layout l{shape(big, big, 1, 1), BlockCyclic(1, 1)};
          }).find("matrix elements = 2305843009213693951 * 2305843009213693951") !=
          std::string::npos);
    // The largest legal sizes still work: 2^62 elements.
    const Layout fine{shape(index_t{1} << 31, index_t{1} << 31, 1 << 20, 1 << 20),
                      BlockCyclic(1, 1)};
    CHECK(fine.tiles() == Extents{2048, 2048});
  }

  TEST_CASE("a grid whose P * Q overflows an int is refused (issue 10, case 4)") {
    CHECK(message_of<distribution_error>([] { BlockCyclic(65536, 65536); }) ==
          "redist: count overflows an int: P * Q = 65536 * 65536");
    CHECK(message_of<distribution_error>([] { BlockCyclic(3, 1073741824); }) ==
          "redist: count overflows an int: P * Q = 3 * 1073741824");
    const BlockCyclic largest(1, std::numeric_limits<int>::max());
    CHECK(largest.ranks() == std::numeric_limits<int>::max());
    CHECK(largest.owner({0, std::numeric_limits<int>::max() - 1}) ==
          std::numeric_limits<int>::max() - 1);
  }

  TEST_CASE("an owner table whose tile count overflows is refused") {
    CHECK(message_of<invalid_argument>([] {
            OwnerTable({two32, two32}, {}, 1);
          }) == "redist: size overflows 64 bits: owner table tiles = 4294967296 * 4294967296");
  }

  TEST_CASE("a region whose element count overflows is refused") {
    const index_t e = index_t{1} << 62;
    const Shape s = shape(e, e, e, e);
    CHECK(message_of<invalid_argument>([&] {
            validate_region(Region{{e, e}, {0, 0}, {0, 0}}, s, s);
          }) ==
          "redist: size overflows 64 bits: region elements = 4611686018427387904 * "
          "4611686018427387904");
    CHECK_NOTHROW(validate_region(Region{{e, 1}, {0, 0}, {0, 0}}, s, s));
  }

  TEST_CASE("a ScaLAPACK leading dimension whose storage overflows is refused") {
    const Layout l{shape(10, 30, 5, 10), BlockCyclic(1, 1)};  // LOCr = 10, LOCc = 30
    CHECK(
        message_of<invalid_argument>([&] { (void)ScalapackColumnMajor<>{max64 / 2}.map(l, 0); }) ==
        "redist: size overflows 64 bits: ScaLAPACK local elements lld * LOCc = "
        "4611686018427387903 * 30");
  }

  TEST_CASE("TiledMatrix: bytes that overflow, or more than the node has, fail before allocating") {
    // One tile of 2^62 elements: the element count fits, its bytes (x 8) do not.
    const Layout huge{shape(index_t{1} << 31, index_t{1} << 31, index_t{1} << 31, index_t{1} << 31),
                      BlockCyclic(1, 1)};
    CHECK(message_of<invalid_argument>([&] {
            TiledMatrix<double, decltype(huge), PackedTiles<>> m(huge, {}, 0);
          }) == "redist: size overflows 64 bits: matrix bytes = 4611686018427387904 * 8");
    // 2^62 one-element tiles: refused before listing them (that alone would exhaust memory).
    const Layout tiny{shape(index_t{1} << 31, index_t{1} << 31, 1, 1), BlockCyclic(1, 1)};
    CHECK(message_of<invalid_argument>([&] {
            TiledMatrix<double, decltype(tiny), PackedTiles<>> m(tiny, {}, 0);
          }) == "redist: size overflows 64 bits: matrix bytes = 4611686018427387904 * 8");
    // 8 TiB: no test machine has that much memory and swap; a storage_error, not a
    // Kokkos abort or an OOM kill.
    const index_t n = index_t{1} << 20;
    const Layout big{shape(n, n, n / 2, n), BlockCyclic(1, 1)};
    const std::string msg = message_of<storage_error>(
        [&] { TiledMatrix<double, decltype(big), TilePerAllocation<>> m(big, {}, 0); });
    CHECK(msg.rfind("redist: tile storage larger than this node's memory: bytes = 8796093022208 "
                    "(memory + swap = ",
                    0) == 0);
    CHECK(msg.find(", rank = 0)") != std::string::npos);
    // A rank that owns nothing of it allocates nothing and succeeds.
    const Layout two{shape(n, n, n, n), BlockCyclic(1, 2)};
    TiledMatrix<double, decltype(two), PackedTiles<>> none(two, {}, 1);
    CHECK(none.storage().element_count() == 0);
  }
}
