// scalapack::trmr2d (pxtrmr2d) and scalapack::tran / tranc (pxtran, pxtranc) at 1-4 ranks:
// random descriptors (1-based offsets, RSRC/CSRC != 0, grids of up to the communicator's
// ranks, row- and column-major), every element of the target checked against a naive
// reference, the plan cache reused on a repeated call.
#include <complex>
#include <functional>
#include <random>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/scalapack.hpp>
#include <redist/scalapack/transform.hpp>

#include <doctest/doctest.h>

namespace {
using namespace redist;

template <class T>
T value(ElementIndex e) {
  if constexpr (detail::is_complex<T>::value)
    return T(static_cast<double>(e.i), static_cast<double>(e.j) + 0.5);
  else
    return static_cast<T>(e.i * 1009 + e.j);
}
template <class T>
T initial(ElementIndex e) {
  return static_cast<T>(-static_cast<double>(e.i + 3 * e.j) - 1);
}

/// Elements of this rank's local array (LLD x LOCc, none when LOCr or LOCc is 0).
std::size_t local_size(const scalapack::Descriptor& d, const scalapack::Grid& g, int r) {
  const Extents e = scalapack::local_extents(d, g, r);
  return e.rows > 0 && e.cols > 0 ? static_cast<std::size_t>(d.lld * e.cols) : 0;
}

/// A random grid of at most np ranks and a descriptor of an M x N matrix on it.
struct Side {
  scalapack::Grid grid;
  scalapack::Descriptor desc;
};
Side random_side(std::mt19937& g, int np, index_t M, index_t N) {
  Side s;
  const auto pick = [&](index_t lo, index_t hi) {
    return lo + static_cast<index_t>(g() % static_cast<unsigned>(hi - lo + 1));
  };
  const int used = static_cast<int>(pick(1, np));
  int p = 1;
  for (int d = 1; d <= used; ++d)
    if (used % d == 0 && g() % 2) p = d;
  s.grid = {p, used / p, g() % 2 == 0};
  s.desc = {
      1, 0, M, N, pick(1, 9), pick(1, 9), pick(0, p - 1), pick(0, used / p - 1), M + pick(0, 3)};
  return s;
}

/// Moves with `call` and checks every element of the target against want(e) (initial
/// outside). Returns wrong elements over all ranks. Ranks outside the target grid hold
/// nothing and check nothing.
template <class T, class Call, class Want>
long long run_and_check(const boost::mpi::communicator& world, const Side& a, const Side& b,
                        Call&& call, Want&& want) {
  const int me = world.rank();
  const auto grid_ranks = [](const Side& s) { return s.grid.nprow * s.grid.npcol; };
  std::vector<T> la, lb;
  if (me < grid_ranks(a)) la.resize(local_size(a.desc, a.grid, me));
  if (me < grid_ranks(b)) lb.resize(local_size(b.desc, b.grid, me));
  // Ranks outside a grid see it as a grid that gives them nothing: wrap on the full grid.
  if (me < grid_ranks(a)) {
    auto A = scalapack::wrap(la.data(), a.desc, a.grid, me);
    A.for_each_element([](ElementIndex e, T& v) { v = value<T>(e); });
  }
  if (me < grid_ranks(b)) {
    auto B = scalapack::wrap(lb.data(), b.desc, b.grid, me);
    B.for_each_element([](ElementIndex e, T& v) { v = initial<T>(e); });
  }
  call(la.empty() ? nullptr : la.data(), lb.empty() ? nullptr : lb.data());
  long long bad = 0;
  if (me < grid_ranks(b)) {
    auto B = scalapack::wrap(lb.data(), b.desc, b.grid, me);
    B.for_each_element([&](ElementIndex e, T& v) { bad += !(v == want(e)); });
  }
  return boost::mpi::all_reduce(world, bad, std::plus<long long>());
}

}  // namespace

