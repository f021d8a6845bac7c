// Chunks described to MPI as derived datatypes (ExecutionOptions::mpi_datatypes,
// transport/chunk_datatypes.hpp, engine/mpi_described_chunks.hpp, issue 44 point 3): sent
// from the source, received into the target, each side deciding alone. At 1-4 ranks with
// every message point to point and the datatypes forced on (off by default; automatic:
// only between nodes): random layouts, regions and transforms,
// a described send into a packed receive and a packed send into a described receive, every
// target element checked against the source's function of the global index and the rest
// of the target left alone; what describe_chunk accepts and refuses.
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/redist.hpp>
#include <redist/transport/chunk_datatypes.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include "random_cases.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Every message point to point, described where a side can (the variables win over what a
/// ctest leg sets).
struct DescribedEverywhere {
  ScopedEnv transport{"REDIST_TRANSPORT", "point-to-point"};
  ScopedEnv window{"REDIST_SHARED_WINDOW", "0"};
  ScopedEnv datatypes{"REDIST_MPI_DATATYPES", "1"};
};

template <class T, class SrcShape, class DstShape>
index_t run_case(const boost::mpi::communicator& comm, const Case& c, SrcShape src_shape,
                 DstShape dst_shape, const Transform<T>& t, index_t& described) {
  return with_case_matrices<T, ScalapackColumnMajor<>>(
      comm, c, std::move(src_shape), std::move(dst_shape), [&](auto& a, auto& b) {
        Redistributor r(a, b, comm, c.region, t);
        described += r.described_chunks().first + r.described_chunks().second;
        index_t bad = 0;
        for (int round = 0; round < 2; ++round) {  // the types are built once, used again
          b.for_each_element([](ElementIndex e, T& v) { v = initial_at<T>(e); });
          r.redistribute();
          b.for_each_element(
              [&](ElementIndex e, T& v) { bad += !(v == expected_at(c.region, t, e)); });
        }
        return bad + source_errors(a);
      });
}

/// A random case with long columns: 60-300 x 20-120 elements, tiles of 8-100 rows, both
/// sides in ScaLAPACK storage (random_case's small matrices rarely have runs of 128 bytes).
Case long_case(Rng& g, int np, Op op) {
  Case c = random_case(g, np, op, 12);
  c.src_size = {g.in(60, 300), g.in(20, 120)};
  const index_t R = g.in(1, c.src_size.rows), C = g.in(1, c.src_size.cols);
  const Extents target = op == Op::none ? Extents{R, C} : Extents{C, R};
  c.dst_size = {target.rows + g.in(0, 40), target.cols + g.in(0, 12)};
  c.region =
      Region{{R, C},
             {g.in(0, c.src_size.rows - R), g.in(0, c.src_size.cols - C)},
             {g.in(0, c.dst_size.rows - target.rows), g.in(0, c.dst_size.cols - target.cols)}};
  for (AxisSpec* a : {&c.src_rows, &c.src_cols, &c.dst_rows, &c.dst_cols}) a->irregular = false;
  c.src_rows.tile = g.in(8, 100), c.dst_rows.tile = g.in(8, 100);
  c.src_cols.tile = g.in(1, 30), c.dst_cols.tile = g.in(1, 30);
  c.scalapack_target = true;
  return c;
}

template <class T>
index_t check_random_cases(const boost::mpi::communicator& comm, unsigned seed, int cases) {
  Rng g(seed);
  const std::vector<Op> ops = random_ops<T>();
  index_t described = 0;
  for (int k = 0; k < cases; ++k) {
    const Op op = ops[static_cast<std::size_t>(k) % ops.size()];
    const Case c = k % 2 == 0 ? long_case(g, comm.size(), op)
                              : random_case(g, comm.size(), op, k % 4 == 1 ? 3 : 40);
    const Transform<T> t = random_transform<T>(k, op);
    CAPTURE(k);
    const index_t bad =
        with_tilings(c, [&](auto s, auto d) { return run_case<T>(comm, c, s, d, t, described); });
    CHECK(sum(comm, bad) == 0);
  }
  return sum(comm, described);
}

/// 300 x 260 doubles, `src_rows` x `src_cols` tiles on 1 x np ranks stored as SrcPlacement, moved
/// to `dst_rows` x 26 tiles on np x 1 ranks stored as DstPlacement, with `t`; checks every
/// element; returns this rank's described chunks (sent, received).
template <class SrcPlacement, class DstPlacement>
std::pair<index_t, index_t> long_columns(const boost::mpi::communicator& comm, index_t src_rows,
                                         index_t src_cols, index_t dst_rows,
                                         const Transform<double>& t,
                                         const ExecutionOptions& x = {}) {
  const int np = comm.size();
  const Layout src{uniform(300, 260, src_rows, src_cols), BlockCyclic(1, np)};
  const Layout dst{uniform(300, 260, dst_rows, 26), BlockCyclic(np, 1)};
  TiledMatrix<double, decltype(src), SrcPlacement> a(src, {}, comm.rank());
  TiledMatrix<double, decltype(dst), DstPlacement> b(dst, {}, comm.rank());
  a.for_each_element([](ElementIndex e, double& v) { v = value_at<double>(e); });
  b.for_each_element([](ElementIndex e, double& v) { v = initial_at<double>(e); });
  const Region region{{200, 200}, {20, 30}, {40, 50}};  // fits the target transposed too
  Redistributor r(a, b, comm, region, t, PlanOptions{}, x);
  r.redistribute();
  index_t bad = 0;
  b.for_each_element([&](ElementIndex e, double& v) { bad += !(v == expected_at(region, t, e)); });
  CHECK(sum(comm, bad) == 0);
  CHECK(sum(comm, source_errors(a)) == 0);
  return r.described_chunks();
}

}  // namespace

