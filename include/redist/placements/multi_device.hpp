#pragma once
/// @file placements/multi_device.hpp
/// Multi-device placement within a rank (Bouteiller et al., sections 3 and 4): a rank's
/// tiles live in one of G allocations, one per device, chosen tile by tile. The storage
/// map names the device of every tile (TileSlot::allocation == device), and the executor
/// writes received data straight into that slot: no staging through another allocation
/// (the "user-directed accelerator-memory placement" of received data, their section 3.2).
/// Inside a device's allocation the tiles are packed back to back, column-major tile
/// order, ld = the tile's rows. Models Placement for any layout.
///
/// | rule                      | device of tile (m, n)                                     |
/// |---------------------------|-----------------------------------------------------------|
/// | row_cyclic(G)             | m mod G (their GEMM rule; with a P x Q block-cyclic       |
/// |                           | distribution the rank is (m mod P, n mod Q))              |
/// | two_level(P, Q, GP, GQ)   | ((m / P) mod GP) * GQ + (n / Q) mod GQ (their POTRF rule; |
/// |                           | G = GP x GQ devices, a second 2-D cyclic level)           |
/// | random(G, seed)           | a seeded hash of (m, n), the same on every run and rank   |
/// | load_based(G, skew)       | tiles in column-major order: keep a tile with its input,  |
/// |                           | the device of the last placed tile of its row (else its   |
/// |                           | column), unless that device's load exceeds the balanced   |
/// |                           | load by more than (1 - skew) / skew; then the least loaded|
/// |                           | device. skew = 0: always with its input (most reuse);     |
/// |                           | skew = 1: always least loaded. Load = elements. The       |
/// |                           | paper's default, 20% over the balance, is skew = 1/1.2.   |
/// | user(G, f)                | f(tile, rank), in [0, G)                                  |
///
/// Note on row_cyclic: when gcd(P, G) > 1 a rank's tile rows (m = p + kP) meet only some
/// devices (P = G = 2: one device per rank); two_level(P, Q, G, 1) divides by P first.
///
/// Memory spaces: TiledMatrix holds allocations of one Kokkos memory space, so the G
/// allocations are G allocations of `MemorySpace` (G arenas on one device, or in host
/// memory); placing each on its own GPU needs one Kokkos device instance per allocation,
/// which TiledMatrix does not have yet. The device choice, the storage map and the direct
/// receive are what this placement provides.

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/distribution.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/placement.hpp>
#include <redist/placements/tile_allocations.hpp>

namespace redist {

/// Which rule a MultiDevice placement follows (see the table in multi_device.hpp).
enum class DeviceRule { row_cyclic, two_level, random, load_based, user };

template <class MemorySpace = Kokkos::HostSpace>
class MultiDevice {
 public:
  using memory_space = MemorySpace;
  /// The user rule: the device of owned tile t on rank `rank`, in [0, G).
  using DeviceFunction = std::function<int(TileIndex t, int rank)>;

  /// Device m mod G. @throws invalid_argument if G < 1.
  static MultiDevice row_cyclic(int G) { return MultiDevice(DeviceRule::row_cyclic, G); }
  /// Device ((m / P) mod GP) * GQ + (n / Q) mod GQ of GP x GQ devices.
  /// @throws invalid_argument if a parameter is below 1.
  static MultiDevice two_level(int P, int Q, int GP, int GQ) {
    detail::require<invalid_argument>(P >= 1, "grid rows must be positive", "P", P);
    detail::require<invalid_argument>(Q >= 1, "grid columns must be positive", "Q", Q);
    detail::require<invalid_argument>(GP >= 1, "device grid rows must be positive", "GP", GP);
    detail::require<invalid_argument>(GQ >= 1, "device grid columns must be positive", "GQ", GQ);
    MultiDevice d(DeviceRule::two_level,
                  detail::checked_mul_int<invalid_argument>(GP, GQ, "GP * GQ"));
    d.P_ = P, d.Q_ = Q, d.GP_ = GP, d.GQ_ = GQ;
    return d;
  }
  /// A seeded hash of the tile over G devices. @throws invalid_argument if G < 1.
  static MultiDevice random(int G, std::uint64_t seed) {
    MultiDevice d(DeviceRule::random, G);
    d.seed_ = seed;
    return d;
  }
  /// Load-based with skew in [0, 1]. @throws invalid_argument if G < 1 or skew outside
  /// [0, 1].
  static MultiDevice load_based(int G, double skew) {
    if (!(skew >= 0 && skew <= 1))
      throw invalid_argument(detail::describe("skew must be in [0, 1]", "skew", skew));
    MultiDevice d(DeviceRule::load_based, G);
    d.skew_ = skew;
    return d;
  }
  /// The user's function. @throws invalid_argument if G < 1 or f is empty.
  static MultiDevice user(int G, DeviceFunction f) {
    detail::require<invalid_argument>(static_cast<bool>(f), "a device function is needed", "f",
                                      "empty");
    MultiDevice d(DeviceRule::user, G);
    d.user_ = std::move(f);
    return d;
  }

