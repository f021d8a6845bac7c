// The message layout (transport/message_buffers.hpp) on plans of virtual ranks: for any
// choice of transports, packed sent messages lie disjoint in their batch's send part,
// point-to-point receives disjoint right after it, direct and window receives take no
// room, and the allocation is max over batches of (send + receive), within the plan's
// PlanStats::buffer_elements.
#include <algorithm>
#include <climits>
#include <random>
#include <vector>

#include <redist/distributions/block_cyclic.hpp>
#include <redist/layout.hpp>
#include <redist/plan.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/transport/link.hpp>
#include <redist/transport/message_buffers.hpp>

#include <doctest/doctest.h>

namespace {

using namespace redist;
using Buffers = transport::MessageBuffers<double, Kokkos::HostSpace>;

/// [first, end) ranges must not overlap.
bool disjoint(std::vector<std::pair<index_t, index_t>> r) {
  std::sort(r.begin(), r.end());
  for (std::size_t k = 1; k < r.size(); ++k)
    if (r[k].first < r[k - 1].second) return false;
  return true;
}

}  // namespace

TEST_CASE("message buffers: every transport choice, disjoint messages, max of send + receive") {
  std::mt19937_64 rng(20261123);
  const auto pick = [&](index_t lo, index_t hi) {
    return std::uniform_int_distribution<index_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 60; ++trial) {
    const int np = static_cast<int>(pick(1, 4));
    const index_t m = pick(1, 90), n = pick(1, 90);
    const Layout src{Tiling{UniformAxis<>(m, pick(1, 20)), UniformAxis<>(n, pick(1, 20))},
                     BlockCyclic(static_cast<int>(pick(1, np)), 1)};
    const Layout dst{Tiling{UniformAxis<>(m, pick(1, 20)), UniformAxis<>(n, pick(1, 20))},
                     BlockCyclic(1, static_cast<int>(pick(1, np)))};
    PlanOptions o;
    o.batch = pick(0, 3);
    // A displaced region: any extent that fits from random origins on both sides.
    const index_t r0 = pick(0, m - 1), c0 = pick(0, n - 1), r1 = pick(0, m - 1),
                  c1 = pick(0, n - 1);
    const Region region{Extents{pick(1, m - std::max(r0, r1)), pick(1, n - std::max(c0, c1))},
                        ElementIndex{r0, c0}, ElementIndex{r1, c1}};
    for (int rank = 0; rank < np; ++rank) {
      const Plan plan = make_plan(src, dst, region, rank, np, o);
      for (int choice = 0; choice < 3; ++choice) {
        std::vector<Transport> send(plan.send.messages.size(), Transport::point_to_point);
        std::vector<Transport> recv(plan.recv.messages.size(), Transport::point_to_point);
        if (choice > 0) {
          for (auto& t : send) t = static_cast<Transport>(pick(0, 2));
          for (auto& t : recv) t = static_cast<Transport>(pick(0, 2));
        }
        Buffers b;
        b.lay_out_sends(plan.send, send);
        b.lay_out_receives(plan.recv, recv);
        b.allocate();
        const std::size_t batches = static_cast<std::size_t>(std::max<index_t>(plan.batches, 1));
        std::vector<index_t> send_b(batches, 0), recv_b(batches, 0);
        std::vector<std::vector<std::pair<index_t, index_t>>> used(batches);
        for (std::size_t k = 0; k < send.size(); ++k) {
          if (send[k] == Transport::direct) continue;
          const Message& msg = plan.send.messages[k];
          const index_t at = b.send_at(k) - b.data();
          send_b[static_cast<std::size_t>(msg.batch)] += msg.elements;
          used[static_cast<std::size_t>(msg.batch)].emplace_back(at, at + msg.elements);
        }
        for (std::size_t k = 0; k < recv.size(); ++k) {
          if (recv[k] != Transport::point_to_point) continue;
          const Message& msg = plan.recv.messages[k];
          recv_b[static_cast<std::size_t>(msg.batch)] += msg.elements;
        }
        index_t need = 0;
        for (std::size_t k = 0; k < recv.size(); ++k) {
          if (recv[k] != Transport::point_to_point) continue;
          const Message& msg = plan.recv.messages[k];
          const std::size_t bt = static_cast<std::size_t>(msg.batch);
          const index_t at = b.recv_at(k) - b.data();
          CHECK(at >= send_b[bt]);  // the receive part follows the batch's send part
          used[bt].emplace_back(at, at + msg.elements);
        }
        for (std::size_t bt = 0; bt < batches; ++bt) {
          need = std::max(need, send_b[bt] + recv_b[bt]);
          CHECK(disjoint(used[bt]));
          for (const auto& [first, end] : used[bt]) CHECK(end <= send_b[bt] + recv_b[bt]);
        }
        CHECK(b.elements() == need);
        CHECK(b.elements() <= plan.stats.buffer_elements);
        CHECK(b.bytes() == need * static_cast<index_t>(sizeof(double)));
      }
    }
  }
}

TEST_CASE("message buffers: the transport cuts a message above 2^31 bytes into int counts") {
  // Point-to-point sends each piece with an MPI int count (transport/link.hpp): every piece
  // must be positive, at most INT_MAX bytes, and the pieces must tile the message, whatever
  // limit the Link was given (planning refuses one above INT_MAX; the Link caps it anyway).
  transport::Link<double, Kokkos::HostSpace> link;
  const index_t elements = (index_t{1} << 28) + 3;  // 2^31 + 24 bytes
  const index_t total = elements * 8;
  for (const index_t limit : {index_t{INT_MAX}, index_t{1} << 30, index_t{1000003},
                              index_t{INT_MAX} + 1, index_t{1} << 40}) {
    CAPTURE(limit);
    link.max_message_bytes = limit;
    index_t next = 0, pieces = 0, bad = 0;
    link.for_each_piece(elements, [&](index_t off, int bytes) {
      bad += off != next || bytes < 1 || static_cast<index_t>(bytes) > limit;
      next = off + bytes;
      ++pieces;
    });
    const index_t cap = std::min<index_t>(limit, INT_MAX);
    CHECK(bad == 0);
    CHECK(next == total);
    CHECK(pieces == (total + cap - 1) / cap);
  }
}
