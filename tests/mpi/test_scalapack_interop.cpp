// ScaLAPACK interop: gemr2d on raw local arrays described by ScaLAPACK descriptors, with
// row- and column-major BLACS grids, non-zero first process (RSRC, CSRC), a padded LLD and
// 1-based sub-matrix offsets. Every element of B is checked on every rank.
#include <functional>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

namespace {
using namespace redist;

double value(ElementIndex e) { return static_cast<double>(e.i * 10007 + e.j); }

// Local array size of descriptor d on this rank (numroc-style, via the placement).
std::vector<double> local_array(const scalapack::Descriptor& d, const scalapack::Grid& g,
                                int rank) {
  const auto layout = scalapack::make_layout(d, g);
  const auto need = ScalapackColumnMajor<>{d.lld}.map(layout, rank).allocation_sizes().at(0);
  return std::vector<double>(static_cast<std::size_t>(need), -7.0);
}
}  // namespace

TEST_CASE("scalapack::gemr2d moves a 1-based sub-matrix between two BLACS grids") {
  boost::mpi::communicator world;
  const int np = world.size();
  const int p = np % 2 == 0 ? 2 : 1;
  // clang-format off
  struct Case { scalapack::Grid ga, gb; index_t rsrc_b, csrc_b; };
  const Case cases[] = {
    // grid A                 grid B                       RSRC_B      CSRC_B
    {{1, np, false},          {np, 1, true},               np - 1,     0},
    {{p, np / p, true},       {np / p, p, false},          0,          p - 1},
  };
  // clang-format on
  for (const Case& c : cases) {
    const scalapack::Descriptor da{1, 0, 61, 47, 8, 5, 0, 0, 0};
    scalapack::Descriptor db{1, 0, 70, 52, 6, 9, c.rsrc_b, c.csrc_b, 0};
    // LLD: the largest local row count over ranks, plus padding, as codes often do.
    db.lld = 70 + 3;
    scalapack::Descriptor da_ld = da;
    da_ld.lld = 61;  // always >= local rows
    std::vector<double> a = local_array(da_ld, c.ga, world.rank());
    std::vector<double> b = local_array(db, c.gb, world.rank());
    auto A = scalapack::wrap(a.data(), da_ld, c.ga, world.rank());
    A.for_each_element([](ElementIndex e, double& v) { v = value(e); });

    // B(4:4+40, 2:2+30) = A(10:10+40, 7:7+30), 1-based as in pdgemr2d.
    scalapack::gemr2d<double>(40, 30, a.data(), 10, 7, da_ld, c.ga, b.data(), 4, 2, db, c.gb,
                              world);

    auto B = scalapack::wrap(b.data(), db, c.gb, world.rank());
    long long bad = 0;
    B.for_each_element([&](ElementIndex e, double& v) {
      const bool in = e.i >= 3 && e.i < 43 && e.j >= 1 && e.j < 31;
      bad += v != (in ? value({e.i - 3 + 9, e.j - 1 + 6}) : -7.0);
    });
    bad = boost::mpi::all_reduce(world, bad, std::plus<long long>());
    CHECK(bad == 0);
  }
}

TEST_CASE("scalapack::gemr2d rejects a region outside B on every rank") {
  boost::mpi::communicator world;
  const scalapack::Grid g{1, world.size(), false};
  const scalapack::Descriptor d{1, 0, 20, 20, 4, 4, 0, 0, 20};
  std::vector<double> a = local_array(d, g, world.rank()), b = a;
  CHECK_THROWS_AS(
      scalapack::gemr2d<double>(10, 10, a.data(), 1, 1, d, g, b.data(), 15, 1, d, g, world),
      region_error);
}
