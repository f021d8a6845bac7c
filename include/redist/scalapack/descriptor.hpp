#pragma once
/// @file scalapack/descriptor.hpp
/// ScaLAPACK's array descriptor and BLACS grid as plain data, NUMROC, and the one check of
/// a descriptor that both the header API (scalapack/layout.hpp) and the ABI library
/// (scalapack_abi/) apply: what ScaLAPACK's p?gemr2d reads of it, no more.
///
/// | descriptor entry | p?gemr2d (REDIST/SRC/p?gemr.c)  | here                             |
/// |------------------|---------------------------------|----------------------------------|
/// | DTYPE_           | never read                      | never read: any value            |
/// | CTXT_            | the grid                        | the Grid argument stands for it  |
/// | M_, N_           | >= 0 (through the bounds check) | `descriptor_fault`               |
/// | MB_, NB_         | > 0 (divides by them)           | `descriptor_fault`               |
/// | RSRC_, CSRC_     | inside the grid                 | `descriptor_fault`               |
/// | LLD_             | >= LOCr on the own process only | the placement, per rank (wrap)   |

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <redist/index.hpp>

namespace redist::scalapack {

/// The nine integers of a dense ScaLAPACK array descriptor, 64-bit. `dtype` is carried
/// for the caller's sake and never read (nor is it by p?gemr2d).
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
  friend bool operator==(const Descriptor&, const Descriptor&) = default;
};

/// A BLACS process grid: nprow x npcol, and which communicator rank holds grid
/// coordinate (p, q). With `ranks` empty the order is Cblacs_gridinit's: "Row"
/// (column_major = false) is rank = p * npcol + q, "Col" is rank = q * nprow + p. A
/// grid made by Cblacs_gridmap gives its map in `ranks`: ranks[p * npcol + q] is the
/// rank of (p, q), and column_major is then ignored.
struct Grid {
  int nprow = 1;
  int npcol = 1;
  bool column_major = false;
  std::vector<int> ranks{};

  /// The rank of grid coordinate g. @pre 0 <= g.p < nprow, 0 <= g.q < npcol and, with a
  /// map, ranks.size() == nprow * npcol.
  int rank_of(GridCoord g) const {
    if (!ranks.empty()) return ranks[static_cast<std::size_t>(g.p) * npcol + g.q];
    return column_major ? g.q * nprow + g.p : g.p * npcol + g.q;
  }
  friend bool operator==(const Grid&, const Grid&) = default;
};

/// ScaLAPACK's NUMROC: how many of n indices, cut in blocks of nb dealt cyclically over
/// nprocs processes starting at process src, process `iproc` holds.
/// @pre n >= 0, nb > 0, 0 <= iproc < nprocs, 0 <= src < nprocs.
/// @post the sum over iproc in [0, nprocs) is n.
/// Example: n = 10, nb = 3, nprocs = 2, src = 1: blocks of 3, 3, 3, 1 go to processes
/// 1, 0, 1, 0, so process 0 holds 3 + 1 = 4 and process 1 holds 3 + 3 = 6.
constexpr index_t numroc(index_t n, index_t nb, int iproc, index_t src, int nprocs) {
  const index_t dist = (iproc - src + nprocs) % nprocs;  // blocks from the first holder
  const index_t blocks = n / nb;
  index_t local = blocks / nprocs * nb;
  const index_t extra = blocks % nprocs;
  if (dist < extra)
    local += nb;
  else if (dist == extra)
    local += n % nb;
  return local;
}

/// A descriptor entry that ScaLAPACK's p?gemr2d refuses (or divides by zero on).
struct DescriptorFault {
  const char* entry;   ///< ScaLAPACK's name without its underscore: "MB"
  const char* member;  ///< the Descriptor member: "mb"
  index_t value;
  std::string rule;  ///< what the value must be: "must be positive", "must be in 0..1"
};

/// The first entry of d, in descriptor order (M_, N_, MB_, NB_, RSRC_, CSRC_), that
/// p?gemr2d refuses on grid g; nothing when it accepts them all. DTYPE_, CTXT_ and LLD_
/// are not looked at: LLD_ is per process (the placement checks it against LOCr).
/// Example: {dtype = 7, M = 10, N = 10, MB = 2, NB = 2, RSRC = 2, CSRC = 0} on a 2 x 2
/// grid: {"RSRC", "rsrc", 2, "must be in 0..1"}.
inline std::optional<DescriptorFault> descriptor_fault(const Descriptor& d, const Grid& g) {
  const auto inside = [](index_t v, int extent) { return 0 <= v && v < extent; };
  const auto up_to = [](int extent) { return "must be in 0.." + std::to_string(extent - 1); };
  if (d.m < 0) return DescriptorFault{"M", "m", d.m, "must not be negative"};
  if (d.n < 0) return DescriptorFault{"N", "n", d.n, "must not be negative"};
  if (d.mb <= 0) return DescriptorFault{"MB", "mb", d.mb, "must be positive"};
  if (d.nb <= 0) return DescriptorFault{"NB", "nb", d.nb, "must be positive"};
  if (!inside(d.rsrc, g.nprow)) return DescriptorFault{"RSRC", "rsrc", d.rsrc, up_to(g.nprow)};
  if (!inside(d.csrc, g.npcol)) return DescriptorFault{"CSRC", "csrc", d.csrc, up_to(g.npcol)};
  return std::nullopt;
}

}  // namespace redist::scalapack
