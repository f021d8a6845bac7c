#pragma once
/// @file scalapack/transform.hpp
/// ScaLAPACK's transforming copies on redist (transform.hpp), with plans kept in a
/// PlanCache like gemr2d's:
/// - trmr2d: pxtrmr2d, the upper or lower trapezoid of a sub-matrix, with or without its
///   diagonal;
/// - tran / tranc: pxtran / pxtranc, C = beta * C + alpha * A^T (conjugated for tranc).
///   Unlike PBLAS, A and C may live on different grids (PBLAS needs one context).
/// Only the kept elements of a trapezoid travel; a transpose costs no extra pass.

#include <cstdint>
#include <optional>

#include <boost/mpi/communicator.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/scalapack/layout.hpp>
#include <redist/scalapack/plan_cache.hpp>
#include <redist/transform.hpp>
#include <redist/triangle.hpp>

namespace redist::scalapack {

/// The PlanKey::operation of a transform: a hash of every field that changes the plan or
/// the copies, never gemr2d's 0. A caller that builds its own PlanKey for
/// PlanCache::acquire with a transform (the ABI library's p?trmr2d and PBLAS routines)
/// passes this.
template <class T>
std::uint64_t operation_of(const Transform<T>& t) {
  redist::detail::Hasher h;
  h.add(std::uint64_t{1})  // not gemr2d's 0
      .add(static_cast<std::uint64_t>(t.op))
      .add(redist::detail::bytes_fingerprint(t.alpha))
      .add(redist::detail::bytes_fingerprint(t.beta))
      .add(static_cast<std::uint64_t>(t.triangle.uplo))
      .add(static_cast<std::uint64_t>(t.triangle.diag));
  return h.value();
}

namespace detail {

/// ScaLAPACK's UPLO ('U', 'L') and DIAG ('U', 'N') characters, either case; nothing for
/// another character.
inline std::optional<Uplo> uplo_of(char c) {
  if (c == 'U' || c == 'u') return Uplo::upper;
  if (c == 'L' || c == 'l') return Uplo::lower;
  return std::nullopt;
}
inline std::optional<Diag> diag_of(char c) {
  if (c == 'U' || c == 'u') return Diag::unit;
  if (c == 'N' || c == 'n') return Diag::non_unit;
  return std::nullopt;
}

/// UPLO and DIAG as a Triangle.
/// @throws invalid_argument naming the argument for another character.
inline Triangle triangle_of(char uplo, char diag) {
  const auto u = uplo_of(uplo);
  const auto d = diag_of(diag);
  if (!u)
    throw invalid_argument(
        redist::detail::describe("UPLO must be 'U' or 'L'", "uplo", static_cast<index_t>(uplo)));
  if (!d)
    throw invalid_argument(
        redist::detail::describe("DIAG must be 'U' or 'N'", "diag", static_cast<index_t>(diag)));
  return Triangle{*u, *d};
}

}  // namespace detail

/// pxtrmr2d: copies the upper (uplo 'U') or lower ('L') trapezoid of the m x n sub-matrix
/// A(ia:ia+m-1, ja:ja+n-1) (1-based) into B(ib:ib+m-1, jb:jb+n-1), without the diagonal
/// when diag is 'U'. The rest of B is untouched. Same calling rules and cache as gemr2d.
/// Collective. @throws the redist::error family, on every rank (invalid_argument naming
/// uplo or diag for another character).
template <class T>
void trmr2d(char uplo, char diag, index_t m, index_t n, const T* a, index_t ia, index_t ja,
            const Descriptor& desca, const Grid& grid_a, T* b, index_t ib, index_t jb,
            const Descriptor& descb, const Grid& grid_b, const boost::mpi::communicator& comm,
            PlanCache& cache = default_plan_cache()) {
  Transform<T> t;
  redist::detail::collectively(comm, [&] { t.triangle = detail::triangle_of(uplo, diag); });
  const Region region{{m, n}, {ia - 1, ja - 1}, {ib - 1, jb - 1}};
  cache
      .acquire<T>(PlanKey::of<T>(desca, grid_a, descb, grid_b, region, operation_of(t)), a,
                  desca.lld, b, descb.lld, comm, {}, {}, t)
      .redistribute();
}

/// pxtran (conjugate = false) / pxtranc (true): C(ic:ic+m-1, jc:jc+n-1) = beta * C(..) +
/// alpha * A(ia:ia+n-1, ja:ja+m-1)^T (conjugated for pxtranc), 1-based; beta = 0 does not
/// read C. A and C may be on different grids. Same calling rules and cache as gemr2d.
/// Collective. @throws the redist::error family, on every rank.
template <class T>
void tran(index_t m, index_t n, T alpha, const T* a, index_t ia, index_t ja,
          const Descriptor& desca, const Grid& grid_a, T beta, T* c, index_t ic, index_t jc,
          const Descriptor& descc, const Grid& grid_c, const boost::mpi::communicator& comm,
          bool conjugate = false, PlanCache& cache = default_plan_cache()) {
  const Transform<T> t{conjugate ? Op::conj_transpose : Op::transpose, alpha, beta};
  // The source region is n x m; the target receives m x n.
  const Region region{{n, m}, {ia - 1, ja - 1}, {ic - 1, jc - 1}};
  cache
      .acquire<T>(PlanKey::of<T>(desca, grid_a, descc, grid_c, region, operation_of(t)), a,
                  desca.lld, c, descc.lld, comm, {}, {}, t)
      .redistribute();
}

}  // namespace redist::scalapack
