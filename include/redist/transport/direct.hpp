#pragma once
/// @file transport/direct.hpp
/// Direct (transport/transport.hpp), for ranks of one node whose receiver reads the
/// sender's source in place, one copy per element: through a mapping of node-shared
/// source tiles (Transport::direct, node_shared.hpp), or through the kernel from a
/// private source (Transport::cross_memory, transport/cross_memory_io.hpp), or by the
/// receiver's device copies from the sender's device memory mapped into its own
/// (Transport::device_ipc, transport/device_ipc.hpp). Nothing is packed. At start() the sender
/// announces each such message with a note (its source is ready); the receiver copies the segments,
/// then acks; the sender's wait() returns only after every ack, so the caller may change the source
/// after it. The receiver only reads: it never writes into a peer.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/node_shared.hpp>
#include <redist/transport/device_ipc.hpp>
#include <redist/transport/link.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class Direct {
 public:
  using value_type = T;
  static constexpr Transport kind = Transport::direct;

  explicit Direct(const Link<T, MemorySpace>* link) : link_(link) {}

  /// The node-shared windows of the sources read in place, ours and the peers' (none
  /// when only cross-memory messages are read in place), and the peers' device memory
  /// mapped here (null: none).
  void attach(std::vector<std::shared_ptr<redist::detail::NodeWindow>> windows,
              std::shared_ptr<ipc::Imports> imports) {
    windows_ = std::move(windows);
    imports_ = std::move(imports);
    note_in_.assign(link_->messages.plan->recv.messages.size(), 0);
    note_out_.assign(link_->messages.plan->send.messages.size(), 0);
    const auto& how = link_->messages.graph->send_transport;
    read_here_.clear();
    for (std::size_t m = 0; m < how.size(); ++m)
      if (reads_in_place(how[m])) read_here_.push_back(m);
    device_reads_ = std::find(how.begin(), how.end(), Transport::device_ipc) != how.end();
  }

  /// Our source is ready: every receiver that reads it in place may read it now.
  void begin() {
    for (const auto& w : windows_) w->publish();
    // A peer's kernels read our device source in their own stream: what was written to
    // it on our instance must be done first.
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
      if (device_reads_) link_->exec->fence();
    for (const std::size_t m : read_here_) {
      const Message& msg = link_->messages.sent(m);
      link_->requests->post({kind, Signal::ack, m}, link_->comm.irecv(msg.peer, read_ack_tag),
                            {msg.peer, 0});
      link_->requests->post_send(link_->comm.isend(msg.peer, data_tag(msg.batch), &note_out_[m], 1),
                                 {msg.peer, 8});
    }
  }

  void post_receives(std::size_t m) {
    const Message& msg = link_->messages.received(m);
    link_->requests->post({kind, Signal::note, m},
                          link_->comm.irecv(msg.peer, data_tag(msg.batch), &note_in_[m], 1),
                          {msg.peer, 8});
  }
  void ship(std::size_t) {}  // nothing is packed: direct messages have no Send tasks
  void shipped(std::size_t) {}
  void unpacked(std::size_t) {}
  void consumed(std::size_t m) {
    link_->exec->fence();
    const int peer = link_->messages.received(m).peer;
    link_->requests->post_send(link_->comm.isend(peer, read_ack_tag), {peer, 0});
  }

  /// A note: the sender's source is ready, every chunk of the message is readable where
  /// its copies were bound (or read from). An ack: the receiver is done with our source.
  template <class Events>
  void complete(const Completion& e, Events& events) {
    if (e.signal == Signal::ack) {
      events.acked(e.index);
      return;
    }
    for (const auto& w : windows_) w->acquire();
    const auto [first, end] = link_->messages.received_chunks(e.index);
    for (std::size_t c = first; c < end; ++c) events.arrived(c, nullptr);
  }

 private:
  const Link<T, MemorySpace>* link_;
  std::vector<std::shared_ptr<redist::detail::NodeWindow>> windows_;
  std::shared_ptr<ipc::Imports> imports_;         ///< kept mapped while copies are bound to them
  std::vector<std::int64_t> note_in_, note_out_;  ///< per message; the content is unused
  std::vector<std::size_t> read_here_;  ///< the messages we send that their receivers read in place
  bool device_reads_ = false;           ///< whether a peer reads our device memory (device IPC)
};

}  // namespace redist::transport
