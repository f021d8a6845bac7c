// libFuzzer target for the planner (issue "Robustness", item 4).
//
// Decodes from the input: two tile shapes (uniform or irregular per axis, possibly
// invalid), two distributions (block-cyclic, random, owner table, band, or an unchecked
// user table that may name owners outside the communicator), a region (possibly out of
// bounds), a communicator size and plan options. It then plans every virtual rank and
// checks, by brute force over the (at most 64 x 64) matrix:
//   - invalid input throws a redist::error subtype (anything else escapes: a crash);
//     rank-independent errors (region, options, extents) are thrown by every rank alike;
//   - the segments of all ranks' receive and local lists partition the region exactly,
//     each element coming from the source element the region's shift says, from the rank
//     that owns its source tile, to the rank that owns its target tile;
//   - what rank s sends to rank r is exactly, in order, what r receives from s, in the
//     same messages and batches; message buffers are laid out without overlap;
//   - the statistics add up.
// The same file builds with a replay main (replay_main.cpp) so the corpus runs as an
// ordinary test with any compiler.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <variant>
#include <vector>

#include <redist/distributions/band.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/distributions/owner_table.hpp>
#include <redist/distributions/random.hpp>
#include <redist/error.hpp>
#include <redist/layout.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/region.hpp>
#include <redist/segment.hpp>
#include <redist/tile_shapes/irregular_axis.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>

