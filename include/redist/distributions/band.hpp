#pragma once
/// @file distributions/band.hpp
/// Band distribution (Cao et al. 2021, section 8.6, Lorapo's TLR Cholesky): tiles
/// near the diagonal, |m - n| < B, are distributed by one block-cyclic grid applied to
/// the shifted index (m - n + B - 1, n), so each band diagonal maps to one grid row;
/// every other tile follows a second block-cyclic grid.
///
/// Example, B = 2: tile (3,3) is band row 1, tile (4,3) band row 2, tile (2,3) band
/// row 0; tile (5,3) is off the band and takes the off-band grid's owner.

#include <redist/distribution.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>

namespace redist {

class BandDistribution {
 public:
  /// Owners are in [0, ranks()) by construction (see OwnersInRange).
  static constexpr bool owners_in_range = true;

  /// @throws distribution_error if band_width <= 0.
  constexpr BandDistribution(index_t band_width, BlockCyclic band, BlockCyclic off_band)
      : width_(band_width), band_(band), off_(off_band) {
    if (band_width <= 0)
      throw distribution_error(detail::describe("band width must be positive", "B", band_width));
  }

  constexpr int ranks() const {
    return band_.ranks() > off_.ranks() ? band_.ranks() : off_.ranks();
  }
  constexpr index_t band_width() const { return width_; }
  constexpr bool in_band(TileIndex t) const {
    const index_t d = t.m - t.n;
    return d < width_ && -d < width_;
  }
  constexpr int owner(TileIndex t) const {
    return in_band(t) ? band_.owner({t.m - t.n + width_ - 1, t.n}) : off_.owner(t);
  }
  /// Exact: band width and both grids (fingerprint.hpp).
  constexpr std::uint64_t fingerprint() const {
    return detail::Hasher(0x42414E44ull)  // "BAND"
        .add(width_)
        .add(band_.fingerprint())
        .add(off_.fingerprint())
        .value();
  }
  friend constexpr bool operator==(const BandDistribution&, const BandDistribution&) = default;

 private:
  index_t width_;
  BlockCyclic band_;
  BlockCyclic off_;
};

}  // namespace redist
