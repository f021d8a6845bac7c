#pragma once
/// @file fingerprint.hpp
/// 64-bit fingerprints of what every rank must pass identically to a collective
/// redistribution: the tilings, the distributions, the storage kinds, the region, the
/// element size and the options. Pure (no MPI); detail/agreement.hpp compares them across
/// ranks, so a rank that passes something else makes every rank throw agreement_error
/// instead of hanging or moving wrong data.
///
/// | what           | fingerprint                                                          |
/// |----------------|----------------------------------------------------------------------|
/// | TileAxis a     | `a.fingerprint()` if it has one (UniformAxis, IrregularAxis: exact), |
/// |                | else extent, count and begin(k) of up to 4096 tiles spread evenly    |
/// | TileShape s    | `s.fingerprint()` if it has one, else both axes                      |
/// | Distribution d | `d.fingerprint()` if it has one (every built-in model: exact), else  |
/// |                | ranks() and owner() of at most 4096 tiles spread evenly over the     |
/// |                | tiles the region touches, corners included: exact up to 4096 touched |
/// |                | tiles, beyond that a difference between the samples goes unnoticed   |
/// |                | (docs/custom-distribution.md)                                        |
/// | Placement p    | `p.fingerprint()` if it has one, else its type (a leading dimension  |
/// |                | is per rank in ScaLAPACK, so it is not compared)                     |
/// | Region r       | its six numbers                                                      |
///
/// A hook is a const member `fingerprint()` returning something convertible to
/// std::uint64_t, equal on two ranks exactly when the values must be treated as equal.
/// Fingerprints are stable within one build, not across compilers or versions.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <redist/distribution.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/tile_shape.hpp>

namespace redist {

/// A value that fingerprints itself (the optional hook on tilings, distributions,
/// placements).
template <class T>
concept HasFingerprint = requires(const T& x) {
  { x.fingerprint() } -> std::convertible_to<std::uint64_t>;
};

namespace detail {

/// An order-sensitive 64-bit hash of a sequence of integers and strings (splitmix64's
/// finaliser after each word). Not cryptographic: it detects mistakes, not adversaries.
class Hasher {
 public:
  constexpr explicit Hasher(std::uint64_t seed = 0x6A09E667F3BCC909ull) : h_(seed) {}
  constexpr Hasher& add(std::uint64_t v) {
    h_ = mix(h_ ^ mix(v + 0x9E3779B97F4A7C15ull));
    return *this;
  }
  constexpr Hasher& add(std::int64_t v) { return add(static_cast<std::uint64_t>(v)); }
  constexpr Hasher& add(int v) {
    return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  }
  constexpr Hasher& add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      word = (word << 8) | static_cast<unsigned char>(s[k]);
      if (k % 8 == 7) add(word), word = 0;
    }
    return add(word);
  }
  constexpr std::uint64_t value() const { return h_; }

  static constexpr std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t h_;
};

/// The compiler's spelling of T (stable within one build; no RTTI needed).
template <class T>
constexpr std::string_view type_name() {
  return __PRETTY_FUNCTION__;
}

/// The k-th of `samples` indices spread evenly over [0, count), first and last included.
/// @pre 0 <= k < samples <= count.
constexpr index_t spread(index_t k, index_t samples, index_t count) {
  if (samples <= 1) return 0;
  __extension__ using u128 = unsigned __int128;  // k * (count - 1) overflows 64 bits
  return static_cast<index_t>(static_cast<u128>(k) * static_cast<u128>(count - 1) /
                              static_cast<u128>(samples - 1));
}

/// How many tiles the fallback fingerprints sample, at most.
inline constexpr index_t fingerprint_samples = 4096;

}  // namespace detail

/// Fingerprint of one axis tiling: its hook, else extent, count and a sample of tile
/// boundaries (exact up to 4096 tiles).
template <TileAxis A>
constexpr std::uint64_t axis_fingerprint(const A& a) {
  if constexpr (HasFingerprint<A>) {
    return static_cast<std::uint64_t>(a.fingerprint());
  } else {
    detail::Hasher h;
    h.add(a.extent()).add(a.count());
    const index_t count = a.count();
    const index_t samples =
        count < detail::fingerprint_samples ? count : detail::fingerprint_samples;
    for (index_t k = 0; k < samples; ++k) h.add(a.begin(detail::spread(k, samples, count)));
    return h.value();
  }
}

/// Fingerprint of a tiling: its hook, else both axes.
template <TileShape S>
constexpr std::uint64_t tiling_fingerprint(const S& s) {
  if constexpr (HasFingerprint<S>) {
    return static_cast<std::uint64_t>(s.fingerprint());
  } else {
    return detail::Hasher(0x5449'4C49'4E47ull)  // "TILING"
        .add(axis_fingerprint(s.rows()))
        .add(axis_fingerprint(s.cols()))
        .value();
  }
}

