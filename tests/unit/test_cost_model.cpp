// predict (cost_model.hpp) on hand-computed cases: the header's worked example (two ranks,
// one message), the critical rank as the one with the largest sum of terms, a node's link
// shared by its ranks (exact, and scaled from a sample), the node window without a
// transfer term, Eq. 3 and Eq. 5; predict over real plans against the same sums by hand;
// bytes within a node by the transport that carried them (rank_load with transports);
// the machine's text forms (tools/machine_spec.hpp) and their errors.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/tile_shape.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tools/machine_spec.hpp>

#include <doctest/doctest.h>

using namespace redist;

namespace {

Machine example_machine() {
  Machine m;
  m.memcpy_bytes_per_s = 4e9;
  m.link_bytes_per_s = 1e9;
  m.link_latency_s = 10e-6;
  m.shm_bytes_per_s = 0;
  m.shm_latency_s = 1e-6;
  return m;
}

RankLoad load(int rank, int node, int node_ranks) {
  RankLoad l;
  l.rank = rank;
  l.node = node;
  l.node_ranks = node_ranks;
  return l;
}

}  // namespace

TEST_CASE("predict: two ranks on two nodes, one message (the header's example)") {
  RankLoad a = load(0, 0, 1), b = load(1, 1, 1);
  a.sent = a.sent_inter_node = 8'000'000;
  a.messages_sent = a.messages_sent_inter_node = 1;
  b.received = b.received_inter_node = 8'000'000;
  b.messages_received = b.messages_received_inter_node = 1;
  const std::vector<RankLoad> loads{a, b};
  const Prediction p = predict(loads, example_machine());
  // latency + bytes / link + pack (or unpack) at memcpy bandwidth
  const double want = 10e-6 + 8e6 / 1e9 + 8e6 / 4e9;
  CHECK(p.seconds == doctest::Approx(want).epsilon(1e-12));
  CHECK(p.critical_rank == 0);  // a tie: the lower rank
  CHECK(p.critical.link == doctest::Approx(8e-3));
  CHECK(p.critical.pack == doctest::Approx(2e-3));
  CHECK(p.critical.unpack == 0);
  CHECK(p.ranks[1].unpack == doctest::Approx(2e-3));
  CHECK(p.link_bytes == 8'000'000);
  CHECK(p.link_node == 0);
  CHECK_FALSE(p.link_estimated);
  // Eq. 3: max remote / T; Eq. 5 with r = 0: B_net B_mem / (2 B_net + B_mem).
  CHECK(p.bandwidth_bytes_per_s == doctest::Approx(8e6 / want));
  CHECK(p.bound_bytes_per_s == doctest::Approx(1e9 * 4e9 / (2e9 + 4e9)));
}

TEST_CASE("predict: the critical rank is the one with the largest sum of terms") {
  // Rank 1 copies 40 MB locally (10 ms at 4 GB/s); rank 0 sends 4 MB to rank 2 on another
  // node (4 ms + 1 ms pack + 10 us).
  RankLoad r0 = load(0, 0, 2), r1 = load(1, 0, 2), r2 = load(2, 1, 1);
  r0.sent = r0.sent_inter_node = 4'000'000;
  r0.messages_sent = r0.messages_sent_inter_node = 1;
  r1.local = 40'000'000;
  r2.received = r2.received_inter_node = 4'000'000;
  r2.messages_received = r2.messages_received_inter_node = 1;
  const std::vector<RankLoad> loads{r0, r1, r2};
  const Prediction p = predict(loads, example_machine());
  CHECK(p.critical_rank == 1);
  // Rank 1 shares node 0's link with rank 0: it waits for the link too (4 ms).
  CHECK(p.seconds == doctest::Approx(4e-3 + 10e-3));
  CHECK(p.ranks[0].total() == doctest::Approx(4e-3 + 1e-3 + 10e-6));
  CHECK(p.bound_bytes_per_s == doctest::Approx(1e9 * 4e9 / ((2 + 10.0) * 1e9 + 4e9)));
}

