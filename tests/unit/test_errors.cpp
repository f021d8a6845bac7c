// Validation before communication (issue "Robustness", item 1): every bad input raises a
// redist::error subtype whose what() names the parameter and its value. These are the
// checks that one process can make (geometry, distributions, plan options, storage maps);
// the collective ones (grid larger than the communicator at run time, owners seen by only
// some ranks, overlapping storage) are in tests/mpi/robustness_errors.cpp.
#include <climits>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/plan.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

#include <doctest/doctest.h>

#include "../support/scoped_env.hpp"

namespace {

using namespace redist;

/// Runs f; returns what() of the E it throws, or "" (and a failed check) if it throws
/// nothing. Any other exception escapes and fails the test case.
template <class E, class F>
std::string what_of(F&& f) {
  static_assert(std::is_base_of_v<redist::error, E>, "redist errors derive from redist::error");
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  FAIL_CHECK("no exception thrown");
  return {};
}

/// Checks that `expr` throws E and that the message contains every fragment (the
/// parameter name and its value).
#define CHECK_ERROR(E, expr, ...)                                                                 \
  do {                                                                                            \
    const std::string msg_ = what_of<E>([&] { (void)(expr); });                                   \
    CHECK_MESSAGE(msg_.rfind("redist: ", 0) == 0, "message: ", msg_);                             \
    for (std::string_view part_ : std::initializer_list<std::string_view>{__VA_ARGS__})           \
      CHECK_MESSAGE(msg_.find(part_) != std::string::npos, "message '", msg_, "' lacks '", part_, \
                    "'");                                                                         \
  } while (0)

using Shape = Tiling<UniformAxis<>, UniformAxis<>>;
Shape shape(index_t rows, index_t cols, index_t mb, index_t nb) {
  return Shape{UniformAxis<>(rows, mb), UniformAxis<>(cols, nb)};
}

/// A user distribution that returns `bad` as the owner of one tile.
struct BadOwner {
  int ranks_ = 2;
  TileIndex bad_tile{1, 0};
  int bad = 7;
  int ranks() const { return ranks_; }
  int owner(TileIndex t) const {
    return t == bad_tile ? bad : static_cast<int>((t.m + t.n) % ranks_);
  }
};

}  // namespace

