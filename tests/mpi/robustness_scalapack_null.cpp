// ScaLAPACK storage with null local arrays (issue 10, case 16): a rank whose grid row owns
// no block row (LOCr = 0) or whose grid column owns no block column (LOCc = 0) stores
// nothing, and ScaLAPACK's own redistribution drivers pass a null array there. gemr2d must
// accept it on either side and move every element right.
#include <functional>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

namespace {
using namespace redist;

double value(ElementIndex e) { return static_cast<double>(e.i * 1000 + e.j + 1); }

/// This rank's local array for descriptor d on grid g, or an empty vector when the rank
/// stores nothing (then its data() is what the caller passes: null).
std::vector<double> local_array(const scalapack::Descriptor& d, const scalapack::Grid& g, int rank,
                                double fill) {
  const auto layout = scalapack::make_layout(d, g);
  const auto need = ScalapackColumnMajor<>{d.lld}.map(layout, rank).allocation_sizes().at(0);
  return std::vector<double>(static_cast<std::size_t>(need), fill);
}
}  // namespace

TEST_CASE("robustness: gemr2d accepts null local arrays where LOCr or LOCc is 0") {
  const boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  // A: 4 x 10 in blocks of 4 x 2 on an np x 1 grid: only grid row 0 owns a block row, so
  // ranks 1.. have LOCr = 0 (their LLD is still >= 1, as ScaLAPACK requires).
  const scalapack::Grid ga{np, 1, false};
  scalapack::Descriptor da{1, 0, 4, 10, 4, 2, 0, 0, 4};
  if (me != 0) da.lld = 1;
  // B: 4 x 10 in blocks of 2 x 6 on a 1 x np grid: grid columns 2.. own no block column
  // (LOCc = 0).
  const scalapack::Grid gb{1, np, false};
  const scalapack::Descriptor db{1, 0, 4, 10, 2, 6, 0, 0, 4};
  std::vector<double> a = local_array(da, ga, me, 0.0);
  std::vector<double> b = local_array(db, gb, me, -1.0);
  CHECK(a.empty() == (me != 0));
  CHECK(b.empty() == (me >= 2));
  double* pa = a.empty() ? nullptr : a.data();
  double* pb = b.empty() ? nullptr : b.data();
  {
    auto A = scalapack::wrap(pa, da, ga, me);
    A.for_each_element([](ElementIndex e, double& v) { v = value(e); });
  }
  // A -> B, then B -> A (null on the target side) after clearing A.
  scalapack::gemr2d<double>(4, 10, pa, 1, 1, da, ga, pb, 1, 1, db, gb, world);
  long long bad = 0;
  auto B = scalapack::wrap(pb, db, gb, me);
  B.for_each_element([&](ElementIndex e, double& v) { bad += v != value(e); });
  for (double& v : a) v = -2.0;
  scalapack::gemr2d<double>(3, 7, pb, 2, 4, db, gb, pa, 1, 2, da, ga, world);
  auto A = scalapack::wrap(pa, da, ga, me);
  A.for_each_element([&](ElementIndex e, double& v) {
    const bool in = e.i < 3 && e.j >= 1 && e.j < 8;
    bad += v != (in ? value({e.i + 1, e.j + 2}) : -2.0);
  });
  CHECK(boost::mpi::all_reduce(world, bad, std::plus<long long>()) == 0);
}
