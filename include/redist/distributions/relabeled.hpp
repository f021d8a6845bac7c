#pragma once
/// @file relabeled.hpp
/// A distribution whose roles are played by other ranks (a permutation of a base
/// distribution's owners). relabel.hpp chooses the permutation that moves the least data.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>

namespace redist {

/// A distribution whose roles are played by other ranks: owner(t) = perm[base.owner(t)].
/// Keeps the base's fast enumeration of owned tiles.
template <Distribution D>
class Relabeled {
 public:
  /// A permutation of in-range owners is in range.
  static constexpr bool owners_in_range = OwnersInRange<D>;

  /// @throws distribution_error unless perm is a permutation of [0, perm.size()) covering
  /// the base's roles.
  Relabeled(D base, std::vector<int> perm)
      : base_(std::move(base)), rank_of_role_(std::move(perm)) {
    role_of_rank_.assign(rank_of_role_.size(), -1);
    detail::require<distribution_error>(
        static_cast<int>(rank_of_role_.size()) >= static_cast<int>(base_.ranks()),
        "relabeling must cover every role of the base distribution", "perm.size()",
        rank_of_role_.size());
    for (std::size_t r = 0; r < rank_of_role_.size(); ++r) {
      const int k = rank_of_role_[r];
      if (k < 0 || k >= static_cast<int>(rank_of_role_.size()) ||
          role_of_rank_[static_cast<std::size_t>(k)] != -1)
        throw distribution_error(detail::describe("relabeling is not a permutation",
                                                  "perm[" + std::to_string(r) + "]", k));
      role_of_rank_[static_cast<std::size_t>(k)] = static_cast<int>(r);
    }
  }

  int ranks() const { return static_cast<int>(rank_of_role_.size()); }
  int owner(TileIndex t) const { return rank_of_role_[static_cast<std::size_t>(base_.owner(t))]; }
  /// The tiles of `rank` are those of the role it plays.
  template <class F>
  void for_each_owned(int rank, TileBox box, F&& f) const requires EnumeratesOwnedTiles<D> {
    if (rank < 0 || rank >= ranks()) return;
    const int role = role_of_rank_[static_cast<std::size_t>(rank)];
    if (role < static_cast<int>(base_.ranks())) base_.for_each_owned(role, box, f);
  }
  const D& base() const { return base_; }
  const std::vector<int>& rank_of_role() const { return rank_of_role_; }
  /// Equal bases, relabeled alike (deleted where D has no ==).
  friend bool operator==(const Relabeled&, const Relabeled&) = default;

 private:
  D base_;
  std::vector<int> rank_of_role_;
  std::vector<int> role_of_rank_;
};

}  // namespace redist