TEST_SUITE("errors") {
  TEST_CASE("the exception family is rooted at redist::error") {
    static_assert(std::is_base_of_v<error, invalid_argument>);
    static_assert(std::is_base_of_v<invalid_argument, region_error>);
    static_assert(std::is_base_of_v<invalid_argument, distribution_error>);
    static_assert(std::is_base_of_v<invalid_argument, storage_error>);
    static_assert(std::is_base_of_v<invalid_argument, parse_error>);
    static_assert(std::is_base_of_v<error, communication_error>);
    static_assert(!std::is_base_of_v<invalid_argument, communication_error>);
    static_assert(std::is_base_of_v<std::runtime_error, error>);
    CHECK(detail::describe("what", "p", 42) == "redist: what: p = 42");
  }

  TEST_CASE("region outside the source or the target matrix") {
    const Layout src{shape(10, 12, 3, 4), BlockCyclic(1, 1)};
    const Layout dst{shape(8, 20, 5, 5), BlockCyclic(1, 1)};
    const auto plan = [&](Region r) { return make_reference_plan(src, dst, r, 0, 1); };
    // clang-format off
    // rows beyond the source (10 rows from source row 1)
    CHECK_ERROR(region_error, plan({{10, 2}, {1, 0}, {0, 0}}), "region.src_origin.i = 1", "source", "region.rows = 10");
    CHECK_ERROR(region_error, plan({{2, 3}, {0, 10}, {0, 0}}), "region.src_origin.j = 10", "source", "region.cols = 3");
    CHECK_ERROR(region_error, plan({{2, 2}, {-1, 0}, {0, 0}}), "region.src_origin.i = -1");
    CHECK_ERROR(region_error, plan({{2, 2}, {0, -4}, {0, 0}}), "region.src_origin.j = -4");
    CHECK_ERROR(region_error, plan({{0, 2}, {11, 0}, {0, 0}}), "region.src_origin.i = 11");
    // the target is only 8 rows high
    CHECK_ERROR(region_error, plan({{9, 2}, {0, 0}, {0, 0}}), "region.dst_origin.i = 0", "target", "region.rows = 9");
    CHECK_ERROR(region_error, plan({{2, 2}, {0, 0}, {7, 0}}), "region.dst_origin.i = 7", "target");
    CHECK_ERROR(region_error, plan({{2, 12}, {0, 0}, {0, 9}}), "region.dst_origin.j = 9", "target", "region.cols = 12");
    CHECK_ERROR(region_error, plan({{2, 2}, {0, 0}, {0, -1}}), "region.dst_origin.j = -1");
    // clang-format on
    // Edges that are legal: a region that ends exactly at the extent, an empty one at it.
    CHECK_NOTHROW(plan({{8, 12}, {2, 0}, {0, 8}}));
    CHECK_NOTHROW(plan({{0, 0}, {10, 12}, {8, 20}}));
    // validate_region alone says the same.
    CHECK_ERROR(region_error,
                validate_region(Region{{11, 1}, {0, 0}, {0, 0}}, src.shape(), dst.shape()),
                "region.rows = 11");
  }

  TEST_CASE("zero or negative sizes") {
    const Layout l{shape(10, 10, 3, 3), BlockCyclic(1, 1)};
    const auto plan = [&](Region r) { return make_reference_plan(l, l, r, 0, 1); };
    CHECK_ERROR(region_error, plan({{-1, 2}, {0, 0}, {0, 0}}), "region.rows = -1");
    CHECK_ERROR(region_error, plan({{2, -5}, {0, 0}, {0, 0}}), "region.cols = -5");
    // Matrix extents and tile extents.
    CHECK_ERROR(invalid_argument, UniformAxis<>(10, 0), "tile = 0");
    CHECK_ERROR(invalid_argument, UniformAxis<>(10, -3), "tile = -3");
    CHECK_ERROR(invalid_argument, UniformAxis<>(-5, 2), "extent = -5");
    CHECK_ERROR(invalid_argument, UniformAxis<4>(-1), "extent = -1");
    CHECK_ERROR(invalid_argument, shape(10, 10, 2, 0), "tile = 0");
    // (A static tile extent of 0 does not compile: tests/compile/fail/uniform_axis_zero_tile.cpp.)
    // Zero-extent matrices are legal: they have no tiles.
    CHECK(UniformAxis<>(0, 4).count() == 0);
    // Grid and super-tile extents.
    CHECK_ERROR(distribution_error, BlockCyclic(0, 2), "P = 0");
    CHECK_ERROR(distribution_error, BlockCyclic(2, -1), "Q = -1");
    CHECK_ERROR(distribution_error, BlockCyclic(2, 2, 0, 1), "kp = 0");
    CHECK_ERROR(distribution_error, BlockCyclic(2, 2, 1, -2), "kq = -2");
    CHECK_ERROR(distribution_error, BlockCyclic(2, 2, 1, 1, GridCoord{2, 0}), "first.p = 2");
    CHECK_ERROR(distribution_error, BlockCyclic(2, 3, 1, 1, GridCoord{0, -1}), "first.q = -1");
    CHECK_ERROR(distribution_error, RandomDistribution(0, 1), "ranks = 0");
    CHECK_ERROR(distribution_error, BandDistribution(0, BlockCyclic(1, 1), BlockCyclic(1, 1)),
                "B = 0");
    CHECK_ERROR(distribution_error, OwnerTable({1, 1}, {0}, -2), "ranks = -2");
  }

  TEST_CASE("irregular boundaries not strictly increasing or not ending at the extent") {
    using V = std::vector<index_t>;
    CHECK_ERROR(invalid_argument, IrregularAxis({0, 3, 3, 5}), "strictly increase",
                "boundaries[2] = 3", "previous = 3");
    CHECK_ERROR(invalid_argument, IrregularAxis({0, 5, 2}), "boundaries[2] = 2", "previous = 5");
    CHECK_ERROR(invalid_argument, IrregularAxis({1, 3}), "start at 0", "boundaries[0] = 1");
    CHECK_ERROR(invalid_argument, IrregularAxis(V{}), "boundaries.size() = 0");
    CHECK_ERROR(invalid_argument, IrregularAxis(V{0, 3, 7}, 8), "end at the extent",
                "boundaries.back() = 7", "extent = 8");
    CHECK_ERROR(invalid_argument, IrregularAxis(V{0, 3, 9}, 8), "boundaries.back() = 9",
                "extent = 8");
    CHECK_NOTHROW(IrregularAxis(V{0, 3, 8}, 8));
  }

  TEST_CASE("grid larger than the communicator") {
    const Layout small{shape(10, 10, 2, 2), BlockCyclic(2, 1)};
    const Layout big{shape(10, 10, 2, 2), BlockCyclic(2, 3)};
    const Region r = Region::whole({10, 10});
    CHECK_ERROR(distribution_error, make_reference_plan(big, small, r, 0, 4), "src.ranks() = 6",
                "communicator size = 4");
    CHECK_ERROR(distribution_error, make_reference_plan(small, big, r, 1, 5), "dst.ranks() = 6",
                "communicator size = 5");
    // Every rank of the communicator says the same, including ranks that own nothing.
    for (int rank = 0; rank < 4; ++rank)
      CHECK_ERROR(distribution_error, make_reference_plan(big, big, r, rank, 4), "src.ranks() = 6");
    // Even for an empty region: the layouts are wrong whatever moves.
    CHECK_ERROR(distribution_error,
                make_reference_plan(big, big, Region{{0, 0}, {0, 0}, {0, 0}}, 0, 4),
                "src.ranks() = 6");
    CHECK_NOTHROW(make_reference_plan(big, big, r, 0, 6));
  }

  TEST_CASE("a user distribution returning an owner out of range is caught while planning") {
    const auto shp = shape(6, 6, 2, 2);  // 3 x 3 tiles
    const Layout good{shp, BlockCyclic(2, 1)};
    const Layout bad{shp, BadOwner{2, {1, 0}, 7}};
    const Layout negative{shp, BadOwner{2, {2, 2}, -1}};
    const Region r = Region::whole({6, 6});
    // Target owner out of range: seen by the rank that owns the source tile (1, 0).
    const int sender = good.owner({1, 0});
    CHECK_ERROR(distribution_error, make_reference_plan(good, bad, r, sender, 2),
                "dst.owner(tile(1, 0)) = 7", "communicator size = 2");
    // Source owner out of range: seen by the ranks owning target tiles fed by it.
    const int receiver = good.owner({2, 2});
    CHECK_ERROR(distribution_error, make_reference_plan(negative, good, r, receiver, 2),
                "src.owner(tile(2, 2)) = -1");
    // A rank that owns nothing the bad tile touches cannot see it (the Redistributor
    // makes the error collective: tests/mpi/robustness_errors.cpp).
    CHECK_NOTHROW(make_reference_plan(good, bad, Region{{2, 2}, {4, 4}, {4, 4}}, 0, 2));
  }

  TEST_CASE("bad plan options and ranks") {
    const Layout l{shape(10, 10, 3, 3), BlockCyclic(1, 1)};
    const Region r = Region::whole({10, 10});
    PlanOptions o;
    o.batch = -1;
    CHECK_ERROR(invalid_argument, make_reference_plan(l, l, r, 0, 1, o), "batch = -1");
    o = {};
    o.element_bytes = 0;
    CHECK_ERROR(invalid_argument, make_reference_plan(l, l, r, 0, 1, o), "element_bytes = 0");
    CHECK_ERROR(invalid_argument, make_reference_plan(l, l, r, 0, 0), "comm_size = 0");
    CHECK_ERROR(invalid_argument, make_reference_plan(l, l, r, 3, 2), "rank = 3");
    CHECK_ERROR(invalid_argument, make_reference_plan(l, l, r, -1, 2), "rank = -1");
  }

  TEST_CASE("a message split limit below 1 or above the largest MPI count is refused") {
    // Each piece's byte count becomes an MPI int: above INT_MAX it would wrap.
    ExecutionOptions o;
    o.max_message_bytes = 0;
    CHECK_ERROR(invalid_argument, o.validate(), "ExecutionOptions::max_message_bytes = 0",
                "must be positive");
    for (const index_t above : {index_t{INT_MAX} + 1, index_t{1} << 40}) {
      CAPTURE(above);
      o.max_message_bytes = above;
      const std::string named = "ExecutionOptions::max_message_bytes = " + std::to_string(above);
      CHECK_ERROR(invalid_argument, o.validate(), named, "INT_MAX = 2147483647");
    }
    o.max_message_bytes = INT_MAX;
    CHECK_NOTHROW(o.validate());
    CHECK(ExecutionOptions{}.max_message_bytes == INT_MAX);
  }

  TEST_CASE("REDIST_MAX_MESSAGE_BYTES caps the split limit; a bad value is refused") {
    const char* name = "REDIST_MAX_MESSAGE_BYTES";
    const redist::test::ScopedEnv restored(name, nullptr);  // unset here, restored after
    ExecutionOptions o;
    ::unsetenv(name);
    CHECK(o.with_environment().max_message_bytes == INT_MAX);
    ::setenv(name, "4096", 1);
    CHECK(o.with_environment().max_message_bytes == 4096);
    o.max_message_bytes = 100;  // smaller in code: kept
    CHECK(o.with_environment().max_message_bytes == 100);
    o = {};
    ::setenv(name, "2147483647", 1);
    CHECK(o.with_environment().max_message_bytes == INT_MAX);
    for (const char* bad : {"0", "12x", "", "-5", "2147483648", "1000000000000000000000"}) {
      CAPTURE(bad);
      ::setenv(name, bad, 1);
      const std::string named = std::string("REDIST_MAX_MESSAGE_BYTES = ") + bad;
      CHECK_ERROR(invalid_argument, o.with_environment(), named);
    }
    ::setenv(name, "2147483648", 1);
    CHECK_ERROR(invalid_argument, o.with_environment(), "largest allowed, 2147483647");
  }

  TEST_CASE("REDIST_TRANSPORT: the four policies by name, anything else named") {
    const char* name = "REDIST_TRANSPORT";
    const redist::test::ScopedEnv restored(name, nullptr);  // unset here, restored after
    ExecutionOptions o;
    ::unsetenv(name);
    CHECK(o.with_environment().transport == TransportPolicy::automatic);
    for (const TransportPolicy p : {TransportPolicy::automatic, TransportPolicy::point_to_point,
                                    TransportPolicy::node_window, TransportPolicy::cross_memory}) {
      ::setenv(name, to_string(p), 1);
      CHECK(o.with_environment().transport == p);
    }
    ::setenv(name, "point-to-point", 1);
    CHECK_FALSE(o.with_environment().node_paths());
    for (const char* bad : {"", "shm", "cross_memory", "Auto"}) {
      CAPTURE(bad);
      ::setenv(name, bad, 1);
      const std::string named = std::string("REDIST_TRANSPORT = ") + bad;
      CHECK_ERROR(invalid_argument, o.with_environment(), named, "cross-memory");
    }
    o.transport = static_cast<TransportPolicy>(7);
    CHECK_ERROR(invalid_argument, o.validate(), "ExecutionOptions::transport = 7");
  }

  TEST_CASE("REDIST_INTER_NODE_SCHEDULE: the four schedules by name, anything else named") {
    const char* name = "REDIST_INTER_NODE_SCHEDULE";
    const redist::test::ScopedEnv restored(name, nullptr);  // unset here, restored after
    ExecutionOptions o;
    ::unsetenv(name);
    CHECK(o.with_environment().inter_node_schedule == InterNodeSchedule::automatic);
    for (const InterNodeSchedule s : {InterNodeSchedule::automatic, InterNodeSchedule::all_at_once,
                                      InterNodeSchedule::caterpillar, InterNodeSchedule::shift}) {
      ::setenv(name, to_string(s), 1);
      CHECK(o.with_environment().inter_node_schedule == s);
    }
    for (const char* bad : {"", "all_at_once", "Caterpillar", "rounds", "shifted"}) {
      CAPTURE(bad);
      ::setenv(name, bad, 1);
      const std::string named = std::string("REDIST_INTER_NODE_SCHEDULE = ") + bad;
      CHECK_ERROR(invalid_argument, o.with_environment(), named, "all-at-once");
    }
    o.inter_node_schedule = static_cast<InterNodeSchedule>(5);
    CHECK_ERROR(invalid_argument, o.validate(), "ExecutionOptions::inter_node_schedule = 5");
  }

  TEST_CASE("owner tables: size and owner range") {
    CHECK_ERROR(distribution_error, OwnerTable({2, 2}, {0, 1, 0}, 2), "owners.size() = 3",
                "tiles = 2x2");
    CHECK_ERROR(distribution_error, OwnerTable({2, 1}, {0, 5}, 2), "owners[1] = 5", "ranks = 2");
    CHECK_ERROR(distribution_error, OwnerTable({2, 1}, {-1, 0}, 2), "owners[0] = -1");
    CHECK_ERROR(distribution_error, Layout(shape(4, 4, 2, 2), OwnerTable({2, 1}, {0, 1}, 2)),
                "distribution.tiles() = 2x1", "tile grid = 2x2");
  }

  TEST_CASE("ScaLAPACK storage whose leading dimension is smaller than the local rows") {
    // 10 rows in tiles of 3 on a 2 x 1 grid: grid row 0 holds tile rows 0 and 2 (6 rows),
    // grid row 1 holds tile rows 1 and 3 (3 + 1 = 4 rows).
    const Layout l{shape(10, 4, 3, 2), BlockCyclic(2, 1)};
    using M = TiledMatrix<double, decltype(l), ScalapackColumnMajor<>>;
    CHECK_ERROR(storage_error, M(l, ScalapackColumnMajor<>{5}, 0), "lld = 5", "local rows = 6",
                "rank = 0");
    CHECK_ERROR(storage_error, ScalapackColumnMajor<>{3}.map(l, 1), "lld = 3", "local rows = 4");
    CHECK_NOTHROW(M(l, ScalapackColumnMajor<>{5}, 1));
    CHECK_NOTHROW(M(l, ScalapackColumnMajor<>{6}, 0));
    CHECK(M(l, ScalapackColumnMajor<>{}, 0).storage().allocation_sizes().at(0) == 6 * 4);
  }

  TEST_CASE("wrapped storage that is too small or of the wrong count") {
    const Layout l{shape(10, 4, 3, 2), BlockCyclic(1, 1)};
    using M = TiledMatrix<double, decltype(l), PackedTiles<>>;
    // Tiles packed back to back elsewhere (40 elements); equal slots would need 48.
    const PackedTiles<> packed{.equal_slots = false};
    M::allocation_view small("small", 39);
    CHECK_ERROR(storage_error, M(l, packed, 0, {small}), "storage[0].extent(0) = 39", "needs 40");
    CHECK_ERROR(storage_error, M(l, packed, 0, {}), "storage.size() = 0", "expected 1");
    M::allocation_view fits("fits", 40);
    CHECK_NOTHROW(M(l, packed, 0, {fits}));
    CHECK_ERROR(storage_error, M(l, packed, 0, {fits}).tile_ref({9, 9}), "tile = tile(9, 9)");
    CHECK_ERROR(storage_error, M(l, {}, 0, {fits}), "storage[0].extent(0) = 40", "needs 48");
  }

  TEST_CASE("category of a tile the region does not meet") {
    const auto s = shape(16, 16, 4, 4);
    const Region r{{3, 3}, {0, 0}, {0, 0}};
    CHECK_ERROR(invalid_argument, category(s, s, r, TileIndex{1, 1}), "dst_tile = tile(1, 1)");
    CHECK_ERROR(invalid_argument, category(s, s, r, TileIndex{4, 0}), "dst_tile = tile(4, 0)");
  }
}
