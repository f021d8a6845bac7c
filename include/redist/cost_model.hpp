#pragma once
/// @file cost_model.hpp
/// predict: how long a move will take, from the plans alone (no MPI, nothing run), by the
/// cost model of Cao et al. 2021 (papers/cao2021-evaluating-redistribution-parsec.txt,
/// section 7.2, Eq. 3-5) on the two link classes of Cao et al. 2020 (section 4): between
/// nodes and within one.
///
/// Rank i's time is a sum of terms (Eq. 4, each term below in seconds):
///
/// | term      | Eq. 4                  | here                                                  |
/// |-----------|------------------------|-------------------------------------------------------|
/// | link      | M_remote^i / B_net     | the bytes over rank i's node link, the busier         |
/// |           |                        | direction (the sum over the node's ranks), / B_link   |
/// | shm       | (in B_net)             | bytes to / from ranks of i's node, the larger, /      |
/// |           |                        | B_shm (0 with the node window: no copy but pack and   |
/// |           |                        | unpack, which are counted below)                      |
/// | latency   | T_extra^i              | messages between nodes x L_link + within x L_shm      |
/// |           |                        | (sent or received, the more)                          |
/// | pack      | M_remote^i / B_memcpy  | (M_send^i / B_memcpy + runs_send^i x c_run) x s       |
/// | unpack    | M_remote^i / B_memcpy  | (M_receive^i / B_memcpy + runs_recv^i x c_run) x s    |
/// |           |                        | (bytes within the node at B_ring where it applies,    |
/// |           |                        | but for those in pieces)                              |
/// | local     | M_local^i / B_memcpy   | (M_local^i / B_memcpy + runs_local^i x c_run) x s     |
///
/// and the shm term is multiplied by s too. Beyond Cao et al.:
///
/// - runs (contiguous_runs, plan/copy_runs.hpp): the contiguous pieces each copy reads or
///   writes in tile storage, each costing c_run (Machine::copy_run_s) on top of its bytes:
///   a segment is one run where its rows are the whole column of its tile on the side(s)
///   the copy walks with gaps (the source tile for pack, the target tile for unpack, both
///   for local; the message buffer is written and read in order), and one run per column
///   otherwise. Case a of
///   bench/README.md, 256^2 -> 100^2 tiles: each 100-row piece of a 256-row source tile
///   is 100 runs of 800 bytes when packed, each whole 100 x 100 target tile one run when
///   unpacked;
/// - s, ranks sharing cores: max(1, node_ranks / Machine::cores_per_node) when
///   cores_per_node > 0, else 1. A node of 4 ranks on 2 cores runs each rank half the
///   time, so its copies take twice as long; the latency and link terms are not scaled.
/// - B_ring (Machine::ring_bytes_per_s), chunks that stay in the cache: a chunk packed into
///   a cache-sized ring slot of the node window, or into an MPI chunk (chunk_bytes, 2 MiB)
///   for a rank of the node, is read back from the shared cache, so pack and unpack cross
///   memory on their side in memory only, and together pass over it once, as one memcpy
///   does. Where B_ring is calibrated, the bytes a rank packs for, and unpacks from, ranks of
///   its node through the rings or MPI are charged at B_ring, measured by packing and
///   unpacking through such a ring (redist-calibrate), but for the bytes in pieces
///   (RankLoad::sent_in_pieces: copies that walk their tiles' columns with gaps on the side
///   in memory, the rest of each column going elsewhere), which are bound by their runs
///   and gain nothing from the cache: those stay at B_memcpy (bench/README.md, "Pieces in
///   the cache"). Runs still cost c_run each;
/// - routes within a node: a wired move knows what carried each message (rank_load with
///   its transports; redist-run does this), and then its bytes within the node are
///   charged by route: MPI's (pack and unpack at B_ring, the shm term), the node window's
///   (pack and unpack at B_ring where its rings run, else B_memcpy; no shm term), or read in
///   place (direct, cross-memory: nothing packed, one copy by the receiver at B_memcpy; a
///   floor for cross-memory, whose gather runs below it). From a plan alone (redist-plan)
///   the machine decides: MPI when shm_bytes_per_s > 0, the node window otherwise;
/// - shm is MPI's own copy within a node (Open MPI's shared-memory transport copies every
///   byte in or out, the sender's and the receiver's memory both read and written), at
///   the rate redist-calibrate measures with every rank of the node exchanging at once,
///   so it competes for memory as in a move (docs/cost-model.md).
///
/// T = max_i T^i (Eq. 2, 4); the critical rank is that i. With every remote byte between
/// nodes, one rank a node, M_send = M_receive, c_run = 0 and s = 1 this is Eq. 4 with
/// T_extra the latency. Eq. 3's bandwidth at T and Eq. 5's bound come with it.
///
/// Worked example (tests/unit/test_cost_model.cpp): two ranks on two nodes, rank 0 sends
/// 8 MB to rank 1 in one message, B_link = 1 GB/s, L_link = 10 us, B_memcpy = 4 GB/s:
/// rank 0: link 8 ms + latency 0.01 ms + pack 2 ms = 10.01 ms; rank 1: link 8 ms + latency
/// 0.01 ms + unpack 2 ms = 10.01 ms; T = 10.01 ms, critical rank 0 (the lower of a tie).
/// With c_run = 100 ns and rank 0's 8 MB packed as 10000 runs of 800 bytes: pack 2 ms + 1 ms
/// = 3 ms, T = 11.01 ms; the same ranks two a node on a node of 1 core (s = 2): rank 0's
/// pack 6 ms.
///
/// The machine's parameters: cost/machine.hpp; a rank's load (bytes, messages, runs, and
/// routes within the node): cost/rank_load.hpp; this file: the terms and predict.
///
/// Pure: it reads plans (plan.hpp) or their statistics with the node fields filled
/// (plan/node_traffic.hpp). A sample of the ranks is enough: a node's link bytes are then
/// the mean of its sampled ranks times its ranks (RankLoad::node_ranks), and
/// Prediction::link_estimated says so.