/// Fingerprint of a distribution on the tiles of `box` (those a redistribution touches):
/// its hook, else ranks() and owner() of at most 4096 tiles on an even lattice over the
/// box, corners included (every tile when the box has at most 4096). O(4096) owner()
/// calls; tiles outside the box are never asked for their owner.
template <Distribution D>
std::uint64_t distribution_fingerprint(const D& d, TileBox box) {
  if constexpr (HasFingerprint<D>) {
    return static_cast<std::uint64_t>(d.fingerprint());
  } else {
    detail::Hasher h(0x4449'5354ull);  // "DIST"
    h.add(static_cast<int>(d.ranks()));
    if (box.empty()) return h.value();
    const index_t m = box.end.m - box.begin.m, n = box.end.n - box.begin.n;
    h.add(box.begin.m).add(box.begin.n).add(m).add(n);
    // Rows first get up to 64 samples; columns take what the budget leaves, so a thin box
    // (e.g. 2 x 2000 tiles) is still sampled whole.
    const index_t budget = detail::fingerprint_samples;
    index_t rows = m < 64 ? m : 64;
    const index_t cols = budget / rows < n ? budget / rows : n;
    if (rows < budget / cols) rows = m < budget / cols ? m : budget / cols;
    for (index_t b = 0; b < cols; ++b)
      for (index_t a = 0; a < rows; ++a)
        h.add(static_cast<int>(d.owner(TileIndex{box.begin.m + detail::spread(a, rows, m),
                                                 box.begin.n + detail::spread(b, cols, n)})));
    return h.value();
  }
}

namespace detail {
/// The tiles of shape s that the rectangle of `extent` elements at `origin` touches (empty
/// for an empty rectangle). @pre the rectangle lies inside s.
template <TileShape S>
constexpr TileBox touched_tiles(const S& s, ElementIndex origin, Extents extent) {
  if (extent.rows <= 0 || extent.cols <= 0) return {};
  return {{s.rows().tile_of(origin.i), s.cols().tile_of(origin.j)},
          {s.rows().tile_of(origin.i + extent.rows - 1) + 1,
           s.cols().tile_of(origin.j + extent.cols - 1) + 1}};
}
}  // namespace detail

/// Fingerprint of a placement: its hook, else its type (storage kind and memory space).
template <class P>
constexpr std::uint64_t placement_fingerprint(const P& p) {
  if constexpr (HasFingerprint<P>) {
    return static_cast<std::uint64_t>(p.fingerprint());
  } else {
    // A constant: hashing the type's name costs as much as the rest of an agreement item.
    constexpr std::uint64_t h =
        detail::Hasher(0x504C'4143ull).add(detail::type_name<P>()).value();  // "PLAC"
    return h;
  }
}

/// Fingerprint of a region: extents and both origins.
constexpr std::uint64_t region_fingerprint(const Region& r) {
  return detail::Hasher(0x5245'4749'4F4Eull)  // "REGION"
      .add(r.extent.rows)
      .add(r.extent.cols)
      .add(r.src_origin.i)
      .add(r.src_origin.j)
      .add(r.dst_origin.i)
      .add(r.dst_origin.j)
      .value();
}

/// One thing every rank must pass identically: a name for messages ("the region",
/// "PlanOptions::batch") and a 64-bit value. `shows_value`: the value is a number the
/// user gave (an option), so a disagreement message prints it; otherwise a fingerprint.
struct AgreementItem {
  std::string name;
  std::uint64_t value = 0;
  bool shows_value = false;
};

/// An item holding a number itself (an option), printed when ranks disagree.
inline AgreementItem value_item(std::string name, index_t v) {
  return {std::move(name), static_cast<std::uint64_t>(v), true};
}

namespace detail {
/// ExecutionOptions (execution_options.hpp) as agreement items, one per member. A
/// template so that this header does not depend on that one.
template <class Options>
requires requires(const Options& o) {
  o.chunk_bytes;
  o.streaming;
  o.streaming_threshold_bytes;
  o.shared_window;
  o.transport;
  o.gpu_aware_mpi;
  o.inter_node_schedule;
  o.progress_timeout_seconds;
}
std::vector<AgreementItem> execution_items(const Options& o) {
  return {
      value_item("ExecutionOptions::chunk_bytes", static_cast<index_t>(o.chunk_bytes)),
      value_item("ExecutionOptions::streaming", static_cast<index_t>(o.streaming)),
      value_item("ExecutionOptions::streaming_threshold_bytes",
                 static_cast<index_t>(o.streaming_threshold_bytes)),
      value_item("ExecutionOptions::shared_window", static_cast<index_t>(o.shared_window)),
      value_item("ExecutionOptions::transport", static_cast<index_t>(o.transport)),
      value_item("ExecutionOptions::gpu_aware_mpi", static_cast<index_t>(o.gpu_aware_mpi)),
      value_item("ExecutionOptions::inter_node_schedule",
                 static_cast<index_t>(o.inter_node_schedule)),
      // In microseconds: the value shown when ranks differ stays an integer.
      value_item("ExecutionOptions::progress_timeout_seconds (us)",
                 static_cast<index_t>(o.progress_timeout_seconds * 1e6)),
  };
}
}  // namespace detail

}  // namespace redist
