#pragma once
/// @file engine/bound_copies.hpp
/// The copy programs of one engine (engine/wired.hpp): every sent chunk's packs, every
/// received chunk's unpacks and every local part's copies, bound once
/// (engine/bind_copies.hpp) between the matrices and the message buffers of the chosen
/// transports. Packs write their message in the send buffer, or, pushed
/// (transport/push.hpp), straight into the receiver's target; unpacks read theirs in the
/// receive buffer (point to point), in the sender's source tiles (direct), or in the
/// sender's part of the node window, where they are pointed when the sender's note
/// arrives (point_unpacks). Three host pools (engine/bound_pool.hpp), mirrored to device
/// memory for device spaces.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy/element_op.hpp>
#include <redist/copy/strided_copy.hpp>
#include <redist/engine/bind_copies.hpp>
#include <redist/engine/bound_pool.hpp>
#include <redist/engine/chunking.hpp>
#include <redist/engine/cross_memory_reads.hpp>
#include <redist/engine/fused_sweeps.hpp>
#include <redist/engine/matrix_sides.hpp>
#include <redist/engine/pack_followers.hpp>
#include <redist/engine/peer_pages.hpp>
#include <redist/engine/store_choice.hpp>
#include <redist/engine/streaming_choice.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform_op.hpp>
#include <redist/transport/message_buffers.hpp>

namespace redist::engine {

template <class T, class MemorySpace>
class BoundCopies {
 public:
  using execution_space = typename MemorySpace::execution_space;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  BoundCopies() = default;

  /// Binds every copy of `graph`'s chunks between part k's matrices (sides.src[k],
  /// sides.dst[k]) and the message buffers: packs of the messages that are packed (not
  /// read in place), unpacks from the buffers or, for a message read in place, from the
  /// sender's segments `described[m]` (in binding order; cross-memory ones read from
  /// process peer_pid[m] first, engine/cross_memory_reads.hpp), and the local copies.
  /// Keeps no reference to its arguments.
  template <class Sides>
  BoundCopies(const Plan& plan, const TaskGraph& graph, const Sides& sides,
              const transport::MessageBuffers<T, MemorySpace>& buffers,
              const std::vector<std::vector<Address<T>>>& described,
              const std::vector<std::vector<std::pair<T*, index_t>>>& targets,
              const std::vector<std::int64_t>& peer_pid, const Transform<T>& transform,
              const ExecutionOptions& options) {
    bind_sends(plan, graph, sides, targets);
    for (std::size_t c = 0; c < graph.send.chunks.size(); ++c) {
      const Chunk& ch = graph.send.chunks[c];
      if (graph.send_transport[ch.message] != Transport::push)
        point_packs(c, buffers.chunk_at(ch.message, c, ch.offset), ch.offset);
    }
    // Receives: each direct message's described segments, consumed in order, chunk
    // after chunk (binding advances the cursor).
    recv_.reserve(graph.recv);
    std::vector<DescribedSide<T>> source;
    source.reserve(described.size());
    for (const auto& list : described) source.push_back({list.data(), transform.transposes()});
    // Cross-memory reads land in the target when there is nothing to compute.
    const bool bounce = transform.transposes() || transform.scales();
    reads_.reserve(graph.recv, graph.recv_transport, bounce);
    std::vector<Address<T>> landed;  // a slice's segments in the bounce buffer
    SharedRuns shared(!host_memory);
    for (const Chunk& ch : graph.recv.chunks) {
      const std::size_t first = recv_.pool.copies.size();
      const Transport how = graph.recv_transport[ch.message];
      // A pushed message is in the target when it arrives: nothing to unpack.
      for (std::size_t k = ch.first; how != Transport::push && k < ch.end; ++k) {
        const Slice& s = graph.recv.slices[k];
        const auto& dst = sides.dst[static_cast<std::size_t>(part_of(plan.recv, s))];
        if (how == Transport::cross_memory && !bounce) {
          reads_.read_into(plan, plan.recv, s, source[ch.message], dst);
        } else if (how == Transport::cross_memory) {
          landed.clear();
          reads_.read_bounced(plan, plan.recv, s, source[ch.message], landed);
          bind_slice(plan, plan.recv, s, DescribedSide<T>{landed.data(), transform.transposes()},
                     dst, recv_.pool, recv_.rel, shared);
        } else if (how == Transport::direct || how == Transport::device_ipc) {
          bind_slice(plan, plan.recv, s, source[ch.message], dst, recv_.pool, recv_.rel, shared);
        } else {
          bind_slice(plan, plan.recv, s, BufferSide{}, dst, recv_.pool, recv_.rel, shared,
                     sides.flat);
        }
        recv_.rel.resize(recv_.pool.copies.size());  // read in place: rel[k] stays copy k's
      }
      recv_.close_chunk(first, ch.end, graph.recv.slices.size());
      reads_.end_chunk(static_cast<pid_t>(peer_pid[ch.message]));
    }
    for (std::size_t c = 0; c < graph.recv.chunks.size(); ++c) {
      const std::size_t m = graph.recv.chunks[c].message;
      if (graph.recv_transport[m] == Transport::point_to_point)
        point_unpacks(c, buffers.recv_at(m) + graph.recv.chunks[c].offset,
                      graph.recv.chunks[c].offset);
    }
    bind(plan, plan.local, graph.local, sides.src, sides.dst, local_);
    // The copies that write the target apply the transform's alpha, beta and conjugation.
    for (Bound* b : {&recv_, &local_}) b->pool.op = ElementOp<T>(transform);
    for (Bound* b : {&send_, &recv_, &local_}) b->shrink();
    choose_streaming(plan.stats, options, buffers, graph);
  }