  int devices() const { return G_; }
  DeviceRule rule() const { return rule_; }
  double skew() const { return skew_; }

  /// The device of every tile rank `rank` owns, column-major tile order.
  /// @throws storage_error if the user function returns a device outside [0, G).
  template <class L>
  std::vector<std::pair<TileIndex, int>> assign(const L& layout, int rank) const {
    std::vector<std::pair<TileIndex, int>> out;
    std::vector<index_t> load(static_cast<std::size_t>(G_), 0);
    std::unordered_map<index_t, int> row_last;  // load_based: last device of each tile row
    index_t column = -1, total = 0;
    int column_last = -1;
    const RandomDistribution hash(G_, seed_);
    for_each_owned_tile(layout.distribution(), rank, layout.all_tiles(), [&](TileIndex t) {
      int g = 0;
      switch (rule_) {
        case DeviceRule::row_cyclic:
          g = static_cast<int>(t.m % G_);
          break;
        case DeviceRule::two_level:
          g = static_cast<int>((t.m / P_) % GP_) * GQ_ + static_cast<int>((t.n / Q_) % GQ_);
          break;
        case DeviceRule::random:
          g = hash.owner(t);
          break;
        case DeviceRule::user:
          g = user_(t, rank);
          if (g < 0 || g >= G_)
            throw storage_error(detail::describe("device function returned a device outside "
                                                 "[0, G)",
                                                 "device", g) +
                                " (tile (" + std::to_string(t.m) + ", " + std::to_string(t.n) +
                                "), G = " + std::to_string(G_) + ")");
          break;
        case DeviceRule::load_based: {
          if (t.n != column) column = t.n, column_last = -1;
          const index_t e = tile_extents(layout.shape(), t).size();
          const auto it = row_last.find(t.m);
          const int input = it != row_last.end() ? it->second : column_last;
          g = least_loaded(load);
          if (input >= 0 && skew_ < 1) {
            // Balanced load after this tile; keep it with its input within the tolerance.
            const double balanced = static_cast<double>(total + e) / G_;
            const double limit = skew_ <= 0 ? -1 : balanced * (1 + (1 - skew_) / skew_);
            if (limit < 0 ||
                static_cast<double>(load[static_cast<std::size_t>(input)] + e) <= limit)
              g = input;
          }
          load[static_cast<std::size_t>(g)] += e;
          total += e;
          row_last[t.m] = g;
          column_last = g;
          break;
        }
      }
      out.emplace_back(t, g);
    });
    return out;
  }

  /// G allocations; each owned tile packed into its device's allocation.
  template <class L>
  StorageMap map(const L& layout, int rank) const {
    // One device of a rule that cannot fail: the tiles packed as PackedTiles packs them.
    if (G_ == 1 && rule_ != DeviceRule::user)
      if (auto local = detail::packed_local_matrix(layout, rank)) return std::move(*local);
    const auto tiles = assign(layout, rank);
    std::vector<index_t> size(static_cast<std::size_t>(G_), 0);
    std::vector<TileSlot> slots;
    slots.reserve(tiles.size());
    for (const auto& [t, g] : tiles) {
      const Extents e = tile_extents(layout.shape(), t);
      auto& at = size[static_cast<std::size_t>(g)];
      slots.push_back(TileSlot{g, at, e.rows > 0 ? e.rows : 1});
      at = detail::checked_add(at, detail::checked_mul(e.rows, e.cols, "tile elements"),
                               "allocation elements");
    }
    StorageMap map;
    for (index_t n : size) map.add_allocation(n);
    for (std::size_t k = 0; k < tiles.size(); ++k) map.add_tile(tiles[k].first, slots[k]);
    return map;
  }

 private:
  MultiDevice(DeviceRule rule, int G) : rule_(rule), G_(G) {
    detail::require<invalid_argument>(G >= 1, "device count must be positive", "G", G);
  }
  static int least_loaded(const std::vector<index_t>& load) {
    std::size_t best = 0;
    for (std::size_t g = 1; g < load.size(); ++g)
      if (load[g] < load[best]) best = g;
    return static_cast<int>(best);
  }

  DeviceRule rule_;
  int G_;
  int P_ = 1, Q_ = 1, GP_ = 1, GQ_ = 1;
  std::uint64_t seed_ = 0;
  double skew_ = 0.2;
  DeviceFunction user_;
};

}  // namespace redist
