// ScaLAPACK interop: gemr2d on raw local arrays described by ScaLAPACK descriptors, with
// row- and column-major BLACS grids, non-zero first process (RSRC, CSRC), a padded LLD and
// 1-based sub-matrix offsets. Every element of B is checked on every rank.
#include <functional>
#include <string>
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

TEST_CASE("scalapack::gemr2d reads no DTYPE_, as ScaLAPACK's p?gemr2d") {
  // ScaLAPACK's REDIST testers leave DTYPE_ unset on one process: here every rank passes
  // its own value (0 on rank 0, garbage elsewhere), and the same plan serves both calls.
  boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  const scalapack::Grid ga{1, np, false}, gb{np, 1, true};
  scalapack::Descriptor da{me == 0 ? 0 : 1000 + me, 0, 33, 29, 4, 3, 0, np - 1, 33};
  scalapack::Descriptor db{me % 2 == 0 ? 2 : -me, 0, 31, 40, 5, 7, np - 1, 0, 31};
  std::vector<double> a = local_array(da, ga, me), b = local_array(db, gb, me);
  scalapack::wrap(a.data(), da, ga, me).for_each_element([](ElementIndex e, double& v) {
    v = value(e);
  });
  scalapack::PlanCache cache;
  for (int call = 0; call < 2; ++call) {
    da.dtype += call;  // another unread value: still the same plan
    // B(2:2+24, 5:5+20) = A(3:3+24, 4:4+20), 1-based.
    scalapack::gemr2d<double>(25, 21, a.data(), 3, 4, da, ga, b.data(), 2, 5, db, gb, world, cache);
  }
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().hits == 1);
  long long bad = 0;
  scalapack::wrap(b.data(), db, gb, me).for_each_element([&](ElementIndex e, double& v) {
    const bool in = e.i >= 1 && e.i < 26 && e.j >= 4 && e.j < 25;
    bad += v != (in ? value({e.i - 1 + 2, e.j - 4 + 3}) : -7.0);
  });
  bad = boost::mpi::all_reduce(world, bad, std::plus<long long>());
  CHECK(bad == 0);
}

TEST_CASE("scalapack::gemr2d still refuses what ScaLAPACK refuses, on every rank") {
  boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  const scalapack::Grid g{1, np, false};
  const scalapack::Descriptor d{3, 0, 20, 20, 4, 4, 0, 0, 20};  // DTYPE_ 3: not the fault
  std::vector<double> a = local_array(d, g, me), b = a;
  scalapack::PlanCache cache;
  const auto call = [&](const scalapack::Descriptor& da, const scalapack::Descriptor& db) {
    scalapack::gemr2d<double>(10, 10, a.data(), 1, 1, da, g, b.data(), 1, 1, db, g, world, cache);
  };
  const auto fails = [&](const scalapack::Descriptor& da, const scalapack::Descriptor& db) {
    try {
      call(da, db);
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("<no exception>");
  };
  // Out of range on every rank: named by the entry.
  scalapack::Descriptor bad = d;
  bad.mb = 0;
  CHECK(fails(bad, d).find("MB_ must be positive: desc.mb = 0") != std::string::npos);
  bad = d;
  bad.csrc = np;
  CHECK(fails(d, bad).find("CSRC_ must be in 0.." + std::to_string(np - 1) +
                           ": desc.csrc = " + std::to_string(np)) != std::string::npos);
  // Out of range on one rank only: every rank throws the same.
  bad = d;
  if (me == np - 1) bad.nb = -2;
  CHECK(fails(bad, d).find("desc.nb = -2") != std::string::npos);
  // LLD below the local rows: refused where it is read.
  bad = d;
  bad.lld = 19;
  CHECK_THROWS_AS(call(bad, d), storage_error);
  if (np > 1) {
    // Real disagreement between the ranks: a different block size on the last rank.
    bad = d;
    if (me == np - 1) bad.mb = 5;
    CHECK_THROWS_AS(call(bad, d), agreement_error);
  }
  // Nothing was cached by the refused calls; a good one still works.
  CHECK(cache.size() == 0);
  call(d, d);
  CHECK(cache.size() == 1);
}
