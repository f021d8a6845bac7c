// A pack swept with the local parts that follow it (engine/fused_sweeps.hpp), on pools
// built by hand in case a's pattern: each column of an M x N source (ld M + 3) goes in runs
// of R rows alternately to a peer (packed into a buffer) and to this rank's target. The
// sweep must write what the pack and the parts write run one after the other, through the
// parts' scaling; elements outside the copies stay as they were; parts that follow no
// chunk, and chunks that no part follows, are left to their own programs.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/host_primitives.hpp>
#include <redist/copy/run_copies.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/engine/fused_sweeps.hpp>
#include <redist/transform_op.hpp>

#include <doctest/doctest.h>

using namespace redist;
using engine::FusedSweeps;
using Range = FusedSweeps<double>::Range;

namespace {

constexpr index_t M = 400, R = 25, N = 12, lds = M + 3;  // runs of 200 B: streamed in part
constexpr double untouched = -1;

double source_value(index_t i, index_t j) {
  return 1000.0 * static_cast<double>(j) + static_cast<double>(i);
}

/// The copies of columns [first, first + cols) that keep run parity `parity` (0: the
/// peer's runs, packed column after column into `buffer`; 1: this rank's, into `target`
/// at the same rows, ld M + 1), of rows [row_begin, row_end).
void add_copy(CopyPool<double>& pool, const double* src, double* out, index_t first, index_t cols,
              int parity, bool packed, index_t row_begin = 0, index_t row_end = M) {
  StridedCopy<double> c;
  c.run_first = static_cast<index_t>(pool.runs.size());
  index_t packed_rows = 0;
  for (index_t r = parity; r * R < M; r += 2) {
    if (r * R >= row_begin && r * R < row_end)
      pool.runs.push_back(RowRun{r * R, packed ? packed_rows : r * R, R});
    packed_rows += R;
  }
  c.runs = static_cast<index_t>(pool.runs.size()) - c.run_first;
  c.member_first = static_cast<index_t>(pool.members.size());
  pool.members.push_back(ColumnMember{first * lds, packed ? 0 : first * (M + 1)});
  c.members = 1;
  c.col_len = cols;
  c.src = src;
  c.dst = out;
  c.lds = lds;
  c.ldd = packed ? packed_rows : M + 1;
  pool.copies.push_back(c);
}

struct Case {
  std::vector<double> src = std::vector<double>(static_cast<std::size_t>(lds * N));
  std::vector<double> buffer;  // chunk c's columns at c * 4 * (M / 2)
  std::vector<double> target =
      std::vector<double>(static_cast<std::size_t>((M + 1) * N), untouched);
  CopyPool<double> send, local;
  std::vector<Range> packs, parts;

  // Three chunks of 4 columns each; local parts of 2 columns (six of them), each one copy,
  // or with `split_rows` two: the column's upper and lower runs.
  explicit Case(bool split_rows = false)
      : buffer(static_cast<std::size_t>(3 * 4 * (M / 2) + 7), untouched) {
    for (index_t j = 0; j < N; ++j)
      for (index_t i = 0; i < M; ++i)
        src[static_cast<std::size_t>(i + j * lds)] = source_value(i, j);
    for (index_t c = 0; c < 3; ++c) {
      packs.emplace_back(send.copies.size(), send.copies.size() + 1);
      add_copy(send, src.data(), buffer.data() + c * 4 * (M / 2), 4 * c, 4, 0, true);
    }
    for (index_t p = 0; p < 6; ++p) {
      const std::size_t first = local.copies.size();
      if (split_rows) {
        add_copy(local, src.data(), target.data(), 2 * p, 2, 1, false, 0, M / 2);
        add_copy(local, src.data(), target.data(), 2 * p, 2, 1, false, M / 2, M);
      } else {
        add_copy(local, src.data(), target.data(), 2 * p, 2, 1, false);
      }
      parts.emplace_back(first, local.copies.size());
    }
  }

