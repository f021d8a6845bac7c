#pragma once
/// @file detail/bound_copies.hpp
/// The copy programs of one executor (executor.hpp): every sent chunk's packs, every
/// received chunk's unpacks and every local part's copies, bound to the matrices
/// (detail/bind_copies.hpp) and, on the buffer side, relative to their message until
/// connect() points them at it. Host pools, mirrored to device memory for device spaces.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/copy_program.hpp>
#include <redist/detail/bind_copies.hpp>
#include <redist/execution_options.hpp>
#include <redist/placement.hpp>
#include <redist/plan/compact_plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/transform.hpp>
#include <redist/transport/choose.hpp>

namespace redist::detail {

template <class T, class MemorySpace>
class BoundCopies {
 public:
  using execution_space = typename MemorySpace::execution_space;
  using Address = transport::Address<T>;  ///< a segment's start and ld
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  /// Binds the packs and the local copies of `graph`'s chunks between part k's matrices
  /// srcs[k] and dsts[k]; the unpacks wait for bind_receives(). @pre `plan` and `graph`
  /// outlive this object and do not move; `graph` keeps its chunks.
  template <class SrcMatrix, class DstMatrix>
  BoundCopies(const CompactPlan& plan, const TaskGraph& graph,
              const std::vector<const SrcMatrix*>& srcs, const std::vector<DstMatrix*>& dsts,
              const Transform<T>& transform, const ExecutionOptions& options)
      : plan_(&plan), graph_(&graph) {
    std::vector<MatrixSide<T, SrcMatrix>> src_side;
    std::vector<MatrixSide<T, DstMatrix>> dst_side;
    for (const SrcMatrix* m : srcs) src_side.emplace_back(*m, true, transform.transposes());
    for (DstMatrix* m : dsts) dst_side.emplace_back(*m, false);
    // Messages between two tile-stored sides are laid flat (detail/bind_copies.hpp).
    constexpr bool flat = !stores_local_matrix<typename SrcMatrix::placement_type> &&
                          !stores_local_matrix<typename DstMatrix::placement_type>;
    bind(plan.send, graph.send, src_side, BufferSide{}, send_, flat);
    bind(plan.local, graph.local, src_side, dst_side, local_);
    for (auto& c : local_.pool.copies) c.scale_by(transform);
    bind_receives_ = [this, dst_side, flat,
                      transform](const std::vector<std::vector<Address>>& described) {
      recv_ = {};
      const TaskGraph& g = *graph_;
      recv_.reserve(g.recv);
      // Direct messages: each one's described segments, consumed in order, chunk after
      // chunk (binding advances the cursor).
      std::vector<DescribedSide<T>> source;
      for (const auto& list : described) source.push_back({list.data(), transform.transposes()});
      for (std::size_t c = 0; c < g.recv.chunks.size(); ++c) {
        const Chunk& ch = g.recv.chunks[c];
        const std::size_t first = recv_.pool.copies.size();
        for (std::size_t k = ch.first; k < ch.end; ++k) {
          const auto& dst = side_of(dst_side, part_of(plan_->recv, g.recv.slices[k]));
          if (g.recv_transport[ch.message] == Transport::direct)
            bind_slice(*plan_, plan_->recv, g.recv.slices[k], source[ch.message], dst, recv_.pool,
                       recv_.rel);
          else
            bind_slice(*plan_, plan_->recv, g.recv.slices[k], BufferSide{}, dst, recv_.pool,
                       recv_.rel, flat);
        }
        recv_.range.emplace_back(first, recv_.pool.copies.size());
      }
      for (auto& c : recv_.pool.copies) {
        c.scale_by(transform);
        c.streaming = stream_target_;
      }
    };
    source_ = [src_side](index_t part, const Piece& r, const Piece& c) -> Address {
      return src_side[static_cast<std::size_t>(part)].at(r, c);
    };
    choose_streaming(options);
  }
  BoundCopies(const BoundCopies&) = delete;  // the binding of receives refers to this object
  BoundCopies& operator=(const BoundCopies&) = delete;

  /// Binds the unpacks for the transports now in the graph: direct messages read the
  /// segments `described` (per received message, in binding order), the others their
  /// message in a buffer.
  void bind_receives(const std::vector<std::vector<Address>>& described) {
    bind_receives_(described);
  }
  /// The address of a sent segment in part `part`'s source.
  const std::function<Address(index_t, const Piece&, const Piece&)>& source() const {
    return source_;
  }

  /// Points the packs of sent chunk c at its message's start.
  void point_packs(std::size_t c, T* message) {
    for (std::size_t k = send_.range[c].first; k < send_.range[c].second; ++k)
      send_.pool.copies[k].dst = message + send_.rel[k];
  }
  /// Points the unpacks of received chunk c at its message's start.
  void point_unpacks(std::size_t c, const T* message) {
    for (std::size_t k = recv_.range[c].first; k < recv_.range[c].second; ++k)
      recv_.pool.copies[k].src = message + recv_.rel[k];
  }
  /// Brings the device copies of the pools up to date (device memory spaces).
  void mirror() {
    if constexpr (!host_memory) {
      for (Bound* b : {&send_, &recv_, &local_}) b->mirror();
    }
  }

  /// Runs the packs of sent chunk c, the unpacks of received chunk c, local part p: one
  /// program each on `exec`.
  void pack(const execution_space& exec, std::size_t c) const { send_.run(exec, c); }
  void unpack(const execution_space& exec, std::size_t c) const { recv_.run(exec, c); }
  void copy_local(const execution_space& exec, std::size_t p) const { local_.run(exec, p); }

