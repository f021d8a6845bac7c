#pragma once
/// @file scalapack.hpp
/// ScaLAPACK interop: layouts from array descriptors, and a pxgemr2d-compatible entry
/// point (Prylli and Tourancheau 1996 is what pxgemr2d implements).
///
/// A ScaLAPACK descriptor (DTYPE_=1) is {dtype, ctxt, M, N, MB, NB, RSRC, CSRC, LLD}:
/// a block-cyclic layout of MB x NB tiles over the BLACS grid of `ctxt`, whose first
/// tile lives on grid coordinate (RSRC, CSRC), stored as a local column-major array
/// with leading dimension LLD. In redist terms: Tiling{UniformAxis<>(M, MB),
/// UniformAxis<>(N, NB)}, BlockCyclic(P, Q, 1, 1, {RSRC, CSRC}) and
/// ScalapackColumnMajor{LLD}.

#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/redistributor.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

namespace redist::scalapack {

/// The nine integers of a dense ScaLAPACK array descriptor, 64-bit.
struct Descriptor {
  index_t dtype = 1;
  index_t ctxt = 0;
  index_t m = 0, n = 0;
  index_t mb = 1, nb = 1;
  index_t rsrc = 0, csrc = 0;
  index_t lld = 1;

  /// Reads desc[0..8] as ScaLAPACK lays it out.
  template <class Int>
  static Descriptor from_array(const Int* desc) {
    return {desc[0], desc[1], desc[2], desc[3], desc[4], desc[5], desc[6], desc[7], desc[8]};
  }
};

/// A BLACS process grid: P x Q, and how its coordinates map to communicator ranks
/// (Cblacs_gridinit's "Row" order is rank = p * Q + q; "Col" is rank = q * P + p).
struct Grid {
  int nprow = 1;
  int npcol = 1;
  bool column_major = false;
};

using ScalapackLayout = Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>;

/// The redist layout of descriptor `d` on grid `g`.
/// @throws invalid_argument naming the descriptor field for a non-dense descriptor,
/// non-positive block sizes, or a source coordinate outside the grid.
inline ScalapackLayout make_layout(const Descriptor& d, const Grid& g) {
  detail::require<invalid_argument>(d.dtype == 1, "only dense descriptors (DTYPE_ = 1)",
                                    "desc.dtype", d.dtype);
  detail::require<invalid_argument>(d.mb > 0, "block rows must be positive", "desc.mb", d.mb);
  detail::require<invalid_argument>(d.nb > 0, "block columns must be positive", "desc.nb", d.nb);
  detail::require<invalid_argument>(0 <= d.rsrc && d.rsrc < g.nprow,
                                    "first process row outside the grid", "desc.rsrc", d.rsrc);
  detail::require<invalid_argument>(0 <= d.csrc && d.csrc < g.npcol,
                                    "first process column outside the grid", "desc.csrc", d.csrc);
  return {Tiling{UniformAxis<>(d.m, d.mb), UniformAxis<>(d.n, d.nb)},
          BlockCyclic(g.nprow, g.npcol, 1, 1,
                      GridCoord{static_cast<int>(d.rsrc), static_cast<int>(d.csrc)},
                      g.column_major ? GridOrder::column_major : GridOrder::row_major)};
}

/// Wraps a rank's ScaLAPACK local array (may be null on ranks that store nothing).
template <class T>
using Matrix = TiledMatrix<T, ScalapackLayout, ScalapackColumnMajor<Kokkos::HostSpace>>;

template <class T>
Matrix<T> wrap(T* local, const Descriptor& d, const Grid& g, int rank) {
  ScalapackLayout layout = make_layout(d, g);
  const ScalapackColumnMajor<Kokkos::HostSpace> placement{d.lld};
  const index_t need = placement.map(layout, rank).allocation_sizes().at(0);
  if (local == nullptr && need > 0)
    throw storage_error(detail::describe("null local array for a rank that stores elements",
                                         "local elements needed", need));
  std::vector<typename Matrix<T>::allocation_view> storage;
  storage.emplace_back(local, static_cast<std::size_t>(need));
  return Matrix<T>(std::move(layout), placement, rank, std::move(storage));
}

/// pxgemr2d: copies the m x n sub-matrix A(ia:ia+m-1, ja:ja+n-1) (1-based, as in
/// ScaLAPACK) into B(ib:ib+m-1, jb:jb+n-1). Every rank of `comm` calls it; a rank
/// outside a grid passes nullptr for that array. Plans on every call: for repeated
/// copies build a Redistributor once instead. Collective.
/// @throws the redist::error family, on every rank, for bad descriptors or regions.
template <class T>
void gemr2d(index_t m, index_t n, const T* a, index_t ia, index_t ja, const Descriptor& desca,
            const Grid& grid_a, T* b, index_t ib, index_t jb, const Descriptor& descb,
            const Grid& grid_b, const boost::mpi::communicator& comm) {
  std::unique_ptr<Matrix<T>> A, B;
  // A is only read; the const_cast lets it share the matrix type of B.
  detail::collectively(comm, [&] {
    A = std::make_unique<Matrix<T>>(wrap(const_cast<T*>(a), desca, grid_a, comm.rank()));
    B = std::make_unique<Matrix<T>>(wrap(b, descb, grid_b, comm.rank()));
  });
  Redistributor r(*A, *B, comm, Region{{m, n}, {ia - 1, ja - 1}, {ib - 1, jb - 1}});
  r.redistribute();
}

}  // namespace redist::scalapack