TEST_CASE("predict: a node's ranks share its link; a sample is scaled to the node") {
  // Node 0: ranks 0..3, each sends 1 MB to node 1 (one rank, receives 4 MB).
  std::vector<RankLoad> loads;
  for (int r = 0; r < 4; ++r) {
    RankLoad l = load(r, 0, 4);
    l.sent = l.sent_inter_node = 1'000'000;
    l.messages_sent = l.messages_sent_inter_node = 1;
    loads.push_back(l);
  }
  RankLoad last = load(4, 1, 1);
  last.received = last.received_inter_node = 4'000'000;
  last.messages_received = last.messages_received_inter_node = 4;
  loads.push_back(last);
  Machine m = example_machine();
  m.link_latency_s = 0;
  const Prediction all = predict(loads, m);
  CHECK(all.link_bytes == 4'000'000);
  CHECK(all.ranks[0].link == doctest::Approx(4e-3));
  CHECK(all.ranks[4].link == doctest::Approx(4e-3));
  CHECK(all.critical_rank == 4);  // the same link time, and 4 MB to unpack
  CHECK(all.seconds == doctest::Approx(4e-3 + 1e-3));
  // Ranks 0 and 4 only: node 0's link bytes are rank 0's times 4 ranks.
  const std::vector<RankLoad> sample{loads[0], loads[4]};
  const Prediction some = predict(sample, m);
  CHECK(some.link_estimated);
  CHECK(some.ranks[0].link == doctest::Approx(4e-3));
  CHECK(some.seconds == doctest::Approx(all.seconds));
}

TEST_CASE("predict: within a node, the transfer term only with a shared-memory bandwidth") {
  RankLoad a = load(0, 0, 2), b = load(1, 0, 2);
  a.sent = 2'000'000;
  a.messages_sent = 1;
  b.received = 2'000'000;
  b.messages_received = 1;
  const std::vector<RankLoad> loads{a, b};
  Machine m = example_machine();
  m.link_bytes_per_s = 0;  // nothing crosses a node: not needed
  const Prediction window = predict(loads, m);
  CHECK(window.seconds == doctest::Approx(1e-6 + 2e6 / 4e9));
  CHECK(window.link_node == -1);
  m.shm_bytes_per_s = 8e9;
  const Prediction p2p = predict(loads, m);
  CHECK(p2p.seconds == doctest::Approx(1e-6 + 2e6 / 8e9 + 2e6 / 4e9));
}

TEST_CASE("predict: bad machines and loads name the parameter") {
  RankLoad a = load(0, 0, 1), b = load(1, 1, 1);
  a.sent = a.sent_inter_node = 8;
  b.received = b.received_inter_node = 8;
  const std::vector<RankLoad> loads{a, b};
  Machine m = example_machine();
  m.link_bytes_per_s = 0;
  CHECK_THROWS_WITH_AS(predict(loads, m), doctest::Contains("Machine::link_bytes_per_s"),
                       invalid_argument);
  m = example_machine();
  m.memcpy_bytes_per_s = -1;
  CHECK_THROWS_WITH_AS(predict(loads, m), doctest::Contains("Machine::memcpy_bytes_per_s"),
                       invalid_argument);
  RankLoad bad = a;
  bad.node_ranks = 0;
  const std::vector<RankLoad> one{bad};
  CHECK_THROWS_WITH_AS(predict(one, example_machine()),
                       doctest::Contains("RankLoad::node_ranks = 0"), invalid_argument);
  bad = a;
  bad.sent_in_pieces = bad.sent + 1;  // more bytes in pieces than sent
  CHECK_THROWS_WITH_AS(predict(std::vector<RankLoad>{bad}, example_machine()),
                       doctest::Contains("bytes in pieces"), invalid_argument);
  CHECK(predict(std::vector<RankLoad>{}, example_machine()).critical_rank == -1);
}

TEST_CASE("predict over real plans: the sums by hand from each plan's statistics") {
  // 64 x 64 doubles, 8 x 8 tiles, 1 x 4 -> 4 x 1 on 4 ranks, two nodes of two.
  const Layout src{Tiling{UniformAxis<>(64, 8), UniformAxis<>(64, 8)}, BlockCyclic{1, 4}};
  const Layout dst{Tiling{UniformAxis<>(64, 8), UniformAxis<>(64, 8)}, BlockCyclic{4, 1}};
  const Region region{{64, 64}, {0, 0}, {0, 0}};
  const std::vector<int> nodes{0, 0, 1, 1};
  std::vector<Plan> plans;
  for (int r = 0; r < 4; ++r) plans.push_back(make_plan(src, dst, region, r, 4));
  const Machine m = example_machine();
  const Prediction p = predict(plans, nodes, 8, m);
  REQUIRE(p.ranks.size() == 4);
  index_t node_sent[2] = {0, 0}, node_recv[2] = {0, 0};
  for (int r = 0; r < 4; ++r) {
    const PlanStats s = with_node_traffic(plans[r], nodes);
    node_sent[nodes[r]] += s.elements_sent_inter_node * 8;
    node_recv[nodes[r]] += s.elements_received_inter_node * 8;
  }
  double worst = 0;
  for (int r = 0; r < 4; ++r) {
    const PlanStats s = with_node_traffic(plans[r], nodes);
    const int n = nodes[r];
    const double link = static_cast<double>(std::max(node_sent[n], node_recv[n])) / 1e9;
    index_t inter_msgs_sent = 0, inter_msgs_recv = 0;
    for (const Message& msg : plans[r].send.messages) inter_msgs_sent += nodes[msg.peer] != n;
    for (const Message& msg : plans[r].recv.messages) inter_msgs_recv += nodes[msg.peer] != n;
    const double latency = static_cast<double>(std::max(inter_msgs_sent, inter_msgs_recv)) * 10e-6 +
                           static_cast<double>(std::max(s.messages_sent - inter_msgs_sent,
                                                        s.messages_received - inter_msgs_recv)) *
                               1e-6;
    const double copies =
        static_cast<double>(s.elements_sent + s.elements_received + s.elements_local) * 8 / 4e9;
    CHECK(p.ranks[r].total() == doctest::Approx(link + latency + copies));
    worst = std::max(worst, link + latency + copies);
  }
  CHECK(p.seconds == doctest::Approx(worst));
  // One plan alone: its own bytes over the link, every peer on another node.
  const Prediction alone = predict(plans[1], m);
  CHECK(alone.critical_rank == 1);
  const PlanStats s1 = plans[1].stats;
  CHECK(alone.critical.link ==
        doctest::Approx(static_cast<double>(std::max(s1.elements_sent, s1.elements_received)) * 8 /
                        1e9));
}