  /// Points the packs of sent chunk c, elements [offset, ...) of its message, at `at`.
  void point_packs(std::size_t c, T* at, index_t offset) {
    for (std::size_t k = send_.range[c].first; k < send_.range[c].second; ++k)
      send_.pool.copies[k].dst = at + (send_.rel[k] - offset);
  }
  /// Points the unpacks of received chunk c, elements [offset, ...) of its message, at `at`.
  void point_unpacks(std::size_t c, const T* at, index_t offset) {
    for (std::size_t k = recv_.range[c].first; k < recv_.range[c].second; ++k)
      recv_.pool.copies[k].src = at + (recv_.rel[k] - offset);
  }
  /// Makes present in this process's page tables the peers' node-shared pages that its
  /// moves touch in place (engine/peer_pages.hpp): the target spans its pushed chunks
  /// write and the source spans its direct reads read. Returns the bytes made present.
  std::size_t populate_peer_pages(const TaskGraph& graph) const {
    if constexpr (!host_memory) {
      return 0;  // device memory is mapped by its driver, not by page faults here
    } else {
      using Side = typename Bound::Side;
      PeerPages written, read;
      const auto add_to = [](PeerPages& pages) {
        return [&pages](std::uintptr_t first, std::uintptr_t end) { pages.add(first, end); };
      };
      // A summary per pool: it is kept by run indices, which each pool numbers its own way.
      LastRunSummary sent, received;
      for (std::size_t c = 0; c < send_.range.size(); ++c)
        if (graph.send_transport[graph.send.chunks[c].message] == Transport::push)
          send_.for_each_member_span(c, Side::target, sent, add_to(written));
      for (std::size_t c = 0; c < recv_.range.size(); ++c)
        if (graph.recv_transport[graph.recv.chunks[c].message] == Transport::direct)
          recv_.for_each_member_span(c, Side::source, received, add_to(read));
      // Reads first: a page both read and written ends up writable.
      const std::size_t bytes = read.populate(redist::detail::PageAccess::read);
      return bytes + written.populate(redist::detail::PageAccess::write);
    }
  }

  /// Brings the device copies of the pools up to date (device memory spaces).
  void mirror() {
    if constexpr (!host_memory) {
      for (Bound* b : {&send_, &recv_, &local_}) b->mirror();
    }
  }