namespace {

using namespace redist;

/// Oracle failure: print and abort, so libFuzzer saves the input.
#define FUZZ_CHECK(cond)                                                                        \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "fuzz_plan: check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)

/// Reads bytes from the input; past the end it yields zeros.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  /// A small signed value in [lo, lo + span).
  index_t small(index_t lo, index_t span) { return lo + static_cast<index_t>(byte()) % span; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// A TileAxis that is either uniform or irregular (a user model of the concept).
class FuzzAxis {
 public:
  static constexpr index_t static_tile = dynamic_extent;
  explicit FuzzAxis(UniformAxis<> a) : a_(std::move(a)) {}
  explicit FuzzAxis(IrregularAxis a) : a_(std::move(a)) {}
  index_t extent() const {
    return std::visit([](const auto& a) { return a.extent(); }, a_);
  }
  index_t count() const {
    return std::visit([](const auto& a) { return a.count(); }, a_);
  }
  index_t begin(index_t k) const {
    return std::visit([&](const auto& a) { return a.begin(k); }, a_);
  }
  index_t size(index_t k) const {
    return std::visit([&](const auto& a) { return a.size(k); }, a_);
  }
  index_t tile_of(index_t i) const {
    return std::visit([&](const auto& a) { return a.tile_of(i); }, a_);
  }

 private:
  std::variant<UniformAxis<>, IrregularAxis> a_;
};
using Shape = Tiling<FuzzAxis, FuzzAxis>;

/// Extents up to 64; tile extents and boundary steps may be zero or negative (invalid).
FuzzAxis decode_axis(Input& in) {
  const std::uint8_t mode = in.byte();
  if (mode % 2 == 0) {
    const index_t extent = in.small(mode % 16 == 0 ? -2 : 0, 65);
    const index_t tile = in.small(mode % 32 == 0 ? -1 : 1, 20);
    return FuzzAxis(UniformAxis<>(extent, tile));
  }
  const index_t tiles = in.small(0, 9);
  std::vector<index_t> b{mode % 64 == 1 ? in.small(-1, 3) : 0};
  for (index_t k = 0; k < tiles; ++k) {
    const bool bad = mode % 8 == 3 && k == tiles - 1;
    b.push_back(b.back() + (bad ? in.small(-2, 3) : in.small(1, 12)));
  }
  if (mode % 16 == 5) {  // boundaries that may not end at the stated extent
    const index_t extent = b.back() + in.small(-1, 3);
    return FuzzAxis(IrregularAxis(std::move(b), extent));
  }
  return FuzzAxis(IrregularAxis(std::move(b)));
}

/// An unchecked user distribution: owners straight from the input, possibly out of range.
struct RawTable {
  int ranks_ = 1;
  std::vector<int> owners;  ///< indexed by (m * 7 + n) mod size
  int ranks() const { return ranks_; }
  int owner(TileIndex t) const {
    return owners[static_cast<std::size_t>((t.m * 7 + t.n) % static_cast<index_t>(owners.size()))];
  }
};

/// Any of the built-in distributions, or the raw table (a user model of the concept).
class FuzzDistribution {
 public:
  using Any = std::variant<BlockCyclic, RandomDistribution, OwnerTable, BandDistribution, RawTable>;
  explicit FuzzDistribution(Any d) : d_(std::move(d)) {}
  int ranks() const {
    return std::visit([](const auto& d) { return static_cast<int>(d.ranks()); }, d_);
  }
  int owner(TileIndex t) const {
    return std::visit([&](const auto& d) { return static_cast<int>(d.owner(t)); }, d_);
  }

 private:
  Any d_;
};

BlockCyclic decode_block_cyclic(Input& in, int comm) {
  const int P = static_cast<int>(in.small(0, comm + 2)), Q = static_cast<int>(in.small(0, 3));
  const index_t kp = in.small(0, 4), kq = in.small(1, 3);
  const GridCoord first{static_cast<int>(in.small(0, 3)), static_cast<int>(in.small(0, 2))};
  return BlockCyclic(P, Q, kp, kq, first);
}

FuzzDistribution decode_distribution(Input& in, const Shape& s, int comm) {
  switch (in.byte() % 5) {
    case 0:
      return FuzzDistribution(decode_block_cyclic(in, comm));
    case 1: {
      const int ranks = static_cast<int>(in.small(0, comm + 1));
      return FuzzDistribution(RandomDistribution(ranks, in.byte()));
    }
    case 2: {
      const Extents tiles = tile_counts(s);  // a table that covers the tile grid
      const int ranks = static_cast<int>(in.small(1, comm));
      std::vector<int> owners;
      for (index_t k = 0; k < tiles.size(); ++k)
        owners.push_back(static_cast<int>(in.small(0, ranks)));
      return FuzzDistribution(OwnerTable(tiles, std::move(owners), ranks));
    }
    case 3: {
      const index_t width = in.small(0, 4);
      const BlockCyclic band = decode_block_cyclic(in, comm);
      return FuzzDistribution(BandDistribution(width, band, decode_block_cyclic(in, comm)));
    }
    default: {
      RawTable t;
      t.ranks_ = static_cast<int>(in.small(1, comm));
      const index_t n = in.small(1, 16);
      for (index_t k = 0; k < n; ++k)
        t.owners.push_back(static_cast<int>(in.small(-1, comm + 2)));  // -1 and comm: invalid
      return FuzzDistribution(std::move(t));
    }
  }
}

/// The region, usually inside both matrices, sometimes not.
Region decode_region(Input& in, Extents s, Extents d) {
  const std::uint8_t mode = in.byte();
  if (mode % 8 == 0)  // anything, mostly invalid
    return Region{{in.small(-2, 70), in.small(-2, 70)},
                  {in.small(-2, 70), in.small(-2, 70)},
                  {in.small(-2, 70), in.small(-2, 70)}};
  const index_t rows_max = std::min(s.rows, d.rows), cols_max = std::min(s.cols, d.cols);
  const index_t rows = in.small(0, rows_max + 1), cols = in.small(0, cols_max + 1);
  return Region{{rows, cols},
                {in.small(0, s.rows - rows + 1), in.small(0, s.cols - cols + 1)},
                {in.small(0, d.rows - rows + 1), in.small(0, d.cols - cols + 1)}};
}

bool rank_independent(const error& e) {
  return dynamic_cast<const region_error*>(&e) != nullptr ||
         (dynamic_cast<const invalid_argument*>(&e) != nullptr &&
          dynamic_cast<const distribution_error*>(&e) == nullptr &&
          dynamic_cast<const storage_error*>(&e) == nullptr);
}

template <class L>
void check_plans(const L& src, const L& dst, const Region& r, int comm,
                 const std::vector<ReferencePlan>& plans) {
  const Extents se = src.extents(), de = dst.extents();
  FUZZ_CHECK(r.extent.rows >= 0 && r.extent.cols >= 0);
  FUZZ_CHECK(r.src_origin.i >= 0 && r.src_origin.i + r.extent.rows <= se.rows);
  FUZZ_CHECK(r.src_origin.j >= 0 && r.src_origin.j + r.extent.cols <= se.cols);
  FUZZ_CHECK(r.dst_origin.i >= 0 && r.dst_origin.i + r.extent.rows <= de.rows);
  FUZZ_CHECK(r.dst_origin.j >= 0 && r.dst_origin.j + r.extent.cols <= de.cols);
  std::vector<int> cover(static_cast<std::size_t>(r.extent.size()), 0);

  // Every element of a segment: inside both tiles, at the right shift, inside the region.
  const auto visit = [&](const Segment& s, int src_owner, int dst_owner) {
    FUZZ_CHECK(src.owner(s.src_tile) == src_owner);
    FUZZ_CHECK(dst.owner(s.dst_tile) == dst_owner);
    FUZZ_CHECK(s.extent.rows > 0 && s.extent.cols > 0);
    const Extents st = tile_extents(src.shape(), s.src_tile),
                  dt = tile_extents(dst.shape(), s.dst_tile);
    FUZZ_CHECK(s.src_offset.i >= 0 && s.src_offset.i + s.extent.rows <= st.rows);
    FUZZ_CHECK(s.src_offset.j >= 0 && s.src_offset.j + s.extent.cols <= st.cols);
    FUZZ_CHECK(s.dst_offset.i >= 0 && s.dst_offset.i + s.extent.rows <= dt.rows);
    FUZZ_CHECK(s.dst_offset.j >= 0 && s.dst_offset.j + s.extent.cols <= dt.cols);
    const ElementIndex so = tile_origin(src.shape(), s.src_tile),
                       dor = tile_origin(dst.shape(), s.dst_tile);
    for (index_t b = 0; b < s.extent.cols; ++b)
      for (index_t a = 0; a < s.extent.rows; ++a) {
        const ElementIndex se_{so.i + s.src_offset.i + a, so.j + s.src_offset.j + b};
        const ElementIndex de_{dor.i + s.dst_offset.i + a, dor.j + s.dst_offset.j + b};
        FUZZ_CHECK(se_.i - r.src_origin.i == de_.i - r.dst_origin.i);
        FUZZ_CHECK(se_.j - r.src_origin.j == de_.j - r.dst_origin.j);
        const index_t i = de_.i - r.dst_origin.i, j = de_.j - r.dst_origin.j;
        FUZZ_CHECK(0 <= i && i < r.extent.rows && 0 <= j && j < r.extent.cols);
        cover[static_cast<std::size_t>(i + j * r.extent.rows)] += 1;
      }
  };

  for (int rank = 0; rank < comm; ++rank) {
    const ReferencePlan& p = plans[static_cast<std::size_t>(rank)];
    FUZZ_CHECK(p.rank == rank && p.comm_size == comm);
    index_t local = 0, sent = 0, received = 0;
    for (const auto& ps : p.local) {
      FUZZ_CHECK(ps.peer == rank);
      visit(ps.segment, rank, rank);
      local += ps.segment.extent.size();
    }
    for (const auto& ps : p.recv.segments) {
      FUZZ_CHECK(ps.peer != rank && 0 <= ps.peer && ps.peer < comm);
      visit(ps.segment, ps.peer, rank);
      received += ps.segment.extent.size();
    }
    for (const auto& ps : p.send.segments) {
      FUZZ_CHECK(ps.peer != rank && 0 <= ps.peer && ps.peer < comm);
      FUZZ_CHECK(src.owner(ps.segment.src_tile) == rank);
      FUZZ_CHECK(dst.owner(ps.segment.dst_tile) == ps.peer);
      sent += ps.segment.extent.size();
    }
    FUZZ_CHECK(p.stats.elements_local == local);
    FUZZ_CHECK(p.stats.elements_received == received);
    FUZZ_CHECK(p.stats.elements_sent == sent);
    FUZZ_CHECK(p.stats.segments_local == static_cast<index_t>(p.local.size()));
    index_t cats = 0;
    for (index_t c : p.stats.categories) cats += c;
    FUZZ_CHECK(cats == p.stats.dst_tiles);
    // Messages: consecutive segment ranges of one (peer, batch), laid back to back.
    for (const Direction* d : {&p.send, &p.recv}) {
      index_t next = 0;
      FUZZ_CHECK(static_cast<index_t>(d->batch_elements.size()) == p.batches);
      std::vector<index_t> used(d->batch_elements.size(), 0);
      for (const Message& m : d->messages) {
        FUZZ_CHECK(m.first == next && m.count > 0);
        FUZZ_CHECK(0 <= m.batch && m.batch < p.batches);
        FUZZ_CHECK(m.buffer_offset == used[static_cast<std::size_t>(m.batch)]);
        // Column groups back to back; a group's segments stacked, its ld their summed rows.
        index_t off = m.buffer_offset;
        for (index_t s = m.first, end = s; s < m.first + m.count; s = end) {
          const PlannedSegment& head = d->segments[static_cast<std::size_t>(s)];
          index_t rows = 0;
          for (end = s; end < m.first + m.count &&
                        d->segments[static_cast<std::size_t>(end)].col_piece == head.col_piece;
               ++end) {
            const PlannedSegment& ps = d->segments[static_cast<std::size_t>(end)];
            FUZZ_CHECK(ps.peer == m.peer && ps.batch == m.batch);
            FUZZ_CHECK(ps.buffer_offset == off + rows);
            FUZZ_CHECK(ps.segment.extent.cols == head.segment.extent.cols);
            rows += ps.segment.extent.rows;
          }
          for (index_t k = s; k < end; ++k)
            FUZZ_CHECK(d->segments[static_cast<std::size_t>(k)].buffer_ld == rows);
          off += rows * head.segment.extent.cols;
        }
        FUZZ_CHECK(off - m.buffer_offset == m.elements);
        used[static_cast<std::size_t>(m.batch)] += m.elements;
        next += m.count;
      }
      FUZZ_CHECK(next == static_cast<index_t>(d->segments.size()));
      FUZZ_CHECK(used == d->batch_elements);
    }
  }
#ifdef FUZZ_DEBUG
  std::fprintf(stderr,
               "comm %d region %ldx%ld src(%ld,%ld) dst(%ld,%ld) src %ldx%ld tiles %ldx%ld dst "
               "%ldx%ld tiles %ldx%ld\n",
               comm, r.extent.rows, r.extent.cols, r.src_origin.i, r.src_origin.j, r.dst_origin.i,
               r.dst_origin.j, se.rows, se.cols, src.tiles().rows, src.tiles().cols, de.rows,
               de.cols, dst.tiles().rows, dst.tiles().cols);
  for (index_t m = 0; m < dst.tiles().rows; ++m) {
    for (index_t n = 0; n < dst.tiles().cols; ++n) std::fprintf(stderr, "%d ", dst.owner({m, n}));
    std::fprintf(stderr, "| dst ranks %d\n", dst.ranks());
  }
  for (index_t j = 0; j < r.extent.cols; ++j) {
    for (index_t i = 0; i < r.extent.rows; ++i)
      std::fprintf(stderr, "%d", cover[static_cast<std::size_t>(i + j * r.extent.rows)]);
    std::fprintf(stderr, "\n");
  }
#endif
  for (int c : cover) FUZZ_CHECK(c == 1);  // the region, exactly once

  // What s sends to r is what r receives from s: same segments, order, batches, messages.
  for (int s = 0; s < comm; ++s)
    for (int r2 = 0; r2 < comm; ++r2) {
      if (s == r2) continue;
      std::vector<const PlannedSegment*> out, in;
      for (const auto& ps : plans[static_cast<std::size_t>(s)].send.segments)
        if (ps.peer == r2) out.push_back(&ps);
      for (const auto& ps : plans[static_cast<std::size_t>(r2)].recv.segments)
        if (ps.peer == s) in.push_back(&ps);
      FUZZ_CHECK(out.size() == in.size());
      for (std::size_t k = 0; k < out.size(); ++k) {
        FUZZ_CHECK(out[k]->segment == in[k]->segment);
        FUZZ_CHECK(out[k]->batch == in[k]->batch);
      }
      std::vector<Message> mo, mi;
      for (const auto& m : plans[static_cast<std::size_t>(s)].send.messages)
        if (m.peer == r2) mo.push_back(m);
      for (const auto& m : plans[static_cast<std::size_t>(r2)].recv.messages)
        if (m.peer == s) mi.push_back(m);
      FUZZ_CHECK(mo.size() == mi.size());
      for (std::size_t k = 0; k < mo.size(); ++k)
        FUZZ_CHECK(mo[k].batch == mi[k].batch && mo[k].elements == mi[k].elements &&
                   mo[k].count == mi[k].count);
    }
  // Every rank agrees on the batching.
  for (const ReferencePlan& p : plans)
    FUZZ_CHECK(p.batch == plans[0].batch && p.batches == plans[0].batches);
}

void run(Input& in) {
  const int comm = static_cast<int>(in.small(1, 5));
  std::optional<Layout<Shape, FuzzDistribution>> src, dst;
  try {
    Shape ss{decode_axis(in), decode_axis(in)};
    FuzzDistribution sd = decode_distribution(in, ss, comm);
    Shape ds{decode_axis(in), decode_axis(in)};
    FuzzDistribution dd = decode_distribution(in, ds, comm);
    src.emplace(std::move(ss), std::move(sd));
    dst.emplace(std::move(ds), std::move(dd));
  } catch (const redist::error&) {
    return;  // invalid geometry or distribution, rejected with a redist::error
  }
  const Region r = decode_region(in, src->extents(), dst->extents());
  PlanOptions o;
  const std::uint8_t ob = in.byte();
  o.batch = static_cast<index_t>(ob % 5) - (ob % 32 == 31 ? 5 : 0);  // sometimes negative
  o.max_buffer_bytes = static_cast<index_t>(in.byte()) * 64;
  o.element_bytes = static_cast<index_t>(in.byte() % 9);  // 0 is invalid
  // The batches' target (the byte was PlanOptions::max_message_bytes, now an
  // ExecutionOptions member, so stored inputs keep their alignment): automatic, an
  // invalid value, or 0 (off) to 8160 bytes.
  const std::uint8_t tb = in.byte();
  o.batch_bytes = tb == 255 ? PlanOptions::automatic : tb == 254 ? -7 : index_t{tb} * 32;

  std::vector<ReferencePlan> plans;
  int failures = 0, rank_independent_failures = 0;
  for (int rank = 0; rank < comm; ++rank) {
    try {
      plans.push_back(make_reference_plan(*src, *dst, r, rank, comm, o));
    } catch (const redist::error& e) {
      ++failures;
      rank_independent_failures += rank_independent(e);
    }
  }
  // Input checks that do not depend on the rank fail on every rank.
  FUZZ_CHECK(rank_independent_failures == 0 || rank_independent_failures == comm);
  if (failures > 0) return;
  check_plans(*src, *dst, r, comm, plans);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  run(in);
  return 0;
}