  /// Parts 2k and 2k + 1 follow chunk k; every chunk's sweep run. Wrong elements, each
  /// local element written as alpha * source.
  long errors_after_sweeping_all(double alpha) {
    const std::vector<std::size_t> follows = {0, 0, 1, 1, 2, 2};
    const FusedSweeps<double> sweeps(send, packs, local, parts, follows);
    const Kokkos::DefaultHostExecutionSpace exec;
    for (std::size_t c = 0; c < 3; ++c) sweeps.run(exec, c, send, local);
    exec.fence();
    redist::detail::streaming_fence();
    return errors({0, 1, 2}, {0, 1, 2, 3, 4, 5}, alpha);
  }

  /// Wrong elements of buffer and target after packing `chunks` and copying `copied`
  /// parts, each local element written as alpha * source.
  long errors(const std::vector<index_t>& chunks, const std::vector<index_t>& copied,
              double alpha) const {
    std::vector<double> want_buffer(buffer.size(), untouched);
    std::vector<double> want_target(target.size(), untouched);
    for (const index_t c : chunks)
      for (index_t j = 4 * c; j < 4 * c + 4; ++j)
        for (index_t i = 0; i < M; ++i)
          if ((i / R) % 2 == 0)
            want_buffer[static_cast<std::size_t>(c * 4 * (M / 2) + (j - 4 * c) * (M / 2) +
                                                 (i / (2 * R)) * R + i % R)] = source_value(i, j);
    for (const index_t p : copied)
      for (index_t j = 2 * p; j < 2 * p + 2; ++j)
        for (index_t i = 0; i < M; ++i)
          if ((i / R) % 2 == 1)
            want_target[static_cast<std::size_t>(i + j * (M + 1))] = alpha * source_value(i, j);
    long bad = 0;
    for (std::size_t k = 0; k < buffer.size(); ++k) bad += buffer[k] != want_buffer[k];
    for (std::size_t k = 0; k < target.size(); ++k) bad += target[k] != want_target[k];
    return bad;
  }
};

}  // namespace

TEST_CASE("fused sweeps: a pack and the parts that follow it, in one sweep") {
  Case x;
  // Parts 0 and 1 read chunk 0's columns, 2 and 3 chunk 1's; parts 4 and 5 follow none.
  const std::vector<std::size_t> follows = {0, 0, 1, 1, SIZE_MAX, SIZE_MAX};
  const FusedSweeps<double> sweeps(x.send, x.packs, x.local, x.parts, follows);
  CHECK(sweeps.sweeps(0));
  CHECK(sweeps.sweeps(1));
  CHECK_FALSE(sweeps.sweeps(2));  // no part follows it
  CHECK_FALSE(sweeps.sweeps(3));  // out of range
  for (std::size_t p = 0; p < 6; ++p) CHECK(sweeps.swept(p) == (p < 4));
  CHECK(sweeps.memory_bytes() > 0);

  const Kokkos::DefaultHostExecutionSpace exec;
  sweeps.run(exec, 0, x.send, x.local);
  exec.fence();
  CHECK(x.errors({0}, {0, 1}, 1.0) == 0);
  sweeps.run(exec, 1, x.send, x.local);
  // What is not swept runs its own programs.
  run_copies(exec, x.send, x.packs[2].first, x.packs[2].second);
  for (std::size_t p = 4; p < 6; ++p)
    run_copies(exec, x.local, x.parts[p].first, x.parts[p].second);
  exec.fence();
  CHECK(x.errors({0, 1, 2}, {0, 1, 2, 3, 4, 5}, 1.0) == 0);
}

TEST_CASE("fused sweeps: the local parts' elements go through their pool's scaling") {
  Case x;
  x.local.op = ElementOp<double>(Transform<double>{Op::none, 2.0, 0.0});
  // Packs stay plain copies; the target gets alpha * source.
  CHECK(x.errors_after_sweeping_all(2.0) == 0);
}