#include <algorithm>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <redist/cost/machine.hpp>
#include <redist/cost/rank_load.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/plan.hpp>
#include <redist/plan/node_traffic.hpp>

namespace redist {

/// Rank `rank`'s time, term by term (the table in the file comment), in seconds.
struct RankTime {
  int rank = 0;
  double link = 0, shm = 0, latency = 0, pack = 0, unpack = 0, local = 0;
  /// Of pack + unpack + local, what their runs cost (s x runs x c_run): a part of them, not
  /// a term of its own.
  double runs = 0;
  double total() const { return link + shm + latency + pack + unpack + local; }
};

/// What predict says of a move.
struct Prediction {
  double seconds = 0;      ///< T = max over ranks of RankTime::total (Eq. 4)
  int critical_rank = -1;  ///< the rank of that maximum (the lowest of a tie); -1: no rank
  RankTime critical;       ///< its terms
  /// The busiest node link, the busier direction: its bytes and node (-1: no byte leaves
  /// a node).
  index_t link_bytes = 0;
  int link_node = -1;
  /// Eq. 3 at T: max over ranks of max(M_send, M_receive) / T (0 when T = 0).
  double bandwidth_bytes_per_s = 0;
  /// Eq. 5 with T_extra = 0: B_net B_memcpy / ((2 + r) B_net + B_memcpy), r = M_local /
  /// M_remote of the maxima over ranks (0 when nothing is remote), B_net = link.
  double bound_bytes_per_s = 0;
  /// Whether some node's link bytes were scaled from a sample of its ranks.
  bool link_estimated = false;
  std::vector<RankTime> ranks;  ///< one per load, in the order given
};

/// How `bytes` within a rank's node travel: `known` where the load says (routes_known),
/// else as the machine says (MPI when it has a shared-memory bandwidth, else the node
/// window, through rings when it has their rate).
/// @throws invalid_argument when known routes do not sum to `bytes`.
namespace detail {
inline NodeBytes node_bytes_by_route(index_t bytes, const NodeBytes& known,
                                     const redist::RankLoad& l, const Machine& m) {
  if (l.routes_known) {
    detail::require<invalid_argument>(
        known.point_to_point >= 0 && known.window >= 0 && known.in_place >= 0 &&
            known.pushed >= 0 && known.total() == bytes,
        "routes must be >= 0 and sum to the bytes within the node", "RankLoad::rank", l.rank);
    return known;
  }
  NodeBytes b;
  (m.shm_bytes_per_s > 0 ? b.point_to_point : b.window) = bytes;
  return b;
}
}  // namespace detail

/// The predicted time of a move whose ranks (all, or a sample) carry `loads`, on machine
/// `m`. O(loads log loads).
/// @pre every load of one node gives the same node_ranks >= 1, and no rank twice.
/// @post seconds == max over ranks of RankTime::total, ranks[k] is loads[k]'s time.
/// @throws invalid_argument for a bad machine (validate; the link bandwidth only when some
/// byte crosses a node) or a load with node_ranks < 1, negative bytes or negative runs.
inline Prediction predict(std::span<const RankLoad> loads, const Machine& m) {
  Prediction p;
  // A node's link: the sums over its given ranks, scaled by ranks / given where a sample.
  struct NodeSum {
    index_t sent = 0, received = 0;
    int given = 0, ranks = 1;
  };
  std::map<int, NodeSum> nodes;
  bool crosses = false;
  for (const RankLoad& l : loads) {
    detail::require<invalid_argument>(l.node_ranks >= 1, "a node has at least one rank",
                                      "RankLoad::node_ranks", l.node_ranks);
    detail::require<invalid_argument>(l.sent >= 0 && l.received >= 0 && l.local >= 0 &&
                                          l.sent_inter_node >= 0 && l.received_inter_node >= 0,
                                      "bytes must be >= 0", "RankLoad::rank", l.rank);
    detail::require<invalid_argument>(l.runs_sent >= 0 && l.runs_received >= 0 && l.runs_local >= 0,
                                      "runs must be >= 0", "RankLoad::rank", l.rank);
    detail::require<invalid_argument>(
        l.sent_in_pieces >= 0 && l.sent_in_pieces <= l.sent && l.received_in_pieces >= 0 &&
            l.received_in_pieces <= l.received,
        "bytes in pieces must be >= 0 and at most the bytes sent (received)", "RankLoad::rank",
        l.rank);
    NodeSum& n = nodes[l.node];
    n.sent += l.sent_inter_node;
    n.received += l.received_inter_node;
    n.given += 1;
    n.ranks = l.node_ranks;
    crosses = crosses || l.sent_inter_node > 0 || l.received_inter_node > 0;
  }
  validate(m, crosses);
  std::map<int, double> node_bytes;  // the busier direction of each node's link
  for (const auto& [node, n] : nodes) {
    double bytes = static_cast<double>(std::max(n.sent, n.received));
    if (n.given < n.ranks) {
      bytes = bytes * n.ranks / n.given;
      p.link_estimated = p.link_estimated || bytes > 0;
    }
    node_bytes[node] = bytes;
    if (bytes > 0 && static_cast<index_t>(bytes) > p.link_bytes) {
      p.link_bytes = static_cast<index_t>(bytes);
      p.link_node = node;
    }
  }
  const auto over = [](double bytes, double rate) { return rate > 0 ? bytes / rate : 0.0; };
  index_t remote_max = 0, local_max = 0;
  p.ranks.reserve(loads.size());
  for (const RankLoad& l : loads) {
    RankTime t;
    t.rank = l.rank;
    t.link = over(node_bytes[l.node], m.link_bytes_per_s);
    const double share = core_sharing(m, l.node_ranks);
    const NodeBytes sent_in =
        detail::node_bytes_by_route(l.sent - l.sent_inter_node, l.sent_in_node, l, m);
    const NodeBytes received_in =
        detail::node_bytes_by_route(l.received - l.received_inter_node, l.received_in_node, l, m);
    t.shm = share *
            over(static_cast<double>(std::max(sent_in.point_to_point, received_in.point_to_point)),
                 m.shm_bytes_per_s);
    t.latency =
        static_cast<double>(std::max(l.messages_sent_inter_node, l.messages_received_inter_node)) *
            m.link_latency_s +
        static_cast<double>(std::max(l.messages_sent - l.messages_sent_inter_node,
                                     l.messages_received - l.messages_received_inter_node)) *
            m.shm_latency_s;
    // Of `bytes` copied, `skipped` are not (read in place: the sender packs nothing; pushed:
    // the receiver unpacks nothing) and
    // `cached` go through a chunk that stays in the cache (a ring's slot; an MPI chunk
    // within the node): those the copy walks densely on its side in memory cross memory on
    // that side only, at B_ring; those it walks in pieces are bound by their runs, not by
    // bandwidth, and cost as in any copy (B_memcpy). The pieces' share of `bytes` is taken
    // as their share of each route's.
    const double cache_rate = node_copy_bytes_per_s(m);
    const auto copy = [&](index_t bytes, index_t skipped, index_t cached, index_t in_pieces,
                          index_t runs) {
      const double dense =
          bytes > 0 ? static_cast<double>(cached) *
                          (1 - static_cast<double>(in_pieces) / static_cast<double>(bytes))
                    : 0.0;
      return share * (over(static_cast<double>(bytes - skipped) - dense, m.memcpy_bytes_per_s) +
                      over(dense, cache_rate) + static_cast<double>(runs) * m.copy_run_s);
    };
    const auto cached = [&](const NodeBytes& b) {
      return b.point_to_point + (l.rings ? b.window : 0);
    };
    t.pack = copy(l.sent, sent_in.in_place, cached(sent_in), l.sent_in_pieces, l.runs_sent);
    // A pushed message is copied by its sender (its pack) and never unpacked.
    t.unpack = copy(l.received, received_in.pushed, cached(received_in), l.received_in_pieces,
                    l.runs_received);
    t.local = copy(l.local, 0, 0, 0, l.runs_local);
    t.runs =
        share * static_cast<double>(l.runs_sent + l.runs_received + l.runs_local) * m.copy_run_s;
    if (p.critical_rank < 0 || t.total() > p.seconds ||
        (t.total() == p.seconds && t.rank < p.critical_rank)) {
      p.seconds = t.total();
      p.critical_rank = t.rank;
      p.critical = t;
    }
    remote_max = std::max({remote_max, l.sent, l.received});
    local_max = std::max(local_max, l.local);
    p.ranks.push_back(t);
  }
  if (p.seconds > 0) p.bandwidth_bytes_per_s = static_cast<double>(remote_max) / p.seconds;
  if (remote_max > 0 && m.link_bytes_per_s > 0) {
    const double r = static_cast<double>(local_max) / static_cast<double>(remote_max);
    const double net = m.link_bytes_per_s, mem = m.memcpy_bytes_per_s;
    p.bound_bytes_per_s = net * mem / ((2 + r) * net + mem);
  }
  return p;
}

/// predict over every rank's plan: plans[r] is rank r's (plans[r].rank == r), node_of_rank
/// its node, for elements of `element_bytes`.
/// @throws invalid_argument as rank_load and predict do.
inline Prediction predict(std::span<const Plan> plans, const std::vector<int>& node_of_rank,
                          index_t element_bytes, const Machine& m) {
  std::vector<RankLoad> loads;
  loads.reserve(plans.size());
  for (const Plan& plan : plans) loads.push_back(rank_load(plan, node_of_rank, element_bytes));
  return predict(loads, m);
}

/// predict for one rank's plan alone, as if it were the only rank of its node, the others
/// each on a node of its own (a first guess: its own terms; the critical rank is itself).
inline Prediction predict(const Plan& plan, const Machine& m) {
  std::vector<int> nodes(static_cast<std::size_t>(plan.comm_size));
  for (std::size_t r = 0; r < nodes.size(); ++r) nodes[r] = static_cast<int>(r);
  const RankLoad l = rank_load(plan, nodes, plan.options.element_bytes);
  return predict(std::span<const RankLoad>(&l, 1), m);
}

}  // namespace redist