  /// Calls f(buffer element, matrix element, length) for every run that sent chunk c's
  /// packs copy; false (and stops) if one reads its source transposed.
  template <class F>
  bool for_each_sent_run(std::size_t c, F&& f) const {
    return send_.for_each_run(c, [&](const T* from, const T* to, index_t n) { f(to, from, n); });
  }
  /// The same for received chunk c's unpacks (from the buffer into the matrix); false if
  /// they do more than copy (a transform's alpha, beta, conjugation or transpose) or read
  /// a peer's memory.
  template <class F>
  bool for_each_received_run(std::size_t c, F&& f) const {
    if (!recv_.pool.op.plain() || reads_.reads(c)) return false;
    return recv_.for_each_run(c, f);
  }
  /// Sent and received chunks whose packs and unpacks MPI does instead (derived datatypes,
  /// transport/chunk_datatypes.hpp): pack() and unpack() skip them.
  void leave_to_mpi(std::vector<bool> sent, std::vector<bool> received) {
    mpi_packs_ = std::move(sent);
    mpi_unpacks_ = std::move(received);
  }

  /// Sweeps each sent chunk's pack with the local parts that follow it (follows[p], as
  /// task_graph.hpp's follow_packs; engine/fused_sweeps.hpp): pack(c) then copies those
  /// parts too, and copy_local(p) of such a part copies nothing; the swept parts' stores
  /// chosen again (engine/store_choice.hpp). Host memory only, and no transposed source
  /// (the sweep interleaves the runs of one source column).
  void sweep_followers(const std::vector<std::size_t>& follows) {
    if constexpr (host_memory) {
      fused_ = FusedSweeps<T>(send_.pool, send_.range, local_.pool, local_.range, follows);
      choose_swept_stores(streaming_, local_.pool, local_.range, follows, pushed_,
                          [&](std::size_t p) { return fused_.swept(p); });
    }
  }

  /// Runs the packs of sent chunk c (and the local parts swept with it), the unpacks of
  /// received chunk c, local part p: one program each on `exec`.
  void pack(const execution_space& exec, std::size_t c) const {
    if (c < mpi_packs_.size() && mpi_packs_[c]) return;
    if constexpr (host_memory) {
      if (fused_.sweeps(c)) {
        fused_.run(exec, c, send_.pool, local_.pool);
        return;
      }
    }
    send_.run(exec, c);
  }
  void unpack(const execution_space& exec, std::size_t c) const {
    if (c < mpi_unpacks_.size() && mpi_unpacks_[c]) return;
    if (reads_.reads(c)) {
      if (reads_.bounces()) exec.fence();  // the last chunk's copies are done with it
      reads_.read(c);
    }
    recv_.run(exec, c);
  }
  void copy_local(const execution_space& exec, std::size_t p) const {
    if (!fused_.swept(p)) local_.run(exec, p);
  }

  /// The source bytes that each sent chunk's packs read, as the address range [first,
  /// second) around them; {0, 0} for a chunk that packs nothing here (read in place, or
  /// packed by MPI).
  std::vector<AddressSpan> sent_source_spans() const {
    std::vector<AddressSpan> spans = send_.source_spans();
    for (std::size_t c = 0; c < spans.size() && c < mpi_packs_.size(); ++c)
      if (mpi_packs_[c]) spans[c] = {};
    return spans;
  }
  /// The same for each local part's copies.
  std::vector<AddressSpan> local_source_spans() const { return local_.source_spans(); }

  /// Whether packing streams (its chunk must be fenced before a peer reads it).
  bool streaming_packs() const { return streaming_.packs; }

  /// Bytes of the copy programs: capacity x element size of every host container, plus
  /// the device copies of the pools.
  std::size_t memory_bytes() const {
    std::size_t bytes = reads_.memory_bytes() + fused_.memory_bytes() + pushed_.capacity();
    for (const Bound* b : {&send_, &recv_, &local_}) bytes += b->memory_bytes();
    return bytes;
  }

 private:
  using Bound = BoundPool<T, MemorySpace>;

