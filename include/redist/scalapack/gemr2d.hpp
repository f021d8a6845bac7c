#pragma once
/// @file scalapack/gemr2d.hpp
/// gemr2d: ScaLAPACK's pxgemr2d on redist (Prylli and Tourancheau 1996 is what pxgemr2d
/// implements), with the plan kept in a PlanCache between calls.

#include <boost/mpi/communicator.hpp>

#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/scalapack/layout.hpp>
#include <redist/scalapack/plan_cache.hpp>

namespace redist::scalapack {

/// pxgemr2d: copies the m x n sub-matrix A(ia:ia+m-1, ja:ja+n-1) (1-based, as in
/// ScaLAPACK) into B(ib:ib+m-1, jb:jb+n-1). Every rank of `comm` calls it with the same
/// descriptors (except LLD, which is per rank) and grids; a rank outside a grid, or one
/// whose part of an array is empty (LOCr or LOCc = 0), may pass nullptr for that array.
/// The plan is kept in `cache`: a later call with the same descriptors, grids and region
/// only moves the data (other arrays or leading dimensions: the plan is rebound, not
/// made again). Collective.
/// @throws the redist::error family, on every rank, for bad descriptors or regions.
template <class T>
void gemr2d(index_t m, index_t n, const T* a, index_t ia, index_t ja, const Descriptor& desca,
            const Grid& grid_a, T* b, index_t ib, index_t jb, const Descriptor& descb,
            const Grid& grid_b, const boost::mpi::communicator& comm,
            PlanCache& cache = default_plan_cache()) {
  const Region region{{m, n}, {ia - 1, ja - 1}, {ib - 1, jb - 1}};
  cache
      .acquire<T>(PlanKey::of<T>(desca, grid_a, descb, grid_b, region), a, desca.lld, b, descb.lld,
                  comm)
      .redistribute();
}

}  // namespace redist::scalapack