TEST_CASE("fused sweeps: a column read by three copies, merged run by run") {
  Case x(true);  // per column: the pack, the part's upper runs, its lower runs
  CHECK(x.errors_after_sweeping_all(1.0) == 0);
}

TEST_CASE("fused sweeps: streaming stores into the target write the same elements") {
  Case x;
  for (auto& c : x.local.copies) c.streaming = true;
  CHECK(x.errors_after_sweeping_all(1.0) == 0);
}

TEST_CASE("fused sweeps: stitched stores (a push's) write the same elements") {
  // The pack's runs of 25 doubles continue each other in its buffer, meeting mid-line, as a
  // push's do in the peer's target; the parts' runs leave gaps between them.
  for (const bool parts_too : {false, true}) {
    Case x;
    for (auto& c : x.send.copies) c.streaming = c.stitched = true;
    if (parts_too)
      for (auto& c : x.local.copies) c.streaming = c.stitched = true;
    CHECK(x.errors_after_sweeping_all(1.0) == 0);
  }
  Case split(true);  // three copies merged a column, each stitched on its own
  for (auto* pool : {&split.send, &split.local})
    for (auto& c : pool->copies) c.streaming = c.stitched = true;
  CHECK(split.errors_after_sweeping_all(1.0) == 0);
}

TEST_CASE("fused sweeps: nothing follows, nothing sweeps") {
  Case x;
  const FusedSweeps<double> none(x.send, x.packs, x.local, x.parts,
                                 std::vector<std::size_t>(6, SIZE_MAX));
  for (std::size_t c = 0; c < 3; ++c) CHECK_FALSE(none.sweeps(c));
  for (std::size_t p = 0; p < 6; ++p) CHECK_FALSE(none.swept(p));
  const FusedSweeps<double> empty;
  CHECK_FALSE(empty.sweeps(0));
  CHECK_FALSE(empty.swept(0));
}

namespace {

/// Pools built from column members of any shape: packs with members spread cyclically over
/// the columns, local parts of other widths cut into row bands, some reading a second
/// source of another leading dimension. Swept fused or run copy by copy, every element
/// must come out the same.
struct Members {
  static constexpr index_t rows = 200, cols = 37, run = 10;
  static constexpr index_t ld1 = rows + 3, ld2 = rows + 5, ldt = rows + 1;
  std::vector<double> src1, src2;
  CopyPool<double> send, local;
  std::vector<Range> packs, parts;
  index_t buffer_elements = 0;

  Members()
      : src1(static_cast<std::size_t>(ld1 * cols)), src2(static_cast<std::size_t>(ld2 * cols)) {
    for (index_t j = 0; j < cols; ++j)
      for (index_t i = 0; i < rows; ++i) {
        src1[static_cast<std::size_t>(i + j * ld1)] = source_value(i, j);
        src2[static_cast<std::size_t>(i + j * ld2)] = -source_value(i, j);
      }
  }

  /// A copy of the runs of parity `parity` in rows [row_begin, row_end) of the columns
  /// `firsts[m] + [0, col_len)`; packed: into the buffer at `buffer_elements`, else into the
  /// target at the same place (ld ldt).
  void add(CopyPool<double>& pool, const double* src, index_t ld,
           const std::vector<index_t>& firsts, index_t col_len, int parity, bool packed,
           index_t row_begin, index_t row_end) {
    StridedCopy<double> c;
    c.run_first = static_cast<index_t>(pool.runs.size());
    index_t packed_rows = 0;
    for (index_t r = parity; r * run < rows; r += 2)
      if (r * run >= row_begin && r * run < row_end) {
        pool.runs.push_back(RowRun{r * run, packed ? packed_rows : r * run, run});
        packed_rows += run;
      }
    c.runs = static_cast<index_t>(pool.runs.size()) - c.run_first;
    c.member_first = static_cast<index_t>(pool.members.size());
    for (std::size_t m = 0; m < firsts.size(); ++m)
      pool.members.push_back(ColumnMember{
          firsts[m] * ld, packed ? static_cast<index_t>(m) * col_len * packed_rows + buffer_elements
                                 : firsts[m] * ldt});
    if (packed) buffer_elements += static_cast<index_t>(firsts.size()) * col_len * packed_rows;
    c.members = static_cast<index_t>(firsts.size());
    c.col_len = col_len;
    c.src = src;
    c.lds = ld;
    c.ldd = packed ? packed_rows : ldt;
    pool.copies.push_back(c);
  }

