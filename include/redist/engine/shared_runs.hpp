#pragma once
/// @file engine/shared_runs.hpp
/// The runs already bound into a copy pool, shared between the slices whose rows are the
/// same (engine/bind_copies.hpp looks them up before binding a slice's runs), and how a
/// binding cuts them for a device or the host.

#include <cstddef>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <redist/copy/strided_copy.hpp>
#include <redist/index.hpp>

namespace redist::engine {

/// The runs of a slice whose sides separate depend on its families' rows and its two sides,
/// not on its column members: slices whose families have the same rows at the same places
/// between the same sides share them in the pool, whichever message or batch they are in.
/// Without sharing, every slice of a message listed every row member again (1 x 1 tiles at
/// 16384^2: 256 slices a message, 8192 runs each), and every batch its messages' again.
///
/// A device and the host want copies cut differently (`for_device`): there a warp takes a
/// run, and short runs or small copies leave the device idle.
/// - The row pieces of a copy come family by family, and family k holds every period's
///   k-th piece. Pieces that continue each other on both sides merge into one run only when
///   taken in target order, as a device wants. The host keeps the families' order: its
///   streaming stores ran faster into interleaved pieces than into one long run
///   (bench/README.md, "Device copies").
/// - A peer's source read in place binds one copy a slice where its segments separate
///   (engine/separated_source.hpp), as a device wants; the host binds it segment by segment.
///
/// Slices of the same families (a message's chunks cut one family block by columns) are
/// found by the block itself first (SliceKey), before their rows are listed as a Key: case
/// a at 16384^2 binds 4096 slices a rank, and listing, copying and comparing their rows
/// was most of the binding's time.
class SharedRuns {
 public:
  explicit SharedRuns(bool for_device = false) : for_device_(for_device) {}
  bool target_order() const { return for_device_; }
  bool separates_peer_sources() const { return for_device_; }
  /// (the slice's rows: per family its part, row group, first member, members and row
  /// offset from the first family; source base and ld; target base and ld); a message
  /// buffer is (null, 0).
  using Key = std::tuple<std::vector<index_t>, const void*, index_t, const void*, index_t>;
  /// A slice's family block [family, family_end) of one FamilyList between two sides (base
  /// and ld, as in Key), and whether a side lists its rows slice by slice (separated, which
  /// Key marks by the block): the same block has the same rows, so the same Key.
  struct SliceKey {
    const void* families;
    std::size_t family, family_end;
    const void* src;
    index_t src_ld;
    const void* dst;
    index_t dst_ld;
    bool separated;
    bool operator==(const SliceKey&) const = default;
  };

  /// The runs (first run, runs) of a slice of `block`: those bound for the block, else for
  /// its rows (`rows_key()` makes its Key), else those `bind()` appends to the pool and
  /// returns; kept under both keys.
  template <class RowsKey, class Bind>
  std::pair<index_t, index_t> runs(const SliceKey& block, RowsKey&& rows_key, Bind&& bind) {
    if (const auto it = blocks_.find(block); it != blocks_.end()) return it->second;
    Key key = rows_key();
    const auto it = runs_.find(key);
    const std::pair<index_t, index_t> bound = it != runs_.end() ? it->second : bind();
    if (it == runs_.end()) runs_.emplace(std::move(key), bound);
    blocks_.emplace(block, bound);
    return bound;
  }
  /// Room for one copy's row pieces before they become runs, kept between slices.
  std::vector<RowRun>& scratch() { return scratch_; }

 private:
  struct SliceHash {
    std::size_t operator()(const SliceKey& k) const {
      std::size_t h = std::hash<const void*>{}(k.families);
      for (const std::size_t x :
           {k.family, k.family_end, std::hash<const void*>{}(k.src),
            static_cast<std::size_t>(k.src_ld), std::hash<const void*>{}(k.dst),
            static_cast<std::size_t>(k.dst_ld), static_cast<std::size_t>(k.separated)})
        h = (h ^ x) * 0x100000001b3ULL;
      return h;
    }
  };
  std::map<Key, std::pair<index_t, index_t>> runs_;
  std::unordered_map<SliceKey, std::pair<index_t, index_t>, SliceHash> blocks_;
  std::vector<RowRun> scratch_;
  bool for_device_ = false;
};

}  // namespace redist::engine
