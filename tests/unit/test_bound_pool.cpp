// One pool of bound copies (engine/bound_pool.hpp): the room it reserves once a sixteenth
// of its slices are bound holds the rest of a pool whose slices bind alike (no growth by
// doubling after it), a pool that outgrows it still takes every copy, and shrinking leaves
// at most an eighth of a pool spare.
#include <cstddef>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/engine/bound_pool.hpp>

#include <doctest/doctest.h>

using namespace redist;
using Pool = engine::BoundPool<double, Kokkos::HostSpace>;

namespace {

/// Adds slice `done` of `slices` as `copies` copies (a member and an offset each) in a
/// chunk of its own, and closes the chunk, as the binder does.
void add_slice(Pool& p, std::size_t copies, std::size_t done, std::size_t slices) {
  const std::size_t first = p.pool.copies.size();
  for (std::size_t k = 0; k < copies; ++k) {
    p.pool.copies.push_back(StridedCopy<double>{});
    p.pool.members.push_back(ColumnMember{0, 0});
    p.rel.push_back(0);
  }
  p.close_chunk(first, done + 1, slices);
}

}  // namespace

TEST_CASE("bound pool: room extrapolated from the first slices holds the rest") {
  constexpr std::size_t slices = 256, per_slice = 100;
  Pool p;
  p.pool.copies.reserve(slices);  // reserve(): a copy a slice
  const StridedCopy<double>* before = nullptr;
  std::size_t moved_after = 0;  // reallocations after the extrapolation
  for (std::size_t s = 0; s < slices; ++s) {
    add_slice(p, per_slice, s, slices);
    if (16 * (s + 1) >= slices) {
      if (before != nullptr && before != p.pool.copies.data()) ++moved_after;
      before = p.pool.copies.data();
    }
  }
  CHECK(moved_after == 0);
  CHECK(p.pool.copies.size() == slices * per_slice);
  CHECK(p.pool.copies.capacity() <= slices * per_slice * 17 / 16 + per_slice);
  p.shrink();
  CHECK(p.pool.copies.capacity() - p.pool.copies.size() <= p.pool.copies.size() / 8);
  CHECK(p.rel.size() == slices * per_slice);
  CHECK(p.range.size() == slices);
}

TEST_CASE("bound pool: a pool that outgrows its room, and shrinking what is spare") {
  Pool p;
  for (std::size_t s = 0; s < 64; ++s) {
    add_slice(p, s < 4 ? 1 : 50, s, 64);  // the first sixteenth binds small slices
  }
  CHECK(p.pool.copies.size() == 4 + 60 * 50);
  CHECK(p.pool.members.size() == p.pool.copies.size());
  p.shrink();
  CHECK(p.pool.copies.capacity() - p.pool.copies.size() <= p.pool.copies.size() / 8);

  Pool spare;
  spare.pool.copies.reserve(1000);
  add_slice(spare, 100, 0, 1);
  spare.shrink();
  CHECK(spare.pool.copies.capacity() == 100);  // 900 spare: copied into one of its size
  CHECK(spare.pool.copies.size() == 100);
}