  /// Points the copies at `buffer` and `target` (packs and parts were laid out before).
  void aim(double* buffer, double* target) {
    for (auto& c : send.copies) c.dst = buffer;
    for (auto& c : local.copies) c.dst = target;
  }
};

}  // namespace

TEST_CASE("fused sweeps: members of any shape, partial overlaps, two sources: as copy by copy") {
  Members x;
  // Packs: blocks of 2 columns dealt round-robin to 3 chunks (members 6 columns apart),
  // the last column alone in a fourth chunk.
  for (index_t c = 0; c < 3; ++c) {
    std::vector<index_t> firsts;
    for (index_t b = c; 2 * b + 1 < Members::cols - 1; b += 3) firsts.push_back(2 * b);
    x.packs.emplace_back(x.send.copies.size(), x.send.copies.size() + 1);
    x.add(x.send, x.src1.data(), Members::ld1, firsts, 2, 0, true, 0, Members::rows);
  }
  x.packs.emplace_back(x.send.copies.size(), x.send.copies.size() + 1);
  x.add(x.send, x.src1.data(), Members::ld1, {Members::cols - 1}, 1, 0, true, 0, Members::rows);
  // Parts: 3 columns wide; part 2 in 20 row bands (10 with runs: more copies a column than
  // are merged),
  // part 4 in two, part 5 reads the second source; the rest whole.
  for (index_t p = 0; 3 * p < Members::cols; ++p) {
    const index_t width = std::min<index_t>(3, Members::cols - 3 * p);
    const std::size_t first = x.local.copies.size();
    const bool second = p == 5;
    const index_t bands = p == 2 ? 20 : p == 4 ? 2 : 1;
    for (index_t b = 0; b < bands; ++b)
      x.add(x.local, second ? x.src2.data() : x.src1.data(), second ? Members::ld2 : Members::ld1,
            {3 * p}, width, 1, false, b * Members::rows / bands, (b + 1) * Members::rows / bands);
    x.parts.emplace_back(first, x.local.copies.size());
  }
  // Part p follows chunk p % 4, but part 7 follows none.
  std::vector<std::size_t> follows(x.parts.size());
  for (std::size_t p = 0; p < follows.size(); ++p) follows[p] = p == 7 ? SIZE_MAX : p % 4;
  x.local.op = ElementOp<double>(Transform<double>{Op::none, 3.0, 0.0});

  const auto fresh = [&](std::size_t n) { return std::vector<double>(n, untouched); };
  const auto target_size = static_cast<std::size_t>(Members::ldt * Members::cols);
  const auto buffer_size = static_cast<std::size_t>(x.buffer_elements);
  std::vector<double> want_buffer = fresh(buffer_size), want_target = fresh(target_size);
  std::vector<double> buffer = fresh(buffer_size), target = fresh(target_size);
  const Kokkos::DefaultHostExecutionSpace exec;

  x.aim(want_buffer.data(), want_target.data());
  for (const Range& r : x.packs) run_copies(exec, x.send, r.first, r.second);
  for (const Range& r : x.parts) run_copies(exec, x.local, r.first, r.second);
  exec.fence();

  x.aim(buffer.data(), target.data());
  const FusedSweeps<double> sweeps(x.send, x.packs, x.local, x.parts, follows);
  for (std::size_t c = 0; c < x.packs.size(); ++c) {
    CHECK(sweeps.sweeps(c));
    sweeps.run(exec, c, x.send, x.local);
  }
  for (std::size_t p = 0; p < x.parts.size(); ++p) {
    CHECK(sweeps.swept(p) == (p != 7));
    if (!sweeps.swept(p)) run_copies(exec, x.local, x.parts[p].first, x.parts[p].second);
  }
  exec.fence();
  redist::detail::streaming_fence();
  long bad = 0;
  for (std::size_t k = 0; k < buffer_size; ++k) bad += buffer[k] != want_buffer[k];
  for (std::size_t k = 0; k < target_size; ++k) bad += target[k] != want_target[k];
  CHECK(bad == 0);
  // Every buffer element written, and 3x every local source element in the target.
  CHECK(std::count(want_buffer.begin(), want_buffer.end(), untouched) == 0);
  CHECK(want_target[static_cast<std::size_t>(Members::run + 2 * Members::ldt)] ==
        3.0 * source_value(Members::run, 2));
  CHECK(want_target[static_cast<std::size_t>(Members::run + 15 * Members::ldt)] ==
        -3.0 * source_value(Members::run, 15));  // part 5: the second source
}

