#pragma once
/// @file relabel/volumes.hpp
/// The volume matrix of a relabeling (relabel.hpp), sparse: which source rank holds how
/// many elements of each target role, one row per rank, non-zero entries only; each rank's
/// own row from its own plan (volume_row), and the checks the solvers need. Pure: no LEMON.

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <redist/error.hpp>
#include <redist/plan.hpp>
#include <redist/plan/triangle_mask.hpp>
#include <redist/transform_op.hpp>
#include <redist/triangle.hpp>

namespace redist {

/// `elements` of the region that a source rank holds and target role `role` owns: one
/// entry of that rank's row of the volume matrix.
struct VolumeEntry {
  int role = 0;
  index_t elements = 0;
  friend bool operator==(const VolumeEntry&, const VolumeEntry&) = default;
};

/// The P x P volume matrix by source rank, non-zero entries only (compressed rows):
/// row(s) is what rank s holds of each target role. Rows may list a role twice (the
/// solvers add them up) and in any order.
struct SparseVolumes {
  std::vector<std::size_t> row_begin{0};  ///< ranks() + 1 offsets into entries
  std::vector<VolumeEntry> entries;

  int ranks() const { return static_cast<int>(row_begin.size()) - 1; }
  std::span<const VolumeEntry> row(int s) const {
    const auto k = static_cast<std::size_t>(s);
    return {entries.data() + row_begin[k], row_begin[k + 1] - row_begin[k]};
  }
  /// Appends the row of rank ranks().
  void add_row(std::span<const VolumeEntry> row) {
    entries.insert(entries.end(), row.begin(), row.end());
    row_begin.push_back(entries.size());
  }
};

/// The row of the volume matrix of the rank whose plan is `plan`: the elements of the
/// region it holds of each target role, sorted by role, zeros left out. O(messages log
/// messages).
/// @post row[k].role < row[k + 1].role and row[k].elements > 0
inline std::vector<VolumeEntry> volume_row(const Plan& plan) {
  std::vector<VolumeEntry> row;
  row.reserve(plan.send.messages.size() + 1);
  for (const Message& m : plan.send.messages) row.push_back({m.peer, m.elements});
  row.push_back({plan.rank, plan.stats.elements_local});
  std::sort(row.begin(), row.end(),
            [](const VolumeEntry& a, const VolumeEntry& b) { return a.role < b.role; });
  std::vector<VolumeEntry> merged;  // one entry per role (a message per batch before)
  for (const VolumeEntry& e : row) {
    if (e.elements == 0) continue;
    if (!merged.empty() && merged.back().role == e.role)
      merged.back().elements += e.elements;
    else
      merged.push_back(e);
  }
  return merged;
}

/// Rank `rank`'s row of the volume matrix (volume_row of its plan) for the move of
/// op(source region) into the target, keeping `triangle` of the target rectangle
/// (plan/triangle_mask.hpp's make_plan of an op and a triangle, as a Redistributor plans
/// it). Plans this rank only.
/// @throws what make_plan throws (region_error for an op(region) that does not fit).
template <class SrcLayout, class DstLayout>
std::vector<VolumeEntry> volume_row(const SrcLayout& src, const DstLayout& dst,
                                    const Region& region, int rank, int comm_size, Op op = Op::none,
                                    const Triangle& triangle = {}) {
  return volume_row(make_plan(src, dst, region, rank, comm_size, PlanOptions{}, triangle, op));
}

/// volume[s * P + r]: elements of the region that source rank s holds and target role r
/// owns; row s is volume_row(src, dst, region, s, P, op, triangle). Plans all P ranks: O(P)
/// plans and P^2 memory, for one process; at scale use volume_row on each rank.
template <class SrcLayout, class DstLayout>
std::vector<index_t> transfer_volumes(const SrcLayout& src, const DstLayout& dst,
                                      const Region& region, int comm_size, Op op = Op::none,
                                      const Triangle& triangle = {}) {
  const auto P = static_cast<std::size_t>(comm_size);
  std::vector<index_t> volume(P * P, 0);
  for (int s = 0; s < comm_size; ++s)
    for (const VolumeEntry& e : volume_row(src, dst, region, s, comm_size, op, triangle))
      volume[static_cast<std::size_t>(s) * P + static_cast<std::size_t>(e.role)] = e.elements;
  return volume;
}

/// The non-zero entries of a dense P x P volume matrix (volume[s * P + r]).
/// @throws invalid_argument if volume is not P x P or holds a negative entry.
inline SparseVolumes sparse_volumes(const std::vector<index_t>& volume, int comm_size) {
  const auto P = static_cast<std::size_t>(comm_size);
  detail::require<invalid_argument>(comm_size > 0 && volume.size() == P * P,
                                    "volume matrix must be P x P", "volume.size()", volume.size());
  SparseVolumes out;
  out.row_begin.reserve(P + 1);
  for (std::size_t s = 0; s < P; ++s) {
    for (std::size_t r = 0; r < P; ++r) {
      const index_t v = volume[s * P + r];
      if (v < 0)
        throw invalid_argument(describe("volumes must be non-negative",
                                        "volume[" + std::to_string(s * P + r) + "]", v));
      if (v > 0) out.entries.push_back({static_cast<int>(r), v});
    }
    out.row_begin.push_back(out.entries.size());
  }
  return out;
}

namespace detail {

/// The largest volume entry the solvers take; sums of a few such entries fit 64 bits.
inline constexpr index_t most_elements = index_t{1} << 60;

/// Checks sparse volumes; returns them as given when each row is sorted by role with one
/// entry per role and no zeros (volume_row's and sparse_volumes' rows), else such a copy,
/// made in `copy`.
/// @throws invalid_argument for no rank, a role outside [0, P), or an entry (or the sum of
/// one role's entries in a row) outside [0, 2^60].
inline const SparseVolumes& normalized(const SparseVolumes& volumes, SparseVolumes& copy) {
  const int P = volumes.ranks();
  require<invalid_argument>(
      P > 0 && volumes.row_begin.front() == 0 && volumes.row_begin.back() == volumes.entries.size(),
      "sparse volumes need at least one row and row_begin ending at entries.size()",
      "volumes.row_begin.size()", volumes.row_begin.size());
  bool ready = true;
  for (int s = 0; s < P; ++s) {
    const auto row = volumes.row(s);
    for (std::size_t k = 0; k < row.size(); ++k) {
      const VolumeEntry& e = row[k];
      if (e.role < 0 || e.role >= P || e.elements < 0 || e.elements > most_elements) {
        const std::string name =
            "volumes.row(" + std::to_string(s) + ")[" + std::to_string(k) + "]";
        require<invalid_argument>(e.role >= 0 && e.role < P, "roles must be in [0, P)",
                                  name + ".role", e.role);
        throw invalid_argument(
            describe("volumes must be in [0, 2^60]", name + ".elements", e.elements));
      }
      ready = ready && e.elements > 0 && (k == 0 || row[k - 1].role < e.role);
    }
  }
  if (ready) return volumes;
  copy = SparseVolumes{};
  copy.row_begin.reserve(volumes.row_begin.size());
  copy.entries.reserve(volumes.entries.size());
  std::vector<VolumeEntry> row;
  for (int s = 0; s < P; ++s) {
    const auto given = volumes.row(s);
    row.assign(given.begin(), given.end());
    std::sort(row.begin(), row.end(),
              [](const VolumeEntry& a, const VolumeEntry& b) { return a.role < b.role; });
    for (const VolumeEntry& e : row) {
      if (e.elements == 0) continue;
      if (copy.entries.size() == copy.row_begin.back() || copy.entries.back().role != e.role) {
        copy.entries.push_back(e);
        continue;
      }
      index_t& sum = copy.entries.back().elements;
      require<invalid_argument>(
          e.elements <= most_elements - sum, "volumes must be in [0, 2^60]",
          "volumes.row(" + std::to_string(s) + ") sum for role " + std::to_string(e.role),
          static_cast<double>(sum) + static_cast<double>(e.elements));
      sum += e.elements;
    }
    copy.row_begin.push_back(copy.entries.size());
  }
  return copy;
}

}  // namespace detail

}  // namespace redist
