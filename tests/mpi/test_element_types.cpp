// Any trivially copyable element type moves, not only arithmetic ones: a user's record (a
// particle with three floats and an id; one with padding inside) on every path: both
// storages, point to point and through the node window, tiny chunks, start/test/wait,
// several matrices in one exchange, a transpose and a triangle (neither needs arithmetic).
// That alpha and beta do not compile for such a type is tests/compile/fail's.
#include <cstdint>
#include <vector>

#include <boost/mpi/collectives.hpp>

#include <redist/engine/executor_handle_definitions.hpp>  // element types the engine lacks
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

struct Particle {
  float x, y, z;
  std::int32_t id;
  friend bool operator==(const Particle&, const Particle&) = default;
};
/// A char then a double: seven bytes of padding that no rank ever agrees on.
struct Padded {
  char tag;
  double w;
  friend bool operator==(const Padded&, const Padded&) = default;
};
static_assert(!ScalableElement<Particle> && !ScalableElement<Padded>);
static_assert(ScalableElement<double> && ScalableElement<std::complex<float>>);

/// Distinct per source element; the sentinel (id -1, tag 0) is never one of them.
template <class T>
T record_at(ElementIndex e) {
  if constexpr (std::is_same_v<T, Particle>)
    return {static_cast<float>(e.i), static_cast<float>(e.j), 0.5f,
            static_cast<std::int32_t>(e.i * 1000 + e.j)};
  else
    return {static_cast<char>('a' + (e.i + e.j) % 26), static_cast<double>(e.i * 1000 + e.j)};
}
template <class T>
T record_sentinel() {
  if constexpr (std::is_same_v<T, Particle>)
    return {-1.f, -1.f, -1.f, -1};
  else
    return {0, -1.0};
}

/// The target element that target element e must hold after B = op(A) on `region` (source
/// extent R x C; transposed, the target gets C x R), or the sentinel where nothing is
/// written (outside the target rectangle, or outside the triangle).
template <class T>
T expected(ElementIndex e, const Region& r, const Transform<T>& t) {
  const Extents target = t.transposes() ? Extents{r.extent.cols, r.extent.rows} : r.extent;
  const index_t a = e.i - r.dst_origin.i, b = e.j - r.dst_origin.j;
  if (a < 0 || b < 0 || a >= target.rows || b >= target.cols) return record_sentinel<T>();
  if (t.triangle.masks() && !t.triangle.keeps(a, b, target)) return record_sentinel<T>();
  return t.transposes() ? record_at<T>({r.src_origin.i + b, r.src_origin.j + a})
                        : record_at<T>({r.src_origin.i + a, r.src_origin.j + b});
}

template <class M>
void fill_records(M& a) {
  fill_with(a, record_at<typename M::value_type>);
}
template <class M>
void fill_record_sentinel(M& b) {
  fill_with(b, [](ElementIndex) { return record_sentinel<typename M::value_type>(); });
}
/// Wrong elements over all ranks: every target element, and the source left unchanged.
template <class MA, class MB, class T>
index_t errors(const boost::mpi::communicator& comm, const MA& a, const MB& b, const Region& r,
               const Transform<T>& t) {
  index_t bad = 0;
  b.for_each_element([&](ElementIndex e, const T& v) { bad += !(v == expected(e, r, t)); });
  a.for_each_element([&](ElementIndex e, const T& v) { bad += !(v == record_at<T>(e)); });
  return sum(comm, bad);
}

template <class T, class SrcPlacement, class DstPlacement>
void check_records(const boost::mpi::communicator& comm) {
  const int np = comm.size();
  const auto [P, Q] = near_square_grid(np);
  const Layout src{uniform(61, 47, 7, 5), BlockCyclic(P, Q)};
  const Layout dst{uniform(53, 66, 6, 9), BlockCyclic(Q, P, 1, 2)};
  TiledMatrix<T, decltype(src), SrcPlacement> a(src, {}, comm.rank());
  TiledMatrix<T, decltype(dst), DstPlacement> b(dst, {}, comm.rank());
  fill_records(a);
  const Region plain{{40, 33}, {13, 9}, {5, 27}};
  const Region flipped{{33, 40}, {13, 5}, {5, 20}};  // target 40 x 33
  for (const char* window : window_settings())
    for (const index_t chunk : {index_t{64}, index_t{1} << 21}) {
      const ScopedEnv w("REDIST_SHARED_WINDOW", window);
      CAPTURE(window);
      CAPTURE(chunk);
      ExecutionOptions eo;
      eo.chunk_bytes = chunk;
      for (const Transform<T>& t :
           {Transform<T>{}, Transform<T>{Op::transpose},
            Transform<T>{Op::conj_transpose, Triangle{Uplo::lower, Diag::non_unit}},
            Transform<T>{Op::none, Triangle{Uplo::upper, Diag::unit}}}) {
        const Region r = t.transposes() ? flipped : plain;
        CAPTURE(static_cast<int>(t.op));
        fill_record_sentinel(b);
        Redistributor move(a, b, comm, r, t, PlanOptions{}, eo);
        move.redistribute();
        CHECK(errors(comm, a, b, r, t) == 0);
        // Again, overlapped with the caller's polling: the same plan, the same result.
        fill_record_sentinel(b);
        move.start();
        while (!move.test()) {
        }
        move.wait();
        CHECK(errors(comm, a, b, r, t) == 0);
      }
    }
}

TEST_CASE("mpi: records without arithmetic move on every path, transposed and masked too") {
  const boost::mpi::communicator comm;
  check_records<Particle, PackedTiles<>, ScalapackColumnMajor<>>(comm);
  check_records<Padded, TilePerAllocation<>, PackedTiles<>>(comm);
}

TEST_CASE("mpi: several record matrices in one exchange") {
  const boost::mpi::communicator comm;
  const int np = comm.size();
  const Layout src{uniform(30, 28, 4, 6), BlockCyclic(1, np)};
  const Layout dst{uniform(30, 28, 7, 3), BlockCyclic(np, 1)};
  using MA = TiledMatrix<Particle, decltype(src), PackedTiles<>>;
  using MB = TiledMatrix<Particle, decltype(dst), ScalapackColumnMajor<>>;
  std::vector<MA> a;
  std::vector<MB> b;
  for (int k = 0; k < 3; ++k) {
    a.emplace_back(src, PackedTiles<>{}, comm.rank());
    b.emplace_back(dst, ScalapackColumnMajor<>{}, comm.rank());
  }
  const Region regions[3] = {
      {{30, 28}, {0, 0}, {0, 0}}, {{11, 9}, {3, 4}, {17, 2}}, {{20, 5}, {9, 20}, {0, 23}}};
  std::vector<Part<MA, MB>> parts;
  for (int k = 0; k < 3; ++k) {
    fill_records(a[static_cast<std::size_t>(k)]);
    fill_record_sentinel(b[static_cast<std::size_t>(k)]);
    parts.push_back(
        Part{&a[static_cast<std::size_t>(k)], &b[static_cast<std::size_t>(k)], regions[k]});
  }
  Redistributor move(parts, comm);
  move.redistribute();
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(errors(comm, a[k], b[k], regions[k], Transform<Particle>{}) == 0);
  }
}

}  // namespace
