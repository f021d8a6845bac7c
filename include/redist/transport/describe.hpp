#pragma once
/// @file transport/describe.hpp
/// The description exchange, step 4 of choosing transports (transport/choose.hpp): every
/// on-node message is described to its receiver once, in two rounds:
/// 1. a head: {0, 0, 0} when it is packed, {1, window id, sender's node rank} when the
///    receiver reads it in a window, {2, sender's process id, 0} when it reads it
///    cross-memory, {3, handle count, 0} when it reads it from the sender's device memory;
/// 2. for those read in place only, per segment: its address (byte offset in the sender's
///    part of the window, or in the sender's address space) and leading dimension; for
///    device memory, first the handles of the allocations that hold the segments, then per
///    segment its handle's index, its offset and its leading dimension
///    (transport/device_ipc.hpp).
/// A packed message costs its head alone, whatever its segment count (an element-cyclic
/// layout has one segment per element).

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/nonblocking.hpp>
#include <boost/mpi/request.hpp>

#include <redist/engine/matrix_sides.hpp>
#include <redist/error.hpp>
#include <redist/node_shared.hpp>
#include <redist/plan.hpp>
#include <redist/transport/device_ipc.hpp>
#include <redist/transport/ring_signals.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

using engine::Address;

/// The transports chosen, and what they need.
template <class T>
struct TransportChoice {
  std::vector<Transport> send, recv;                   ///< per message
  std::shared_ptr<redist::detail::NodeWindow> window;  ///< the send parts; null: none
  std::vector<const T*> peer_part;  ///< each rank's send part in the window; null off node
  /// With rings, their counters (transport/ring_signals.hpp); null: none.
  std::shared_ptr<RingSignals> ring_signals;
  std::vector<std::shared_ptr<redist::detail::NodeWindow>> direct_windows;
  /// Per received message read in place: the sender's segments, in binding order (for
  /// cross-memory, addresses in the sender's address space).
  std::vector<std::vector<Address<T>>> described;
  /// Per received cross-memory message: the sender's process id.
  std::vector<std::int64_t> peer_pid;
  /// The peers' device allocations mapped here for the messages read by device IPC;
  /// null: none.
  std::shared_ptr<ipc::Imports> imports;
  /// Why no message goes cross-memory although the policy asked for it (the kernel's
  /// refusal); empty otherwise.
  std::string cross_memory_refused;
  /// Pushed messages (transport/push.hpp, transport/push_targets.hpp): per sent message the
  /// receiver's part of the window that holds its target, per received message this
  /// rank's (null: not pushed); the windows of the targets written here or from here; per
  /// sent message, the receiver's target segments in binding order (described once the
  /// chunks are final).
  struct WindowPart {
    char* base = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<WindowPart> push_part, own_part;
  std::vector<std::shared_ptr<redist::detail::NodeWindow>> push_windows;
  std::vector<std::vector<std::pair<T*, index_t>>> targets;
};

namespace detail {

/// The segments of msg: its families' row members times column members.
inline index_t segments_in(const FamilyList& d, const Message& msg) {
  index_t n = 0;
  for (index_t f = msg.first; f < msg.first + msg.count; ++f)
    n += d.families[static_cast<std::size_t>(f)].rows.count *
         d.families[static_cast<std::size_t>(f)].cols.count;
  return n;
}
/// Whether a message of `count` segments fits one description (an MPI int count, with
/// room for the handles of device memory).
inline bool describable(index_t count) { return count <= INT_MAX / 4; }

/// Describes each on-node message to its receiver (the protocol at the top of this file);
/// marks the received messages read in place and fills their segments in `choice`.
/// Collective over the ranks of this node that exchange messages.
/// @throws communication_error if a peer describes a segment with a leading dimension
/// below 1, or a window that is not mapped here.
template <class T>
void exchange_descriptions(
    const boost::mpi::communicator& comm, const Plan& plan, const std::vector<bool>& on_node,
    const std::vector<std::shared_ptr<redist::detail::NodeWindow>>& window_of,
    const std::vector<std::vector<Address<T>>>& segments, const std::vector<ipc::Exports>& exports,
    TransportChoice<T>& choice) {
  const auto add_window = [&](std::shared_ptr<redist::detail::NodeWindow> w) {
    auto& list = choice.direct_windows;
    if (std::find(list.begin(), list.end(), w) == list.end()) list.push_back(std::move(w));
  };
  // read how (0 packed, 1 direct, 2 cross-memory, 3 device IPC), window id or process id or
  // handle count, node rank
  using Head = std::array<std::int64_t, 3>;
  std::vector<Head> head_in(plan.recv.messages.size()), head_out(plan.send.messages.size());
  std::vector<boost::mpi::request> requests;
  // Round 1: one head per on-node message.
  for (std::size_t m = 0; m < plan.recv.messages.size(); ++m) {
    const Message& msg = plan.recv.messages[m];
    if (on_node[static_cast<std::size_t>(msg.peer)])
      requests.push_back(comm.irecv(msg.peer, describe_tag, head_in[m].data(), 3));
  }
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    const Message& msg = plan.send.messages[m];
    if (!on_node[static_cast<std::size_t>(msg.peer)]) continue;
    if (choice.send[m] == Transport::direct) {
      const redist::detail::NodeWindow& w = *window_of[m];
      head_out[m] = {1, static_cast<std::int64_t>(w.id()), w.node_rank()};
      add_window(window_of[m]);
    } else if (choice.send[m] == Transport::cross_memory) {
      head_out[m] = {2, static_cast<std::int64_t>(::getpid()), 0};
    } else if (choice.send[m] == Transport::device_ipc) {
      head_out[m] = {3, static_cast<std::int64_t>(exports[m].handle_count()), 0};
    }
    requests.push_back(comm.isend(msg.peer, describe_tag, head_out[m].data(), 3));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  requests.clear();
  // Round 2: the segments of the messages read in place.
  std::vector<std::vector<std::int64_t>> in(plan.recv.messages.size()),
      out(plan.send.messages.size());
  for (std::size_t m = 0; m < plan.recv.messages.size(); ++m) {
    if (head_in[m][0] == 0) continue;
    const Message& msg = plan.recv.messages[m];
    const index_t count = segments_in(plan.recv, msg);
    std::size_t words = static_cast<std::size_t>(2 * count);
    if (head_in[m][0] == 3) {  // every handle holds a segment
      if (head_in[m][1] < 0 || head_in[m][1] > count)
        throw communication_error(redist::detail::describe(
            "a peer described more device allocations than segments", "peer", msg.peer));
      words = ipc::handle_words * static_cast<std::size_t>(head_in[m][1]) +
              ipc::segment_words * static_cast<std::size_t>(count);
    }
    in[m].resize(words);
    requests.push_back(
        comm.irecv(msg.peer, describe_tag, in[m].data(), static_cast<int>(in[m].size())));
  }
  for (std::size_t m = 0; m < plan.send.messages.size(); ++m) {
    if (head_out[m][0] == 0) continue;
    if (head_out[m][0] == 3) {
      out[m] = exports[m].words();
    } else {
      // Direct: offsets in our part of the window; cross-memory: our own addresses.
      const char* base = head_out[m][0] == 1 ? window_of[m]->base(window_of[m]->node_rank())
                                             : static_cast<const char*>(nullptr);
      out[m].resize(2 * segments[m].size());
      for (std::size_t i = 0; i < segments[m].size(); ++i) {
        const auto* at = reinterpret_cast<const char*>(segments[m][i].first);
        out[m][2 * i] =
            base ? at - base : static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(at));
        out[m][2 * i + 1] = segments[m][i].second;
      }
    }
    requests.push_back(comm.isend(plan.send.messages[m].peer, describe_tag, out[m].data(),
                                  static_cast<int>(out[m].size())));
  }
  boost::mpi::wait_all(requests.begin(), requests.end());
  for (std::size_t m = 0; m < plan.recv.messages.size(); ++m) {
    const Message& msg = plan.recv.messages[m];
    // What the sender published, checked against our plan: as many segments as our
    // plan has (the receive's count), each with a leading dimension of at least 1.
    if (head_in[m][0] == 3) {
      if (!choice.imports) choice.imports = std::make_shared<ipc::Imports>();
      choice.imports->resolve(in[m], static_cast<std::size_t>(head_in[m][1]), msg.peer,
                              choice.described[m]);
      choice.recv[m] = Transport::device_ipc;
      continue;
    }
    for (std::size_t i = 1; i < in[m].size(); i += 2)
      if (in[m][i] < 1)
        throw communication_error(redist::detail::describe(
            "a peer described a segment with a leading dimension below 1", "peer", msg.peer));
    if (head_in[m][0] == 2) {
      choice.described[m].reserve(in[m].size() / 2);
      for (std::size_t i = 0; i + 1 < in[m].size(); i += 2)
        choice.described[m].emplace_back(
            reinterpret_cast<const T*>(static_cast<std::uintptr_t>(in[m][i])), in[m][i + 1]);
      choice.recv[m] = Transport::cross_memory;
      choice.peer_pid[m] = head_in[m][1];
      continue;
    }
    if (head_in[m][0] != 1) continue;
    auto w = redist::detail::NodeWindow::find(static_cast<std::uint64_t>(head_in[m][1]));
    if (!w)
      throw communication_error(redist::detail::describe(
          "node-shared source memory of a peer is not mapped here", "peer", msg.peer));
    const char* base = w->base(static_cast<int>(head_in[m][2]));
    choice.described[m].reserve(in[m].size() / 2);
    for (std::size_t i = 0; i + 1 < in[m].size(); i += 2)
      choice.described[m].emplace_back(reinterpret_cast<const T*>(base + in[m][i]), in[m][i + 1]);
    choice.recv[m] = Transport::direct;
    add_window(std::move(w));
  }
}

}  // namespace detail

}  // namespace redist::transport