TEST_CASE("machine_spec: a JSON file's keys, inline pairs, and errors naming the key") {
  const Machine j = tools::machine_from_json(
      R"({"ranks": 4, "memcpy_bytes_per_s": 5e9, "link_bytes_per_s": 1.25e+09,
          "link_latency_s": 2e-05, "shm_bytes_per_s": 0, "shm_latency_s": 4e-7})");
  CHECK(j.memcpy_bytes_per_s == 5e9);
  CHECK(j.link_bytes_per_s == 1.25e9);
  CHECK(j.link_latency_s == 2e-5);
  CHECK(j.shm_latency_s == 4e-7);
  std::string text(1, '{');  // appended: GCC 12's -Wrestrict misreads "{" + std::string
  text += tools::machine_json_fields(j);
  text += '}';
  const Machine back = tools::machine_from_json(text);
  CHECK(back.link_latency_s == doctest::Approx(j.link_latency_s));
  const Machine i = tools::parse_machine("memcpy_bytes_per_s=3e9,link_latency_s=1e-5", "--machine");
  CHECK(i.memcpy_bytes_per_s == 3e9);
  CHECK(i.link_latency_s == 1e-5);
  CHECK(i.link_bytes_per_s == 0);
  CHECK_THROWS_WITH_AS(tools::parse_machine("memcpy=3e9", "--machine"),
                       doctest::Contains("--machine: unknown key 'memcpy'"), parse_error);
  CHECK_THROWS_WITH_AS(tools::parse_machine("memcpy_bytes_per_s=fast", "--machine"),
                       doctest::Contains("memcpy_bytes_per_s: expected a finite number >= 0, "
                                         "got 'fast'"),
                       parse_error);
  CHECK_THROWS_WITH_AS(tools::parse_machine("/nonexistent/m.json", "--machine"),
                       doctest::Contains("--machine: cannot read '/nonexistent/m.json'"),
                       parse_error);
  CHECK_THROWS_WITH_AS(tools::machine_from_json(R"({"link_latency_s": -1})", "--machine"),
                       doctest::Contains("link_latency_s"), parse_error);
}

TEST_CASE("contiguous_runs: a piece is one run a segment where it is its tile's whole column") {
  // 8 x 8 doubles on one rank, every copy local. 4 x 4 source tiles cut into 2 x 2 target
  // tiles: each 2-row piece is half a source column (gapped) and a whole target column, so
  // each of the 16 segments is 2 runs (a local copy streams only where both sides do);
  // the reverse the same; equal tiles: a run a segment.
  const auto tiles = [](index_t t) {
    return Layout{Tiling{UniformAxis<>(8, t), UniformAxis<>(8, t)}, BlockCyclic{1, 1}};
  };
  const Region region{{8, 8}, {0, 0}, {0, 0}};
  // clang-format off
  struct Row { index_t src_tile, dst_tile, local_runs, local_segments; };
  const Row rows[] = {
      // src  dst  runs  segments
      {4,    2,   32,   16},
      {2,    4,   32,   16},
      {4,    4,    4,    4},
      {8,    8,    1,    1},
      {4,    8,   16,    4},  // a target column is two pieces: gapped there, 4 runs a segment
      {8,    4,   16,    4},
  };
  // clang-format on
  for (const Row& r : rows) {
    CAPTURE(r.src_tile);
    CAPTURE(r.dst_tile);
    const Plan plan = make_plan(tiles(r.src_tile), tiles(r.dst_tile), region, 0, 1);
    REQUIRE(plan.stats.segments_local == r.local_segments);
    const CopyRuns runs = contiguous_runs(plan);
    CHECK(runs.sent == 0);
    CHECK(runs.received == 0);
    CHECK(runs.local == r.local_runs);
  }
}

