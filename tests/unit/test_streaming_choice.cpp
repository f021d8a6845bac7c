// Which copies stream (engine/streaming_choice.hpp): the engine-wide choice from the bytes a
// rank writes and the options, and the per-copy rules: dense reads for the target, long
// runs or contiguous blocks outside a ring for messages.
#include <vector>

#include <redist/engine/streaming_choice.hpp>

#include <doctest/doctest.h>

using namespace redist;
using engine::StreamingChoice;

namespace {

/// A copy of one member, `cols` columns, whose runs are runs[first, first + n).
StridedCopy<double> copy_of(index_t first, index_t n, index_t ldd = 1000) {
  StridedCopy<double> c;
  c.run_first = first;
  c.runs = n;
  c.members = 1;
  c.col_len = 4;
  c.lds = 1000;
  c.ldd = ldd;
  return c;
}

PlanStats writes(index_t sent, index_t received, index_t local) {
  PlanStats st;
  st.elements_sent = sent;
  st.elements_received = received;
  st.elements_local = local;
  return st;
}

}  // namespace

TEST_CASE("reads_densely: runs that cover 7/8 of the rows they span") {
  // 3 runs of 100 rows over 0..350: 300 of 350 rows (6/7 < 7/8).
  const std::vector<RowRun> gaps{{0, 0, 100}, {125, 100, 100}, {250, 200, 100}};
  CHECK_FALSE(engine::reads_densely(copy_of(0, 3), gaps));
  // 8 runs of 7 rows, one row apart: 56 of 63 rows, 8/9 >= 7/8.
  std::vector<RowRun> close;
  for (index_t k = 0; k < 8; ++k) close.push_back({8 * k, 7 * k, 7});
  CHECK(engine::reads_densely(copy_of(0, 8), close));
  // Exactly 7/8: 7 rows, 1 skipped, 7 more (14 of 16).
  const std::vector<RowRun> edge{{0, 0, 7}, {9, 7, 7}};
  CHECK(engine::reads_densely(copy_of(0, 2), edge));
  const std::vector<RowRun> under{{0, 0, 7}, {10, 7, 7}};  // 14 of 17
  CHECK_FALSE(engine::reads_densely(copy_of(0, 2), under));
  // One run, or a transposed source, reads densely whatever its rows.
  CHECK(engine::reads_densely(copy_of(1, 1), gaps));
  auto t = copy_of(0, 3);
  t.transposed = true;
  CHECK(engine::reads_densely(t, gaps));
  // Only the copy's own runs count.
  const std::vector<RowRun> two{{0, 0, 50}, {50, 50, 50}, {0, 0, 100}, {200, 100, 100}};
  CHECK(engine::reads_densely(copy_of(0, 2), two));
  CHECK_FALSE(engine::reads_densely(copy_of(2, 2), two));
}

TEST_CASE("StreamingChoice::choose: the bytes each way against the threshold, or forced") {
  ExecutionOptions o;
  o.streaming_threshold_bytes = 800;  // 100 doubles
  auto c = StreamingChoice::choose(writes(100, 0, 99), o, sizeof(double), true);
  CHECK(c.packs);
  CHECK_FALSE(c.target);  // 99 elements written into the target
  c = StreamingChoice::choose(writes(99, 60, 40), o, sizeof(double), true);
  CHECK_FALSE(c.packs);
  CHECK(c.target);
  CHECK_FALSE(c.forced);
  // Element size counts: 100 floats are 400 bytes.
  c = StreamingChoice::choose(writes(100, 100, 0), o, sizeof(float), true);
  CHECK_FALSE(c.packs);
  CHECK_FALSE(c.target);

  o.streaming = Toggle::on;
  c = StreamingChoice::choose(writes(0, 0, 0), o, sizeof(double), true);
  CHECK((c.packs && c.target && c.forced));
  o.streaming = Toggle::off;
  c = StreamingChoice::choose(writes(1 << 20, 1 << 20, 1 << 20), o, sizeof(double), true);
  CHECK_FALSE((c.packs || c.target || c.forced));
  // Device memory never streams (host stores only), forced or not.
  for (Toggle t : {Toggle::on, Toggle::automatic}) {
    o.streaming = t;
    c = StreamingChoice::choose(writes(1 << 20, 1 << 20, 1 << 20), o, sizeof(double), false);
    CHECK_FALSE((c.packs || c.target || c.forced));
  }
}

TEST_CASE("StreamingChoice::into_target: dense copies, or every copy when forced") {
  const std::vector<RowRun> gaps{{0, 0, 100}, {200, 100, 100}};
  const std::vector<RowRun> dense{{0, 0, 300}};
  StreamingChoice c;
  CHECK_FALSE(c.into_target(copy_of(0, 1), dense));
  c.target = true;
  CHECK(c.into_target(copy_of(0, 1), dense));
  CHECK_FALSE(c.into_target(copy_of(0, 2), gaps));
  c.forced = true;
  CHECK(c.into_target(copy_of(0, 2), gaps));
}

TEST_CASE("StreamingChoice::into_message: long runs or a contiguous block, never a ring slot") {
  StreamingChoice c;
  c.packs = true;
  const std::vector<RowRun> long_runs{{0, 0, 128}, {300, 128, 200}};  // >= 1024 bytes each
  const std::vector<RowRun> one_short{{0, 0, 128}, {300, 128, 127}};
  CHECK(c.into_message(copy_of(0, 2), long_runs, false));
  CHECK_FALSE(c.into_message(copy_of(0, 2), long_runs, true));
  CHECK_FALSE(c.into_message(copy_of(0, 2), one_short, false));
  // A segment laid flat: one run a column as long as the target's columns, one member.
  const std::vector<RowRun> flat{{0, 0, 16}};
  CHECK(c.into_message(copy_of(0, 1, 16), flat, false));
  CHECK_FALSE(c.into_message(copy_of(0, 1, 17), flat, false));
  auto two_members = copy_of(0, 1, 16);
  two_members.members = 2;
  CHECK_FALSE(c.into_message(two_members, flat, false));
  CHECK_FALSE(c.into_message(copy_of(0, 0), long_runs, false));  // no runs: nothing to stream
  c.packs = false;
  CHECK_FALSE(c.into_message(copy_of(0, 2), long_runs, false));
}