TEST_CASE("mpi: described to MPI: random layouts, regions and transforms") {
  const boost::mpi::communicator comm;
  const DescribedEverywhere env;
  const index_t described = check_random_cases<double>(comm, 4501, 24) +
                            check_random_cases<std::complex<float>>(comm, 4502, 8);
  if (comm.size() > 1 && std::getenv("REDIST_MAX_MESSAGE_BYTES") == nullptr) CHECK(described > 0);
}

TEST_CASE("mpi: a described send meets a packed receive, and a packed send a described one") {
  const boost::mpi::communicator comm;
  const DescribedEverywhere env;
  // A chunk is described only as one MPI message: not where a leg splits messages small.
  const bool peers = comm.size() > 1 && std::getenv("REDIST_MAX_MESSAGE_BYTES") == nullptr;
  using Scalapack = ScalapackColumnMajor<>;
  // Both sides described: ScaLAPACK storage on both, a plain copy.
  const auto [s1, r1] = long_columns<Scalapack, Scalapack>(comm, 32, 24, 40, Transform<double>{});
  if (peers) CHECK((sum(comm, s1) > 0 && sum(comm, r1) > 0));
  // The receiver scales: it unpacks what the sender sent from its source.
  const auto [s2, r2] = long_columns<Scalapack, Scalapack>(comm, 32, 24, 40, {Op::none, 2.0, 1.0});
  if (peers) CHECK((sum(comm, s2) > 0 && sum(comm, r2) == 0));
  // Transposed: the sender's packs read its source transposed, so it packs; what it sends
  // is in the target's order, received in place: a packed send into a described receive.
  const auto [s4, r4] =
      long_columns<Scalapack, Scalapack>(comm, 32, 24, 40, {Op::transpose, 1.0, 0.0});
  CHECK(sum(comm, s4) == 0);
  if (peers) CHECK(sum(comm, r4) > 0);
}

TEST_CASE("mpi: off (the default), and automatic on one node, nothing is described") {
  const boost::mpi::communicator comm;
  const ScopedEnv transport("REDIST_TRANSPORT", "point-to-point");
  const ScopedEnv window("REDIST_SHARED_WINDOW", "0");
  const ScopedEnv datatypes("REDIST_MPI_DATATYPES", nullptr);
  ExecutionOptions automatic;
  automatic.mpi_datatypes = Toggle::automatic;
  for (const ExecutionOptions& x : {ExecutionOptions{}, automatic}) {
    const auto [s, r] = long_columns<ScalapackColumnMajor<>, ScalapackColumnMajor<>>(
        comm, 32, 24, 40, Transform<double>{}, x);
    if (x.mpi_datatypes == Toggle::off || node_map(comm).nodes == 1) CHECK(sum(comm, s + r) == 0);
  }
}

TEST_CASE("chunk datatypes: blocks that tile the chunk become one type, others none") {
  using transport::ChunkBlock;
  using transport::describe_chunk;
  std::vector<double> m(64);
  for (std::size_t k = 0; k < m.size(); ++k) m[k] = static_cast<double>(k);
  // Chunk of 4 runs of 4 doubles from columns of 16, listed out of order.
  std::vector<ChunkBlock> blocks{
      {64, &m[32], 32}, {0, &m[0], 32}, {96, &m[48], 32}, {32, &m[16], 32}};
  MPI_Datatype t = describe_chunk(blocks, 128, 16);
  REQUIRE(t != MPI_DATATYPE_NULL);
  int size = 0;
  MPI_Type_size(t, &size);
  CHECK(size == 128);
  // Packed with the type: the runs in chunk order.
  std::vector<double> packed(16, -1);
  int position = 0;
  MPI_Pack(MPI_BOTTOM, 1, t, packed.data(), 128, &position, MPI_COMM_SELF);
  CHECK(position == 128);
  for (int k = 0; k < 16; ++k) CHECK(packed[k] == static_cast<double>(k / 4 * 16 + k % 4));
  MPI_Type_free(&t);
  // Runs that continue each other in memory merge: one block of 64 bytes still passes a
  // minimum of 64 bytes a run.
  std::vector<ChunkBlock> merged{{0, &m[0], 32}, {32, &m[4], 32}};
  t = describe_chunk(merged, 64, 64);
  CHECK(t != MPI_DATATYPE_NULL);
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  std::vector<ChunkBlock> gap{{0, &m[0], 32}, {40, &m[16], 24}};
  CHECK(describe_chunk(gap, 64, 8) == MPI_DATATYPE_NULL);  // byte 32-39 of the chunk missing
  std::vector<ChunkBlock> overlap{{0, &m[0], 32}, {24, &m[16], 40}};
  CHECK(describe_chunk(overlap, 64, 8) == MPI_DATATYPE_NULL);
  std::vector<ChunkBlock> short_runs{{0, &m[0], 8}, {8, &m[16], 8}};
  CHECK(describe_chunk(short_runs, 16, 128) == MPI_DATATYPE_NULL);  // under the minimum
  std::vector<ChunkBlock> none;
  CHECK(describe_chunk(none, 0) == MPI_DATATYPE_NULL);
}