TEST_CASE("scalapack::trmr2d copies a trapezoid, random descriptors") {
  boost::mpi::communicator world;
  std::mt19937 g(5);
  for (int k = 0; k < 16; ++k) {
    const index_t M = 5 + static_cast<index_t>(g() % 40), N = 5 + static_cast<index_t>(g() % 40);
    const Side a = random_side(g, world.size(), M + 7, N + 3);
    const Side b = random_side(g, world.size(), M + 2, N + 9);
    const index_t ia = 1 + static_cast<index_t>(g() % 8), ja = 1 + static_cast<index_t>(g() % 4);
    const index_t ib = 1 + static_cast<index_t>(g() % 3), jb = 1 + static_cast<index_t>(g() % 10);
    const char uplo = k % 2 ? 'U' : 'L', diag = k % 4 < 2 ? 'N' : 'U';
    CAPTURE(k);
    const Triangle tri{uplo == 'U' ? Uplo::upper : Uplo::lower,
                       diag == 'U' ? Diag::unit : Diag::non_unit};
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second call reuses the cached plan
      const long long bad = run_and_check<double>(
          world, a, b,
          [&](const double* pa, double* pb) {
            scalapack::trmr2d<double>(uplo, diag, M, N, pa, ia, ja, a.desc, a.grid, pb, ib, jb,
                                      b.desc, b.grid, world);
          },
          [&](ElementIndex e) {
            const index_t x = e.i - (ib - 1), y = e.j - (jb - 1);
            if (x < 0 || y < 0 || x >= M || y >= N || !tri.keeps(x, y, {M, N}))
              return initial<double>(e);
            return value<double>({ia - 1 + x, ja - 1 + y});
          });
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("scalapack::tran and tranc: C = beta C + alpha A^T, random descriptors") {
  boost::mpi::communicator world;
  std::mt19937 g(9);
  for (int k = 0; k < 12; ++k) {
    const index_t M = 3 + static_cast<index_t>(g() % 40), N = 3 + static_cast<index_t>(g() % 40);
    // sub(C) is M x N, sub(A) is N x M.
    const Side a = random_side(g, world.size(), N + 5, M + 2);
    const Side c = random_side(g, world.size(), M + 4, N + 6);
    const index_t ia = 1 + static_cast<index_t>(g() % 6), ja = 1 + static_cast<index_t>(g() % 3);
    const index_t ic = 1 + static_cast<index_t>(g() % 5), jc = 1 + static_cast<index_t>(g() % 7);
    CAPTURE(k);
    using Z = std::complex<double>;
    const Z alpha(2, k % 3 == 0 ? 1 : 0), beta(k % 2 ? 0.5 : 0, 0);
    const bool conj = k % 3 != 2;
    const long long bad = run_and_check<Z>(
        world, a, c,
        [&](const Z* pa, Z* pc) {
          scalapack::tran<Z>(M, N, alpha, pa, ia, ja, a.desc, a.grid, beta, pc, ic, jc, c.desc,
                             c.grid, world, conj);
        },
        [&](ElementIndex e) {
          const index_t x = e.i - (ic - 1), y = e.j - (jc - 1);
          if (x < 0 || y < 0 || x >= M || y >= N) return initial<Z>(e);
          Z v = value<Z>({ia - 1 + y, ja - 1 + x});
          if (conj) v = std::conj(v);
          return beta == Z(0) ? Z(alpha * v) : Z(alpha * v + beta * initial<Z>(e));
        });
    CHECK(bad == 0);
  }
}

TEST_CASE("scalapack::trmr2d names a bad UPLO on every rank") {
  boost::mpi::communicator world;
  const scalapack::Grid grid{1, world.size(), false};
  const scalapack::Descriptor d{1, 0, 20, 20, 4, 4, 0, 0, 20};
  std::vector<double> a(local_size(d, grid, world.rank())), b = a;
  CHECK_THROWS_WITH_AS(scalapack::trmr2d<double>('X', 'N', 10, 10, a.data(), 1, 1, d, grid,
                                                 b.data(), 1, 1, d, grid, world),
                       doctest::Contains("uplo"), invalid_argument);
}