TEST_CASE("contiguous_runs: pack walks the source tile, unpack the target tile") {
  // 16 x 16 doubles, 8 x 8 source tiles 1 x 2 -> 4 x 4 target tiles 2 x 1 on two ranks:
  // source pieces of 4 rows are half a source column (a run per column), target pieces
  // whole target columns (a run per segment).
  const Layout src{Tiling{UniformAxis<>(16, 8), UniformAxis<>(16, 8)}, BlockCyclic{1, 2}};
  const Layout dst{Tiling{UniformAxis<>(16, 4), UniformAxis<>(16, 4)}, BlockCyclic{2, 1}};
  const Region region{{16, 16}, {0, 0}, {0, 0}};
  for (int rank = 0; rank < 2; ++rank) {
    const Plan plan = make_plan(src, dst, region, rank, 2);
    const CopyRuns runs = contiguous_runs(plan);
    REQUIRE(plan.stats.segments_sent > 0);
    CHECK(runs.sent == 4 * plan.stats.segments_sent);
    CHECK(runs.received == plan.stats.segments_received);
    CHECK(runs.local == 4 * plan.stats.segments_local);
    CHECK(runs.sent_in_pieces == plan.stats.elements_sent);
    CHECK(runs.received_in_pieces == 0);
    const RankLoad l = rank_load(plan, {0, 0}, 8);
    CHECK(l.runs_sent == runs.sent);
    CHECK(l.runs_received == runs.received);
    CHECK(l.runs_local == runs.local);
    CHECK(l.sent_in_pieces == 8 * plan.stats.elements_sent);
    CHECK(l.received_in_pieces == 0);
  }
  // The reverse: pack walks whole 4-row source columns, unpack 4-row pieces of 8-row ones.
  for (int rank = 0; rank < 2; ++rank) {
    const Plan plan = make_plan(dst, src, region, rank, 2);
    const CopyRuns runs = contiguous_runs(plan);
    CHECK(runs.sent == plan.stats.segments_sent);
    CHECK(runs.received == 4 * plan.stats.segments_received);
    CHECK(runs.local == 4 * plan.stats.segments_local);
    CHECK(runs.sent_in_pieces == 0);
    CHECK(runs.received_in_pieces == plan.stats.elements_received);
  }
}

TEST_CASE("contiguous_runs: a peer that takes a column's every row, in pieces, reads it whole") {
  // 24 x 16 doubles on two ranks, 8 x 8 source tiles 2 x 1 (row tiles alternate) -> 6 x 4
  // target tiles 1 x 2 (column tiles alternate). A source column's rows all go to the
  // owner of its target column, cut by the 6-row target tiles (pieces of 6 and 2 rows,
  // or 4 and 4): more runs than segments, but no gaps between them, so nothing is packed
  // in pieces. The target's 6-row columns take rows of two source row tiles, one from
  // each rank: unpacked in pieces.
  const Layout src{Tiling{UniformAxis<>(24, 8), UniformAxis<>(16, 8)}, BlockCyclic{2, 1}};
  const Layout dst{Tiling{UniformAxis<>(24, 6), UniformAxis<>(16, 4)}, BlockCyclic{1, 2}};
  const Region region{{24, 16}, {0, 0}, {0, 0}};
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const Plan plan = make_plan(src, dst, region, rank, 2);
    const CopyRuns runs = contiguous_runs(plan);
    REQUIRE(plan.stats.elements_sent > 0);
    CHECK(runs.sent > plan.stats.segments_sent);
    CHECK(runs.sent_in_pieces == 0);
    // Target rows 6-11 come from source tiles 0 (rank 0) and 1 (rank 1), rows 12-17 from
    // tiles 1 and 2 (rank 1, rank 0): those row tiles are fed by both ranks.
    CHECK(runs.received_in_pieces > 0);
    CHECK(runs.received_in_pieces <= plan.stats.elements_received);
  }
  // The example of elements_in_pieces: case a's rows (256 -> 100, target rows alternate).
  const Layout a_src{Tiling{UniformAxis<>(512, 256), UniformAxis<>(512, 256)}, BlockCyclic{1, 2}};
  const Layout a_dst{Tiling{UniformAxis<>(512, 100), UniformAxis<>(512, 100)}, BlockCyclic{2, 1}};
  const Plan a = make_plan(a_src, a_dst, Region{{512, 512}, {0, 0}, {0, 0}}, 0, 2);
  CHECK(contiguous_runs(a).sent_in_pieces == a.stats.elements_sent);
}

