// PlanCache and the cached gemr2d (redist/scalapack/plan_cache.hpp): plan once, hit,
// rebind on other arrays or leading dimensions (on one rank only too), miss on another
// region, least-recently-used eviction, one list per communicator group, errors that leave
// the cache as it was; grids with arbitrary rank maps (Cblacs_gridmap) on both sides.
// Every test fills A with a function of the global index and checks every element of B
// (the mapped value inside the region, the sentinel outside). Runs at 1..4 ranks.
#include <algorithm>
#include <complex>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

namespace {
using namespace redist;
namespace sp = redist::scalapack;

template <class T>
T f(ElementIndex e) {
  return T(static_cast<double>(e.i * 4096 + e.j + 1));
}

/// A rank's local array for (d, g), `extra` spare rows past LOCr; empty when it stores
/// nothing (its data() is then what gemr2d receives: null).
template <class T>
struct Local {
  sp::Descriptor d;
  std::vector<T> v;
  T* data() { return v.empty() ? nullptr : v.data(); }
};

template <class T>
Local<T> local(sp::Descriptor d, const sp::Grid& g, int rank, index_t extra, T fill) {
  const Extents e = sp::local_extents(d, g, rank);
  d.lld = std::max<index_t>(1, e.rows) + extra;
  Local<T> l{d, {}};
  if (e.rows > 0 && e.cols > 0) l.v.assign(static_cast<std::size_t>(d.lld * e.cols), fill);
  return l;
}

template <class T>
void fill_f(Local<T>& a, const sp::Grid& g, int rank) {
  auto A = sp::wrap(a.data(), a.d, g, rank);
  A.for_each_element([](ElementIndex e, T& v) { v = f<T>(e); });
}

/// Wrong elements of B over all ranks, `r` moved in, the sentinel -1 elsewhere.
template <class T>
long long wrong(const boost::mpi::communicator& comm, Local<T>& b, const sp::Grid& g,
                const Region& r) {
  long long bad = 0;
  auto B = sp::wrap(b.data(), b.d, g, comm.rank());
  B.for_each_element([&](ElementIndex e, T& v) {
    const bool in = e.i >= r.dst_origin.i && e.i < r.dst_origin.i + r.extent.rows &&
                    e.j >= r.dst_origin.j && e.j < r.dst_origin.j + r.extent.cols;
    const T want =
        in ? f<T>({e.i - r.dst_origin.i + r.src_origin.i, e.j - r.dst_origin.j + r.src_origin.j})
           : T(-1);
    bad += !(v == want);
  });
  return boost::mpi::all_reduce(comm, bad, std::plus<long long>());
}

/// A grid of P x Q over `ranks` in a shuffled order (as Cblacs_gridmap can make it).
sp::Grid shuffled(int P, int Q, int ranks, unsigned seed) {
  std::vector<int> r(static_cast<std::size_t>(ranks));
  std::iota(r.begin(), r.end(), 0);
  std::shuffle(r.begin(), r.end(), std::mt19937(seed));  // same seed: same map everywhere
  r.resize(static_cast<std::size_t>(P * Q));
  return {P, Q, false, r};
}

template <class T>
void gemr2d(const Region& r, Local<T>& a, const sp::Grid& ga, Local<T>& b, const sp::Grid& gb,
            const boost::mpi::communicator& comm, sp::PlanCache& cache) {
  sp::gemr2d<T>(r.extent.rows, r.extent.cols, a.data(), r.src_origin.i + 1, r.src_origin.j + 1, a.d,
                ga, b.data(), r.dst_origin.i + 1, r.dst_origin.j + 1, b.d, gb, comm, cache);
}

/// B refilled with the sentinel, gemr2d, then the wrong elements of B over all ranks.
template <class T>
long long moved_wrong(const Region& r, Local<T>& a, const sp::Grid& ga, Local<T>& b,
                      const sp::Grid& gb, const boost::mpi::communicator& comm,
                      sp::PlanCache& cache) {
  gemr2d(r, a, ga, b, gb, comm, cache);
  return wrong(comm, b, gb, r);
}

}  // namespace