  /// Binds every sent chunk's packs: into the message buffer, or, for a pushed message,
  /// into the receiver's target segments `targets[m]` (in binding order, consumed chunk
  /// after chunk); nothing for a message read in place.
  template <class Sides>
  void bind_sends(const Plan& plan, const TaskGraph& graph, const Sides& sides,
                  const std::vector<std::vector<std::pair<T*, index_t>>>& targets) {
    std::vector<DescribedTarget<T>> pushed;
    pushed.reserve(targets.size());
    for (const auto& list : targets) pushed.push_back({list.data()});
    send_.reserve(graph.send);
    SharedRuns shared(!host_memory);
    for (const Chunk& ch : graph.send.chunks) {
      const std::size_t first = send_.pool.copies.size();
      const Transport how = graph.send_transport[ch.message];
      for (std::size_t k = ch.first; !reads_in_place(how) && k < ch.end; ++k) {
        const Slice& s = graph.send.slices[k];
        const auto& src = sides.src[static_cast<std::size_t>(part_of(plan.send, s))];
        if (how == Transport::push) {
          bind_slice(plan, plan.send, s, src, pushed[ch.message], send_.pool, send_.rel, shared);
          send_.rel.resize(send_.pool.copies.size());  // no buffer: rel[k] stays copy k's
        } else {
          bind_slice(plan, plan.send, s, src, BufferSide{}, send_.pool, send_.rel, shared,
                     sides.flat);
        }
      }
      send_.close_chunk(first, ch.end, graph.send.slices.size());
    }
  }

  /// Binds every slice of `d` (chunk by chunk) between two sides; the chunks of messages
  /// that `bound(m)` rejects get an empty range.
  struct Every {
    bool operator()(std::size_t) const { return true; }
  };
  template <class S, class D, class Which = Every>
  void bind(const Plan& plan, const FamilyList& d, const Chunking& chunking, const S& src,
            const D& dst, Bound& out, bool flat = false, Which bound = {}) {
    out.reserve(chunking);
    SharedRuns shared(!host_memory);
    for (const Chunk& ch : chunking.chunks) {
      const std::size_t first = out.pool.copies.size();
      for (std::size_t k = ch.first; bound(ch.message) && k < ch.end; ++k) {
        const index_t part = part_of(d, chunking.slices[k]);
        bind_slice(plan, d, chunking.slices[k], side_of(src, part), side_of(dst, part), out.pool,
                   out.rel, shared, flat);
      }
      out.close_chunk(first, ch.end, chunking.slices.size());
    }
  }

  /// The stores of every copy, streamed or cached (engine/store_choice.hpp).
  void choose_streaming(const PlanStats& st, const ExecutionOptions& options,
                        const transport::MessageBuffers<T, MemorySpace>& buffers,
                        const TaskGraph& graph) {
    streaming_ = StreamingChoice::choose(st, options, sizeof(T), host_memory);
    pushed_.assign(send_.range.size(), 0);
    for (std::size_t c = 0; c < pushed_.size(); ++c)
      pushed_[c] = graph.send_transport[graph.send.chunks[c].message] == Transport::push;
    choose_stores(
        streaming_, send_.pool, send_.range, pushed_,
        [&](std::size_t c) { return buffers.in_ring(c); }, recv_.pool, local_.pool);
  }

  /// The part (plan/plan_parts.hpp) of slice s, and a part's side: a matrix side per
  /// part, or the one buffer side.
  static index_t part_of(const FamilyList& d, const Slice& s) { return d.families[s.family].part; }
  template <class S>
  static const S& side_of(const S& side, index_t) {
    return side;
  }
  template <class S>
  static const S& side_of(const std::vector<S>& sides, index_t part) {
    return sides[static_cast<std::size_t>(part)];
  }

  Bound send_, recv_, local_;
  CrossMemoryReads<T> reads_;
  FusedSweeps<T> fused_;
  StreamingChoice streaming_;
  std::vector<bool> mpi_packs_, mpi_unpacks_;  ///< per chunk: MPI copies it (leave_to_mpi)
  std::vector<std::uint8_t> pushed_;           ///< per sent chunk: written into a peer's target
};

}  // namespace redist::engine
