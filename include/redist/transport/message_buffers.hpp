#pragma once
/// @file transport/message_buffers.hpp
/// The one owner of the message layout: where each packed message lies while it travels.
/// Computed once, at connect(), after the ranks agreed on the transports
/// (transport/choose.hpp):
/// - messages that are packed (point to point, shared window) lie back to back per batch
///   in the send part, in message order; direct messages take no room (the receiver
///   reads the source tiles);
/// - messages received point to point lie back to back per batch in the receive part;
///   the others are read in the sender's memory.
/// - with rings (transport/ring_slots.hpp), messages through the node window are packed
///   chunk by chunk into the slots of rings at the start of their batch's send part,
///   which never take more room than the messages would whole;
/// Both parts share one allocation, batch k's receive part right after its send part,
/// so a rank holds max over batches of (send + receive) elements: at most the plan's
/// PlanStats::buffer_elements, and so within PlanOptions::max_buffer_bytes. With a node
/// window that allocation is this rank's part of the window (its send part is read by
/// the node's ranks). Buffers are allocated once and reused by every execution (no page
/// faults per call).
///
/// Device memory without GPU-aware MPI is staged: MPI reads and writes a page-locked host
/// copy of the allocation, and stage_out / stage_in copy a chunk across on the execution's
/// instance.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/checked.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/node_shared.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transport/ring_slots.hpp>

namespace redist::transport {

/// Host memory that a device copies to and from at full speed: page-locked where Kokkos
/// has a space for it (4.0 on), pageable host memory before.
#if KOKKOS_VERSION >= 40000
using staging_space = Kokkos::SharedHostPinnedSpace;
#else
using staging_space = Kokkos::HostSpace;
#endif

template <class T, class MemorySpace>
class MessageBuffers {
 public:
  using execution_space = typename MemorySpace::execution_space;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  /// `staged`: device memory that MPI cannot read (no GPU-aware MPI).
  explicit MessageBuffers(bool staged = false) : staged_(staged && !host_memory) {}

  /// Lays out the send part for these transports (with `ring`, the node window's messages
  /// go through rings: lay_out_rings); returns the elements it needs.
  index_t lay_out_sends(const FamilyList& send, const std::vector<Transport>& how,
                        bool ring = false) {
    send_offset_ = lay_out(
        send, how,
        [ring](Transport t) { return !copied_once(t) && !(ring && t == Transport::shared_window); },
        send_part_);
    return *std::max_element(send_part_.begin(), send_part_.end());
  }
  /// Places the rings at the start of each batch's send part, the packed messages after:
  /// sent chunk c with rings.offset[c] >= 0 is packed there.
  /// @pre lay_out_sends(.., true) done, lay_out_receives not yet.
  void lay_out_rings(const RingSlots& rings, const FamilyList& send) {
    chunk_ring_ = rings.offset;
    for (std::size_t b = 0; b < rings.batch_elements.size() && b < send_part_.size(); ++b)
      send_part_[b] += rings.batch_elements[b];
    for (std::size_t m = 0; m < send.messages.size(); ++m) {
      const auto b = static_cast<std::size_t>(send.messages[m].batch);
      if (b < rings.batch_elements.size()) send_offset_[m] += rings.batch_elements[b];
    }
  }
  /// Lays out the receive part for these transports; returns the elements it needs.
  index_t lay_out_receives(const FamilyList& recv, const std::vector<Transport>& how) {
    recv_offset_ = lay_out(
        recv, how, [](Transport t) { return t == Transport::point_to_point; }, recv_part_);
    recv_batch_.clear();
    for (const Message& m : recv.messages) recv_batch_.push_back(m.batch);
    return *std::max_element(recv_part_.begin(), recv_part_.end());
  }

  /// Elements the parts laid out need: max over batches of (send + receive).
  index_t elements() const {
    index_t need = 0;
    for (std::size_t b = 0; b < send_part_.size(); ++b)
      need = std::max(need, redist::detail::checked_add(send_part_[b], recv_part_[b],
                                                        "message buffer elements"));
    return need;
  }