TEST_CASE("PlanCache: plan once, hit, rebind (other array, other LLD on one rank), evict") {
  const boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  // A on a shuffled grid of every rank, B on a column-major grid of all but the last.
  const sp::Grid ga = shuffled(np, 1, np, 7);
  const sp::Grid gb{std::max(1, np - 1), 1, true};
  const sp::Descriptor da{1, 0, 57, 43, 5, 3, np > 1 ? 1 : 0, 0, 0};
  const sp::Descriptor db{1, 0, 61, 50, 4, 7, 0, 0, 0};
  auto a = local<double>(da, ga, me, 0, 0.0);
  fill_f(a, ga, me);
  auto b = local<double>(db, gb, me, 1, -1.0);
  auto b2 = local<double>(db, gb, me, 0, -1.0);
  sp::PlanCache cache(2);
  const Region r1{{30, 20}, {4, 3}, {10, 12}};

  CHECK(moved_wrong(r1, a, ga, b, gb, world, cache) == 0);
  CHECK(cache.stats().misses == 1);
  CHECK(moved_wrong(r1, a, ga, b, gb, world, cache) == 0);
  CHECK(cache.stats().hits == 1);

  CHECK(moved_wrong(r1, a, ga, b2, gb, world, cache) == 0);  // another target array: rebind
  CHECK(cache.stats().rebinds == 1);
  // Another leading dimension on the last rank only: every rank rebinds.
  auto b3 = local<double>(db, gb, me, me == np - 1 ? 3 : 0, -1.0);
  CHECK(moved_wrong(r1, a, ga, b3, gb, world, cache) == 0);
  CHECK(cache.stats().rebinds == 2);
  CHECK(cache.stats().misses == 1);

  // Two other regions: misses; the capacity is 2, so r1's plan goes.
  const Region r2{{1, 1}, {0, 0}, {60, 49}}, r3{{52, 40}, {5, 3}, {0, 0}};
  for (const Region& r : {r2, r3}) {
    auto t = local<double>(db, gb, me, 0, -1.0);
    CHECK(moved_wrong(r, a, ga, t, gb, world, cache) == 0);
  }
  CHECK(cache.stats().misses == 3);
  CHECK(cache.stats().evictions == 1);
  CHECK(cache.size() == 2);
  CHECK(moved_wrong(r1, a, ga, b, gb, world, cache) == 0);
  CHECK(cache.stats().misses == 4);
}

TEST_CASE("PlanCache: one list per communicator group, errors leave it as it was") {
  const boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  const boost::mpi::communicator half = world.split(me % 2);
  sp::PlanCache cache(4);
  const sp::Descriptor d{1, 0, 33, 35, 2, 9, 0, 0, 0};
  const sp::Grid gh = shuffled(half.size(), 1, half.size(), 5);
  const Region r{{20, 30}, {13, 5}, {1, 2}};
  using CF = std::complex<float>;
  std::vector<Local<CF>> as, bs;  // both rounds' arrays alive: round 2's are other arrays
  for (int round = 0; round < 2; ++round) {  // each half alone, its own group
    as.push_back(local<CF>(d, gh, half.rank(), 0, {}));
    fill_f(as.back(), gh, half.rank());
    bs.push_back(local<CF>(d, gh, half.rank(), 1, {-1, 0}));
    CHECK(moved_wrong(r, as.back(), gh, bs.back(), gh, half, cache) == 0);
  }
  // Round 1 planned (each rank sees its own half's group), round 2 found the plan again
  // with other arrays.
  CHECK(cache.size() == 1);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().rebinds == 1);

  const sp::Grid g1{1, np, false};
  auto a = local<int>(d, g1, me, 0, 0);
  fill_f(a, g1, me);
  auto b = local<int>(d, g1, me, 0, -1);
  CHECK(moved_wrong(r, a, g1, b, g1, world, cache) == 0);
  CHECK(cache.size() == 2);
  const Region outside{{20, 30}, {14, 5}, {1, 2}};  // rows 14..33 of a 33-row A
  CHECK_THROWS_AS(gemr2d(outside, a, g1, b, g1, world, cache), region_error);
  CHECK(cache.size() == 2);
  CHECK(cache.stats().misses == 2);
  CHECK(moved_wrong(r, a, g1, b, g1, world, cache) == 0);
  CHECK(cache.stats().hits == 1);
}

TEST_CASE("gemr2d: the default cache keeps the plan; grid maps on both sides, all types") {
  const boost::mpi::communicator world;
  const int np = world.size(), me = world.rank();
  const index_t before = sp::default_plan_cache().stats().misses;
  for (unsigned seed = 0; seed < 3; ++seed) {
    const sp::Grid ga = shuffled(np >= 4 ? 2 : 1, np >= 4 ? 2 : np, np, seed);
    const sp::Grid gb = shuffled(np, 1, np, seed + 10);
    const sp::Descriptor da{1, 0, 48, 31, 1, 2, 0, np >= 4 ? 1 : 0, 0};
    const sp::Descriptor db{1, 0, 40, 40, 3, 1, np - 1, 0, 0};
    const Region r{{35, 31}, {13, 0}, {5, 9}};
    const auto run = [&](auto zero) {
      using T = decltype(zero);
      auto a = local<T>(da, ga, me, seed, T(0));
      fill_f(a, ga, me);
      for (int k = 0; k < 2; ++k) {
        auto b = local<T>(db, gb, me, 0, T(-1));
        sp::gemr2d<T>(35, 31, a.data(), 14, 1, a.d, ga, b.data(), 6, 10, b.d, gb, world);
        CHECK(wrong(world, b, gb, r) == 0);
      }
    };
    run(0.0f);
    run(0.0);
    run(std::complex<float>());
    run(std::complex<double>());
    run(0);
  }
  // One plan per (type, seed); the second call of each rebinds.
  CHECK(sp::default_plan_cache().stats().misses - before == 15);
}