TEST_CASE("predict: a cost per run, and ranks sharing cores (the header's example)") {
  RankLoad a = load(0, 0, 1), b = load(1, 1, 1);
  a.sent = a.sent_inter_node = 8'000'000;
  a.runs_sent = 10'000;  // 800-byte runs
  a.messages_sent = a.messages_sent_inter_node = 1;
  b.received = b.received_inter_node = 8'000'000;
  b.runs_received = 1;
  b.messages_received = b.messages_received_inter_node = 1;
  Machine m = example_machine();
  m.copy_run_s = 100e-9;
  const Prediction p = predict(std::vector<RankLoad>{a, b}, m);
  CHECK(p.critical_rank == 0);
  CHECK(p.critical.pack == doctest::Approx(2e-3 + 1e-3));
  CHECK(p.seconds == doctest::Approx(10e-6 + 8e-3 + 3e-3));
  CHECK(p.ranks[1].unpack == doctest::Approx(2e-3 + 100e-9));
  CHECK(p.critical.runs == doctest::Approx(1e-3));  // a part of pack, not a term
  CHECK(p.critical.total() == doctest::Approx(p.seconds));
  // Cores: 4 ranks of one node each copy 8 MB locally in 1000 runs (2 ms + 0.1 ms).
  std::vector<RankLoad> node;
  for (int r = 0; r < 4; ++r) {
    RankLoad l = load(r, 0, 4);
    l.local = 8'000'000;
    l.runs_local = 1000;
    node.push_back(l);
  }
  // clang-format off
  struct Row { double cores, local_s; };
  const Row rows[] = {
      // cores  local
      {0,       2.1e-3},   // not known: not shared
      {8,       2.1e-3},
      {4,       2.1e-3},
      {2,       4.2e-3},   // 4 ranks, 2 cores: each runs half the time
      {1,       8.4e-3},
      {3,       2.8e-3},   // 4 / 3
  };
  // clang-format on
  for (const Row& r : rows) {
    CAPTURE(r.cores);
    m.cores_per_node = r.cores;
    const Prediction q = predict(node, m);
    CHECK(q.critical.local == doctest::Approx(r.local_s));
    CHECK(q.seconds == doctest::Approx(r.local_s));
  }
  CHECK(core_sharing(m, 3) == 1.0);
  m.cores_per_node = 2;
  CHECK(core_sharing(m, 3) == 1.5);
  // The shm transfer is a copy too: shared like the others; latency is not.
  RankLoad s0 = load(0, 0, 4), s1 = load(1, 0, 4);
  s0.sent = 4'000'000;
  s0.messages_sent = 1;
  s1.received = 4'000'000;
  s1.messages_received = 1;
  m.shm_bytes_per_s = 4e9;
  m.copy_run_s = 0;
  const Prediction sh = predict(std::vector<RankLoad>{s0, s1}, m);
  CHECK(sh.ranks[0].shm == doctest::Approx(2 * 1e-3));
  CHECK(sh.ranks[0].pack == doctest::Approx(2 * 1e-3));
  CHECK(sh.ranks[0].latency == doctest::Approx(1e-6));
}

TEST_CASE("machine_spec: copy_run_s and cores_per_node, and files without them") {
  // A file of redist-calibrate before them: both 0, the model they were calibrated for.
  const Machine old = tools::machine_from_json(
      R"({"ranks": 2, "nodes": 1, "memcpy_copy_bytes": 268435456, "message_bytes": 4194304,
          "memcpy_bytes_per_s": 1.00327965e+10, "link_bytes_per_s": 0, "link_latency_s": 0,
          "shm_bytes_per_s": 8.04743923e+09, "shm_latency_s": 1.020025e-07})");
  CHECK(old.memcpy_bytes_per_s == 1.00327965e10);
  CHECK(old.copy_run_s == 0);
  CHECK(old.cores_per_node == 0);
  Machine m = old;
  m.copy_run_s = 3.5e-8;
  m.cores_per_node = 2;
  std::string text(1, '{');
  text += tools::machine_json_fields(m);
  text += '}';
  CHECK(text.find("\"copy_run_s\": 3.5e-08") != std::string::npos);
  const Machine back = tools::machine_from_json(
      R"({"strided_copies": [{"run_bytes": 64, "seconds_per_run": 1e-08}], )" + text.substr(1));
  CHECK(back.copy_run_s == doctest::Approx(3.5e-8));
  CHECK(back.cores_per_node == 2);
  const Machine i = tools::parse_machine("memcpy_bytes_per_s=3e9,copy_run_s=2e-8,cores_per_node=4");
  CHECK(i.copy_run_s == 2e-8);
  CHECK(i.cores_per_node == 4);
  m.copy_run_s = -1;
  CHECK_THROWS_WITH_AS(validate(m, false), doctest::Contains("Machine::copy_run_s"),
                       invalid_argument);
  m.copy_run_s = 0;
  m.cores_per_node = -2;
  CHECK_THROWS_WITH_AS(validate(m, false), doctest::Contains("Machine::cores_per_node"),
                       invalid_argument);
}