  /// Allocates the parts laid out, or, with `window` (a node window whose part for this
  /// rank holds at least elements() elements), places them in this rank's part.
  /// @throws storage_error naming the bytes if the allocation fails.
  void allocate(std::shared_ptr<redist::detail::NodeWindow> window = nullptr) {
    const index_t need = elements();
    const index_t bytes =
        redist::detail::checked_mul(need, static_cast<index_t>(sizeof(T)), "message buffer bytes");
    window_ = window ? reinterpret_cast<T*>(window->base(window->node_rank())) : nullptr;
    window_bytes_ = window ? bytes : 0;
    node_window_ = std::move(window);
    if (window_) return;
    try {
      buffer_ = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::messages"),
                          static_cast<std::size_t>(need));
      if (staged_)
        host_ = host_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::staging"),
                          static_cast<std::size_t>(need));
    } catch (const std::exception&) {
      throw storage_error(redist::detail::describe("cannot allocate the message buffers", "bytes",
                                                   bytes * (staged_ ? 2 : 1)));
    }
  }

  /// Where sent message m is packed, and where MPI reads it.
  T* send_at(std::size_t m) const { return base() + send_offset_[m]; }
  char* wire_send(std::size_t m) const {
    return reinterpret_cast<char*>(wire_base() + send_offset_[m]);
  }
  /// Offset of sent message m in the send part.
  index_t send_offset(std::size_t m) const { return send_offset_[m]; }
  /// Where sent chunk c (elements [offset, ...) of message m) is packed: its ring slot, or
  /// its place in its message; as an offset from data() (a window note names it).
  index_t chunk_offset(std::size_t m, std::size_t c, index_t offset) const {
    if (in_ring(c)) return chunk_ring_[c];
    return send_offset_[m] + offset;
  }
  T* chunk_at(std::size_t m, std::size_t c, index_t offset) const {
    return base() + chunk_offset(m, c, offset);
  }
  /// Whether sent chunk c is packed into a ring slot.
  bool in_ring(std::size_t c) const { return c < chunk_ring_.size() && chunk_ring_[c] >= 0; }
  /// Where received message m is unpacked from (point to point), and where MPI writes it.
  T* recv_at(std::size_t m) const { return base() + recv_offset(m); }
  char* wire_recv(std::size_t m) const {
    return reinterpret_cast<char*>(wire_base() + recv_offset(m));
  }

  /// Staging of a chunk (elements [first, first + n) of a message), on `exec`.
  void stage_out(const execution_space& exec, std::size_t m, index_t first, index_t n) const {
    stage(exec, host_, buffer_, send_offset_[m] + first, n);
  }
  void stage_in(const execution_space& exec, std::size_t m, index_t first, index_t n) const {
    stage(exec, buffer_, host_, recv_offset(m) + first, n);
  }
  bool staged() const { return staged_; }
  /// Start of the allocation (or of this rank's window part).
  const T* data() const { return base(); }

  /// Bytes held: the allocation (twice when staged) plus this rank's window part.
  index_t bytes() const {
    const index_t n = static_cast<index_t>(buffer_.extent(0)) * static_cast<index_t>(sizeof(T));
    return n * (staged_ ? 2 : 1) + window_bytes_;
  }

 private:
  using view_type = Kokkos::View<T*, MemorySpace>;
  using host_type = Kokkos::View<T*, staging_space>;

  /// Offsets of the messages that take room (`takes`), compacted per batch; part[b] the
  /// room batch b needs.
  template <class Takes>
  static std::vector<index_t> lay_out(const FamilyList& d, const std::vector<Transport>& how,
                                      Takes takes, std::vector<index_t>& part) {
    part.assign(std::max<std::size_t>(d.batch_elements.size(), 1), 0);
    std::vector<index_t> offset(d.messages.size(), 0);
    for (std::size_t m = 0; m < d.messages.size(); ++m) {
      if (!takes(how[m])) continue;
      index_t& used = part[static_cast<std::size_t>(d.messages[m].batch)];
      offset[m] = used;
      used += d.messages[m].elements;
    }
    return offset;
  }
  index_t recv_offset(std::size_t m) const {
    return send_part_[static_cast<std::size_t>(recv_batch_[m])] + recv_offset_[m];
  }
  T* base() const { return window_ ? window_ : buffer_.data(); }
  T* wire_base() const { return staged_ ? host_.data() : base(); }
  template <class To, class From>
  static void stage(const execution_space& exec, const To& to, const From& from, index_t first,
                    index_t n) {
    const std::pair<std::size_t, std::size_t> r(static_cast<std::size_t>(first),
                                                static_cast<std::size_t>(first + n));
    Kokkos::deep_copy(exec, Kokkos::subview(to, r), Kokkos::subview(from, r));
  }

  bool staged_ = false;
  std::vector<index_t> send_offset_, recv_offset_;    ///< per message, in its batch's part
  std::vector<index_t> send_part_{0}, recv_part_{0};  ///< room per batch
  std::vector<index_t> recv_batch_;                   ///< per received message
  std::vector<index_t> chunk_ring_;  ///< per sent chunk: its slot's offset in its batch, or -1
  view_type buffer_;
  host_type host_;
  std::shared_ptr<redist::detail::NodeWindow> node_window_;  ///< holds window_'s memory
  T* window_ = nullptr;
  index_t window_bytes_ = 0;
};

}  // namespace redist::transport