TEST_CASE("fused sweeps: the tables grow with the copies, not with their columns") {
  // One pack and one part of a column block each, 2 and 20000 columns wide: a step per
  // copy and column (24 B each) would take 960 KB for the wide one.
  const auto bytes = [](index_t width) {
    constexpr index_t m = 40, ld = 41;
    std::vector<double> src(static_cast<std::size_t>(ld * width));
    CopyPool<double> send, local;
    for (int parity = 0; parity < 2; ++parity) {
      CopyPool<double>& pool = parity == 0 ? send : local;
      StridedCopy<double> c;
      c.run_first = 0;
      pool.runs.push_back(RowRun{parity * m / 2, 0, m / 2});
      c.runs = 1;
      c.member_first = 0;
      pool.members.push_back(ColumnMember{0, 0});
      c.members = 1;
      c.col_len = width;
      c.src = src.data();
      c.lds = ld;
      c.ldd = m / 2;
      pool.copies.push_back(c);
    }
    const FusedSweeps<double> sweeps(send, {Range{0, 1}}, local, {Range{0, 1}}, {0});
    CHECK(sweeps.sweeps(0));
    return sweeps.memory_bytes();
  };
  const std::size_t narrow = bytes(2), wide = bytes(20000);
  CHECK(wide == narrow);
  CHECK(wide < 512);
}

TEST_CASE("fused sweeps: chunks that repeat a chunk's columns share its bands") {
  // Case's three chunks read columns 4c .. 4c + 3 with their copies at the same places of
  // their ranges: chunks 1 and 2 take chunk 0's bands, shifted, and write what they would
  // with their own (checked element by element).
  Case x;
  const std::vector<std::size_t> all = {0, 0, 1, 1, 2, 2};
  const FusedSweeps<double> shared(x.send, x.packs, x.local, x.parts, all);
  const FusedSweeps<double> first(x.send, {x.packs[0]}, x.local, {x.parts[0], x.parts[1]}, {0, 0});
  CHECK(first.bands() > 0);
  CHECK(shared.bands() == first.bands());
  CHECK(x.errors_after_sweeping_all(1.0) == 0);
  // Chunk 1 with its parts' copies the other way round is no repeat: bands of its own.
  Case y;
  std::swap(y.local.copies[2], y.local.copies[3]);
  const FusedSweeps<double> swapped(y.send, y.packs, y.local, y.parts, all);
  CHECK(swapped.bands() > first.bands());
  CHECK(y.errors_after_sweeping_all(1.0) == 0);
}