TEST_CASE(
    "predict: chunks in the cache (rings, MPI) charge bytes within a node at the ring's rate") {
  // Rank 0 sends 4 MB to rank 1 (its node) and 2 MB to rank 2 (another node), packing 1000
  // runs; rank 1 unpacks the 4 MB in 10 runs and copies 4 MB locally.
  RankLoad r0 = load(0, 0, 2), r1 = load(1, 0, 2), r2 = load(2, 1, 1);
  r0.sent = 6'000'000;
  r0.sent_inter_node = 2'000'000;
  r0.runs_sent = 1000;
  r0.messages_sent = 2;
  r0.messages_sent_inter_node = 1;
  r1.received = 4'000'000;
  r1.runs_received = 10;
  r1.local = 4'000'000;
  r1.messages_received = 1;
  r2.received = r2.received_inter_node = 2'000'000;
  r2.messages_received = r2.messages_received_inter_node = 1;
  const std::vector<RankLoad> loads{r0, r1, r2};
  Machine m = example_machine();
  m.copy_run_s = 100e-9;
  m.ring_bytes_per_s = 8e9;
  // clang-format off
  struct Row { double shm, ring, cores; double pack0, unpack1, local1, unpack2; };
  const Row rows[] = {
      // shm  ring  cores  rank 0's pack              rank 1's unpack     local         rank 2's
      {0,     8e9,  0,     4e6 / 8e9 + 2e6 / 4e9 + 1e-4, 4e6 / 8e9 + 1e-6, 4e6 / 4e9, 2e6 / 4e9},
      {0,     0,    0,     6e6 / 4e9 + 1e-4,        4e6 / 4e9 + 1e-6,   4e6 / 4e9,    2e6 / 4e9},
      {8e9,   8e9,  0,     4e6 / 8e9 + 2e6 / 4e9 + 1e-4, 4e6 / 8e9 + 1e-6, 4e6 / 4e9, 2e6 / 4e9},
      {0,     4e9,  0,     6e6 / 4e9 + 1e-4,        4e6 / 4e9 + 1e-6,   4e6 / 4e9,    2e6 / 4e9},
      {0,     8e9,  1,     2 * (4e6 / 8e9 + 2e6 / 4e9 + 1e-4), 2 * (4e6 / 8e9 + 1e-6), 2 * 4e6 / 4e9,
                                                                                    2e6 / 4e9},
  };
  // clang-format on
  for (const Row& r : rows) {
    CAPTURE(r.shm);
    CAPTURE(r.ring);
    CAPTURE(r.cores);
    m.shm_bytes_per_s = r.shm;
    m.ring_bytes_per_s = r.ring;
    m.cores_per_node = r.cores;
    CHECK(node_copy_bytes_per_s(m) == (r.ring > 0 ? r.ring : 4e9));
    const Prediction p = predict(loads, m);
    CHECK(p.ranks[0].pack == doctest::Approx(r.pack0));
    CHECK(p.ranks[1].unpack == doctest::Approx(r.unpack1));
    CHECK(p.ranks[1].local == doctest::Approx(r.local1));    // never through a ring
    CHECK(p.ranks[2].unpack == doctest::Approx(r.unpack2));  // between nodes: memcpy
    CHECK(p.ranks[0].runs == doctest::Approx((r.cores == 1 ? 2 : 1) * 1e-4));
    CHECK(p.seconds ==
          doctest::Approx(std::max({p.ranks[0].total(), p.ranks[1].total(), p.ranks[2].total()})));
  }
  // Bytes in pieces gain nothing from the cache: half of rank 0's 6 MB in pieces leaves
  // half of its 4 MB within the node at the ring's rate.
  m.shm_bytes_per_s = 0;
  m.cores_per_node = 0;
  m.ring_bytes_per_s = 8e9;
  std::vector<RankLoad> pieces = loads;
  pieces[0].sent_in_pieces = 3'000'000;
  pieces[1].received_in_pieces = 4'000'000;  // all of it
  const Prediction pp = predict(pieces, m);
  CHECK(pp.ranks[0].pack == doctest::Approx(2e6 / 8e9 + 4e6 / 4e9 + 1e-4));
  CHECK(pp.ranks[1].unpack == doctest::Approx(4e6 / 4e9 + 1e-6));
  // A ring as fast as memcpy is the model without it.
  m.shm_bytes_per_s = 0;
  m.cores_per_node = 0;
  m.ring_bytes_per_s = m.memcpy_bytes_per_s;
  const Prediction same = predict(loads, m);
  m.ring_bytes_per_s = 0;
  CHECK(same.seconds == doctest::Approx(predict(loads, m).seconds).epsilon(1e-12));
}