  /// Whether packing streams (its chunk must be fenced before a peer reads it).
  bool streaming_packs() const { return stream_pack_; }

  /// Bytes of the copy programs: capacity x element size of every host container, plus
  /// the device copies of the pools.
  std::size_t memory_bytes() const {
    std::size_t bytes = 0;
    for (const Bound* b : {&send_, &recv_, &local_})
      bytes += b->pool.runs.capacity() * sizeof(RowRun) +
               b->pool.members.capacity() * sizeof(ColumnMember) +
               b->pool.copies.capacity() * sizeof(StridedCopy<T>) +
               b->rel.capacity() * sizeof(index_t) + b->range.capacity() * sizeof(Range) +
               b->copies.span() * sizeof(StridedCopy<T>) + b->runs.span() * sizeof(RowRun) +
               b->members.span() * sizeof(ColumnMember);
    return bytes;
  }

 private:
  using Range = std::pair<std::size_t, std::size_t>;  ///< copies [first, end) of a pool
  /// One pool's copies, the buffer offset of each in its message, each chunk's range,
  /// and the device mirror.
  struct Bound {
    CopyPool<T> pool;
    std::vector<index_t> rel;
    std::vector<Range> range;
    Kokkos::View<StridedCopy<T>*, MemorySpace> copies;
    Kokkos::View<RowRun*, MemorySpace> runs;
    Kokkos::View<ColumnMember*, MemorySpace> members;

    void run(const execution_space& exec, std::size_t c) const {
      if constexpr (host_memory)
        run_copies(exec, pool, range[c].first, range[c].second);
      else
        run_copies(exec, copies.data(), runs.data(), members.data(), range[c].first,
                   range[c].second);
    }
    /// Room for one copy per slice (a slice binds to at least one) and a range per chunk:
    /// K parts would otherwise grow the pools by doubling, copying them and touching twice
    /// the memory.
    void reserve(const Chunking& chunking) {
      const std::size_t n = chunking.slices.size();
      pool.copies.reserve(n);
      pool.runs.reserve(n);
      pool.members.reserve(n);
      rel.reserve(n);
      range.reserve(chunking.chunks.size());
    }
    void mirror() {
      mirror_array(pool.copies, copies);
      mirror_array(pool.runs, runs);
      mirror_array(pool.members, members);
    }
    template <class V, class E>
    static void mirror_array(const std::vector<E>& list, V& view) {
      view = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "redist::copies"), list.size());
      const Kokkos::View<const E*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(list.data(),
                                                                                    list.size());
      Kokkos::deep_copy(view, host);
    }
  };

  /// Binds every slice of `d` (chunk by chunk) between two sides.
  template <class S, class D>
  void bind(const FamilyList& d, const Chunking& chunking, const S& src, const D& dst, Bound& out,
            bool flat = false) {
    out.reserve(chunking);
    for (const Chunk& ch : chunking.chunks) {
      const std::size_t first = out.pool.copies.size();
      for (std::size_t k = ch.first; k < ch.end; ++k) {
        const index_t part = part_of(d, chunking.slices[k]);
        bind_slice(*plan_, d, chunking.slices[k], side_of(src, part), side_of(dst, part), out.pool,
                   out.rel, flat);
      }
      out.range.emplace_back(first, out.pool.copies.size());
    }
  }

  /// Streaming stores when this rank writes more than the cache keeps (copy_kernel.hpp):
  /// into its target, and into its send buffer, which the peer reads back only after
  /// much more has been packed. Packing streams long runs and contiguous blocks only:
  /// short runs scattered through the buffer measured slower streamed (redist-bench,
  /// standard case c).
  void choose_streaming(const ExecutionOptions& options) {
    const PlanStats& st = plan_->stats;
    const index_t bytes = static_cast<index_t>(sizeof(T));
    const index_t threshold = options.streaming_threshold_bytes;
    stream_target_ = (st.elements_local + st.elements_received) * bytes >= threshold;
    bool stream_pack = st.elements_sent * bytes >= threshold;
    if (options.streaming != Toggle::automatic)
      stream_target_ = stream_pack = options.streaming == Toggle::on;
    stream_target_ = stream_target_ && host_memory;
    stream_pack_ = stream_pack && host_memory;
    for (auto& c : local_.pool.copies) c.streaming = stream_target_;
    for (auto& c : send_.pool.copies) {
      index_t shortest = INT64_MAX;
      for (index_t r = c.run_first; r < c.run_first + c.runs; ++r)
        shortest = std::min(shortest, send_.pool.runs[static_cast<std::size_t>(r)].length);
      // A contiguous block (a segment laid flat) streams whatever its column length.
      const bool contiguous = c.runs == 1 && c.members == 1 && shortest == c.ldd;
      c.streaming = stream_pack_ && (contiguous || shortest * bytes >= 1024);
    }
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

  const CompactPlan* plan_;
  const TaskGraph* graph_;
  Bound send_, recv_, local_;
  std::function<void(const std::vector<std::vector<Address>>&)> bind_receives_;
  std::function<Address(index_t, const Piece&, const Piece&)> source_;
  bool stream_pack_ = false;    ///< some packing uses streaming stores (copy_kernel.hpp)
  bool stream_target_ = false;  ///< writes into the target stream
};

}  // namespace redist::detail
