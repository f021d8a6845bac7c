#pragma once
/// @file collective/relabel.hpp
/// Relabeling on a communicator, each rank knowing only its own row of the volume matrix
/// (volume_row, relabel.hpp): rank 0 gathers the rows, solves the assignment once and
/// broadcasts the permutation. Traffic: the non-zero entries to rank 0 (12 bytes each)
/// and P ints back; no rank plans another's part.
///
///   const auto row = volume_row(src, dst, region, comm.rank(), comm.size());
///   const std::vector<int> perm = best_relabeling(comm, row);      // the same on every rank
///   Layout dst2{dst.shape(), Relabeled{dst.distribution(), perm}};

#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/error.hpp>
#include <redist/relabel.hpp>

namespace redist {

namespace detail {

/// The rows of every rank, on rank 0 (empty elsewhere). Collective.
/// @throws invalid_argument on every rank if the rows hold 2^31 entries or more together
/// (MPI's int counts).
inline SparseVolumes gather_volume_rows(const boost::mpi::communicator& comm,
                                        const std::vector<VolumeEntry>& row) {
  namespace mpi = boost::mpi;
  const auto mine = static_cast<long long>(row.size());
  const long long total = mpi::all_reduce(comm, mine, std::plus<long long>());
  require<invalid_argument>(total <= std::numeric_limits<int>::max(),
                            "the gathered volume rows must hold fewer than 2^31 entries", "entries",
                            total);
  std::vector<int> roles(row.size());
  std::vector<index_t> elements(row.size());
  for (std::size_t k = 0; k < row.size(); ++k) {
    roles[k] = row[k].role;
    elements[k] = row[k].elements;
  }
  const int count = static_cast<int>(row.size());
  if (comm.rank() != 0) {
    mpi::gather(comm, count, 0);
    mpi::gatherv(comm, roles.data(), count, 0);
    mpi::gatherv(comm, elements.data(), count, 0);
    return {};
  }
  std::vector<int> counts;
  mpi::gather(comm, count, counts, 0);
  std::vector<int> all_roles(static_cast<std::size_t>(total));
  std::vector<index_t> all_elements(static_cast<std::size_t>(total));
  mpi::gatherv(comm, roles.data(), count, all_roles.data(), counts, 0);
  mpi::gatherv(comm, elements.data(), count, all_elements.data(), counts, 0);
  SparseVolumes out;
  out.row_begin.reserve(counts.size() + 1);
  out.entries.reserve(all_roles.size());
  std::size_t k = 0;
  for (const int c : counts) {
    for (int j = 0; j < c; ++j, ++k) out.entries.push_back({all_roles[k], all_elements[k]});
    out.row_begin.push_back(out.entries.size());
  }
  return out;
}

/// Solves on rank 0 and broadcasts; an error of the solver is thrown on every rank.
template <class Solve>
std::vector<int> solve_on_root(const boost::mpi::communicator& comm, Solve&& solve) {
  std::vector<int> perm(static_cast<std::size_t>(comm.size()));
  collectively(comm, [&] {
    if (comm.rank() == 0) perm = solve();
  });
  boost::mpi::broadcast(comm, perm.data(), comm.size(), 0);
  return perm;
}

}  // namespace detail

/// best_relabeling of the matrix whose row s is rank s's `row` (perm[role] = rank, the
/// same on every rank). Collective; the solve runs on rank 0 alone.
/// @throws invalid_argument on every rank if some rank's row is bad (as best_relabeling).
inline std::vector<int> best_relabeling(const boost::mpi::communicator& comm,
                                        const std::vector<VolumeEntry>& row) {
  const SparseVolumes volumes = detail::gather_volume_rows(comm, row);
  return detail::solve_on_root(comm, [&] { return best_relabeling(volumes); });
}

/// best_node_relabeling of the matrix whose row s is rank s's `row`, rank s being on node
/// `node` as that rank passes it (perm[role] = rank, the same on every rank). Collective;
/// the solve runs on rank 0 alone.
/// @throws invalid_argument on every rank if some rank's row is bad (as best_relabeling).
inline std::vector<int> best_node_relabeling(const boost::mpi::communicator& comm,
                                             const std::vector<VolumeEntry>& row, int node) {
  const SparseVolumes volumes = detail::gather_volume_rows(comm, row);
  std::vector<int> node_of_rank;
  if (comm.rank() == 0)
    boost::mpi::gather(comm, node, node_of_rank, 0);
  else
    boost::mpi::gather(comm, node, 0);
  return detail::solve_on_root(comm, [&] { return best_node_relabeling(volumes, node_of_rank); });
}

}  // namespace redist