TEST_CASE("machine_spec: ring_bytes_per_s, and files without it") {
  const Machine old = tools::machine_from_json(
      R"({"memcpy_bytes_per_s": 1e10, "shm_bytes_per_s": 0, "copy_run_s": 1e-8,
          "cores_per_node": 2})");
  CHECK(old.ring_bytes_per_s == 0);
  CHECK(node_copy_bytes_per_s(old) == 1e10);  // pack and unpack at memcpy, as before
  Machine m = old;
  m.ring_bytes_per_s = 1.9e10;
  std::string text(1, '{');
  text += tools::machine_json_fields(m);
  text += '}';
  CHECK(text.find("\"ring_bytes_per_s\": 1.9e+10") != std::string::npos);
  CHECK(tools::machine_from_json(text).ring_bytes_per_s == doctest::Approx(1.9e10));
  CHECK(tools::parse_machine("memcpy_bytes_per_s=3e9,ring_bytes_per_s=5e9").ring_bytes_per_s ==
        5e9);
  m.ring_bytes_per_s = -1;
  CHECK_THROWS_WITH_AS(validate(m, false), doctest::Contains("Machine::ring_bytes_per_s"),
                       invalid_argument);
}

TEST_CASE("predict: bytes within a node charged by the transport that carried them") {
  // 64 x 64 doubles, 8 x 8 tiles, 1 x 4 -> 4 x 1 on 4 ranks, two nodes of two: rank 0's
  // messages to rank 1 stay in its node, those to ranks 2 and 3 leave it.
  const Layout src{Tiling{UniformAxis<>(64, 8), UniformAxis<>(64, 8)}, BlockCyclic{1, 4}};
  const Layout dst{Tiling{UniformAxis<>(64, 8), UniformAxis<>(64, 8)}, BlockCyclic{4, 1}};
  const Region region{{64, 64}, {0, 0}, {0, 0}};
  const std::vector<int> nodes{0, 0, 1, 1};
  const Plan plan = make_plan(src, dst, region, 0, 4);
  const auto within = [&](const std::vector<Message>& messages) {
    index_t bytes = 0;
    for (const Message& msg : messages) bytes += nodes[msg.peer] == 0 ? msg.elements * 8 : 0;
    return bytes;
  };
  const index_t sent_in = within(plan.send.messages), received_in = within(plan.recv.messages);
  REQUIRE(sent_in > 0);
  REQUIRE(received_in > 0);
  const auto all = [](const std::vector<Message>& messages, Transport how) {
    return std::vector<Transport>(messages.size(), how);
  };
  Machine m = example_machine();
  m.shm_bytes_per_s = 2e9;
  m.ring_bytes_per_s = 8e9;
  const RankLoad machine_says = rank_load(plan, nodes, 8);
  CHECK_FALSE(machine_says.routes_known);

  SUBCASE("MPI within the node: the shm term, its chunks packed and unpacked at the ring's rate") {
    const RankLoad l = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::point_to_point),
                                 all(plan.recv.messages, Transport::point_to_point), true);
    CHECK(l.routes_known);
    CHECK(l.sent_in_node.point_to_point == sent_in);
    CHECK(l.received_in_node.point_to_point == received_in);
    CHECK(l.sent_in_node.window + l.sent_in_node.in_place == 0);
    const RankTime t = predict(std::span<const RankLoad>(&l, 1), m).ranks[0];
    CHECK(t.shm == doctest::Approx(static_cast<double>(std::max(sent_in, received_in)) / 2e9));
    CHECK(l.sent_in_pieces == 0);  // whole tiles
    CHECK(t.pack == doctest::Approx(static_cast<double>(l.sent - sent_in) / 4e9 +
                                    static_cast<double>(sent_in) / 8e9));
    CHECK(t.unpack == doctest::Approx(static_cast<double>(l.received - received_in) / 4e9 +
                                      static_cast<double>(received_in) / 8e9));
    // The same as the machine's own choice when it has a shared-memory bandwidth.
    CHECK(predict(std::span<const RankLoad>(&machine_says, 1), m).seconds ==
          doctest::Approx(predict(std::span<const RankLoad>(&l, 1), m).seconds));
  }
  SUBCASE("the node window: no shm term whatever the machine says, rings at their rate") {
    const RankLoad l = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::shared_window),
                                 all(plan.recv.messages, Transport::shared_window), true);
    CHECK(l.sent_in_node.window == sent_in);
    const RankTime t = predict(std::span<const RankLoad>(&l, 1), m).ranks[0];
    CHECK(t.shm == 0);
    CHECK(t.pack == doctest::Approx(static_cast<double>(l.sent - sent_in) / 4e9 +
                                    static_cast<double>(sent_in) / 8e9));
    CHECK(t.unpack == doctest::Approx(static_cast<double>(l.received - received_in) / 4e9 +
                                      static_cast<double>(received_in) / 8e9));
    // Rings off: the window's bytes at memcpy.
    const RankLoad off =
        rank_load(plan, nodes, 8, all(plan.send.messages, Transport::shared_window),
                  all(plan.recv.messages, Transport::shared_window), false);
    const RankTime t_off = predict(std::span<const RankLoad>(&off, 1), m).ranks[0];
    CHECK(t_off.pack == doctest::Approx(static_cast<double>(l.sent) / 4e9));
    CHECK(t_off.shm == 0);
  }
  SUBCASE("read in place: nothing packed for the node, one copy by the receiver") {
    const RankLoad l = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::cross_memory),
                                 all(plan.recv.messages, Transport::direct), true);
    CHECK(l.sent_in_node.in_place == sent_in);
    CHECK(l.received_in_node.in_place == received_in);
    const RankTime t = predict(std::span<const RankLoad>(&l, 1), m).ranks[0];
    CHECK(t.shm == 0);
    CHECK(t.pack == doctest::Approx(static_cast<double>(l.sent - sent_in) / 4e9));
    CHECK(t.unpack == doctest::Approx(static_cast<double>(l.received) / 4e9));
  }
  SUBCASE("pushed: one copy by the sender, nothing unpacked for the node") {
    const RankLoad l = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::push),
                                 all(plan.recv.messages, Transport::push), true);
    CHECK(l.sent_in_node.pushed == sent_in);
    CHECK(l.received_in_node.pushed == received_in);
    CHECK(l.sent_in_node.in_place + l.sent_in_node.window == 0);
    const RankTime t = predict(std::span<const RankLoad>(&l, 1), m).ranks[0];
    CHECK(t.shm == 0);
    CHECK(t.pack == doctest::Approx(static_cast<double>(l.sent) / 4e9));
    CHECK(t.unpack == doctest::Approx(static_cast<double>(l.received - received_in) / 4e9));
  }
  SUBCASE("transports between nodes change nothing: those bytes are the link's") {
    std::vector<Transport> send = all(plan.send.messages, Transport::shared_window);
    for (std::size_t k = 0; k < send.size(); ++k)
      if (nodes[plan.send.messages[k].peer] != 0) send[k] = Transport::point_to_point;
    const RankLoad a =
        rank_load(plan, nodes, 8, send, all(plan.recv.messages, Transport::shared_window), true);
    const RankLoad b = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::shared_window),
                                 all(plan.recv.messages, Transport::shared_window), true);
    CHECK(a.sent_in_node.window == b.sent_in_node.window);
    CHECK(predict(std::span<const RankLoad>(&a, 1), m).seconds ==
          doctest::Approx(predict(std::span<const RankLoad>(&b, 1), m).seconds));
  }
  SUBCASE("errors name the parameter") {
    CHECK_THROWS_WITH_AS(rank_load(plan, nodes, 8, std::vector<Transport>{},
                                   all(plan.recv.messages, Transport::shared_window), true),
                         doctest::Contains("send_transport.size()"), invalid_argument);
    CHECK_THROWS_WITH_AS(rank_load(plan, nodes, 8, all(plan.send.messages, Transport::direct),
                                   std::vector<Transport>(1), true),
                         doctest::Contains("recv_transport.size()"), invalid_argument);
    RankLoad bad = rank_load(plan, nodes, 8, all(plan.send.messages, Transport::shared_window),
                             all(plan.recv.messages, Transport::shared_window), true);
    bad.sent_in_node.window -= 8;  // no longer the bytes within the node
    CHECK_THROWS_WITH_AS(predict(std::span<const RankLoad>(&bad, 1), m),
                         doctest::Contains("RankLoad::rank"), invalid_argument);
  }
}
