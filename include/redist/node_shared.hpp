#pragma once
/// @file node_shared.hpp
/// Host memory that the ranks of a node can read each other's parts of: one MPI-3
/// shared-memory window (MPI_Win_allocate_shared) over the node's ranks of a
/// communicator.
///
/// Why: the papers' Eq. (4) (Cao et al. 2021, section 7.2) charges every remote
/// element three copies: pack, network, unpack. On one node the executor already skips
/// the network copy (its send buffer is a shared window). When the *source matrix*
/// lives in node-shared memory, it skips the pack too: the receiver copies each segment
/// straight from the sender's tile into its own, one copy per element, the same cost as
/// a local copy (executor.hpp, "direct" messages).
///
///   redist::NodeSharedArray<double> a(comm, lld * local_cols);   // a ScaLAPACK array
///   auto A = redist::scalapack::wrap(a.data(), desc, grid, comm.rank());
///   auto B = redist::node_shared_matrix<double>(layout, placement, comm);  // or tiles
///
/// Nothing else changes for the caller: any matrix whose source tiles lie in a
/// NodeSharedArray (or node_shared_matrix) is found by address when a Redistributor is
/// built. Lifetime: the window is freed (collectively over the node) when the last of
/// its array handles and of the Redistributors reading it is destroyed, so, like any
/// collective object, destroy them in the same order on every rank, before MPI_Finalize.
///
/// Only the window uses the MPI-3 C API (Boost.MPI has no RMA); the one broadcast of
/// the window's id goes through Boost.MPI.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/collective/collectively.hpp>
#include <redist/detail/huge_pages.hpp>
#include <redist/detail/mapped_pages.hpp>
#include <redist/detail/populate_pages.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/layout.hpp>
#include <redist/placement.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/topology.hpp>

namespace redist {

namespace detail {

/// The ranks of comm on this rank's node (topology.hpp), as a communicator.
/// Collective over comm the first time.
inline boost::mpi::communicator node_communicator(const boost::mpi::communicator& comm) {
  return node_map(comm).node;
}

/// The rank in `node` of every rank of comm, -1 for ranks not in it.
inline std::vector<int> node_ranks(const boost::mpi::communicator& node,
                                   const boost::mpi::communicator& comm) {
  MPI_Group g_comm, g_node;
  MPI_Comm_group(comm, &g_comm);
  MPI_Comm_group(node, &g_node);
  std::vector<int> ranks(static_cast<std::size_t>(comm.size())), out(ranks.size());
  for (int r = 0; r < comm.size(); ++r) ranks[static_cast<std::size_t>(r)] = r;
  MPI_Group_translate_ranks(g_comm, comm.size(), ranks.data(), g_node, out.data());
  MPI_Group_free(&g_comm);
  MPI_Group_free(&g_node);
  for (int& r : out)
    if (r == MPI_UNDEFINED) r = -1;
  return out;
}

/// One shared window over the node's ranks of a communicator. Every live window is in a
/// process-wide registry, so the executor can find it from an address (its own part) or
/// from its id (a peer's part, named in a message). Ids are unique on a node.
class NodeWindow {
 public:
  /// What the owner does with its part before anyone reads it.
  enum class Fill {
    zero,   ///< zero-filled (MPI does not promise fresh memory), its pages made present first
    fault,  ///< only its pages made present (message buffers: written before they are read)
  };
  /// Allocates `bytes` bytes for this rank, filled by their owner (first touch places them
  /// on the owner's NUMA domain, and executions take no page faults there). Collective
  /// over comm.
  static std::shared_ptr<NodeWindow> create(const boost::mpi::communicator& comm, std::size_t bytes,
                                            Fill fill = Fill::zero) {
    std::shared_ptr<NodeWindow> w(new NodeWindow(comm, bytes, fill));
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().by_id[w->id_] = w;
    return w;
  }

  NodeWindow(const NodeWindow&) = delete;
  NodeWindow& operator=(const NodeWindow&) = delete;
  ~NodeWindow() {
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      registry().by_id.erase(id_);
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized || win_ == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }

  std::uint64_t id() const { return id_; }
  int node_rank() const { return node_.rank(); }
  int node_size() const { return node_.size(); }
  /// Start of node rank r's part, in this process's address space.
  char* base(int r) const { return parts_[static_cast<std::size_t>(r)].first; }
  std::size_t bytes(int r) const { return parts_[static_cast<std::size_t>(r)].second; }

  /// The node rank of every rank of comm, -1 for ranks not in this window.
  std::vector<int> node_ranks(const boost::mpi::communicator& comm) const {
    return detail::node_ranks(node_, comm);
  }

  /// Whether [p, p + n) lies in this rank's own part.
  bool owns(const void* p, std::size_t n) const {
    const char* b = base(node_rank());
    const char* c = static_cast<const char*>(p);
    return b != nullptr && c >= b && c + n <= b + bytes(node_rank());
  }

  /// Makes this rank's writes visible to the node before a message announces them.
  void publish() const {
    std::atomic_thread_fence(std::memory_order_release);
    MPI_Win_sync(win_);
  }
  /// Makes the node's published writes visible here, after the message that announced them.
  void acquire() const {
    MPI_Win_sync(win_);
    std::atomic_thread_fence(std::memory_order_acquire);
  }

  /// The live window whose own part holds [p, p + n), or null.
  static std::shared_ptr<NodeWindow> find(const void* p, std::size_t n) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (auto& [id, weak] : registry().by_id)
      if (auto w = weak.lock(); w && w->owns(p, n)) return w;
    return nullptr;
  }
  /// The live window with this id, or null.
  static std::shared_ptr<NodeWindow> find(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().by_id.find(id);
    return it == registry().by_id.end() ? nullptr : it->second.lock();
  }

 private:
  struct Registry {
    std::mutex mutex;
    std::map<std::uint64_t, std::weak_ptr<NodeWindow>> by_id;
  };
  // An inline function's static is one object across every translation unit.
  static Registry& registry() {
    static Registry r;
    return r;
  }

  /// Makes the pages of [p, p + n) present, writable, in one call where the kernel can
  /// (detail/populate_pages.hpp): on shared memory the kernel's page allocation is most of
  /// the cost, and a memset would write every byte once more (bench/README.md,
  /// "Element-cyclic plan cost"). Elsewhere, one write per page.
  static void fault_in(char* p, std::size_t n) {
    if (populate_pages(p, n, PageAccess::write)) return;
    // Volatile: the write must happen although nothing reads it.
    for (std::size_t o = 0; o < n; o += page_bytes()) static_cast<volatile char*>(p)[o] = 0;
  }

  NodeWindow(const boost::mpi::communicator& comm, std::size_t bytes, Fill fill) {
    node_ = node_map(comm).node;  // windows span one node (topology.hpp)
    // Node rank 0 names the window: its pid (unique on the node) and a per-process count.
    static std::atomic<std::uint32_t> count{0};
    if (node_.rank() == 0) id_ = (std::uint64_t(::getpid()) << 32) | ++count;
    boost::mpi::broadcast(node_, id_, 0);

    // A failed allocation (out of memory, say) must throw, not abort the job.
    MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    // Each rank's part on its own pages, so first touch can place it.
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char* mine = nullptr;
    const int rc =
        MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, node_, &mine, &win_);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
      throw communication_error(detail::describe("MPI_Win_allocate_shared failed", "bytes", bytes));
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    for (int r = 0; r < node_.size(); ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      char* p = nullptr;
      MPI_Win_shared_query(win_, r, &size, &unit, &p);
      parts_.emplace_back(p, static_cast<std::size_t>(size));
      // Huge pages where the backing file system allows them (a tmpfs mounted with
      // huge=advise: docs/node-shared.md, "Huge pages"): every process maps each page of
      // a peer's part on its first touch, so 4 KiB pages cost a fault a page a process. In
      // every process's mapping, and before the owner's first touch.
      advise_huge_pages(p, static_cast<std::size_t>(size));
    }
    // Zeroed after the pages are made present in one call: a memset alone took a fault a
    // page, 1.8-1.9 s for 256 MiB a rank against 0.7-1.0 s (bench/README.md, "The first
    // move into or out of node-shared memory").
    if (bytes > 0) fault_in(mine, bytes);
    if (bytes > 0 && fill == Fill::zero) std::memset(mine, 0, bytes);
    publish();
    node_.barrier();  // every part filled before anyone reads a peer's
    acquire();
  }

  boost::mpi::communicator node_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::uint64_t id_ = 0;
  std::vector<std::pair<char*, std::size_t>> parts_;
};

}  // namespace detail

/// `elements` elements of host memory per rank, in a window shared by the ranks of each
/// node; zero-filled. Collective over comm (each rank may ask for a different size).
/// Copies share the memory.
template <class T>
class NodeSharedArray {
 public:
  using view_type = Kokkos::View<T*, Kokkos::HostSpace>;

  /// @throws (on every rank) invalid_argument if elements is negative on any rank.
  NodeSharedArray(const boost::mpi::communicator& comm, index_t elements) : size_(elements) {
    detail::collectively(comm, [&] {
      if (elements < 0)
        throw invalid_argument(detail::describe("negative array size", "elements", elements));
      if (elements > std::numeric_limits<MPI_Aint>::max() / static_cast<index_t>(sizeof(T)))
        throw invalid_argument(
            detail::describe("array size overflows a byte count", "elements", elements));
    });
    window_ = detail::NodeWindow::create(comm, static_cast<std::size_t>(elements) * sizeof(T));
  }

  T* data() const { return reinterpret_cast<T*>(window_->base(window_->node_rank())); }
  index_t size() const { return size_; }
  /// The array as an (unmanaged) Kokkos view; the NodeSharedArray keeps it alive.
  view_type view() const { return view_type(data(), static_cast<std::size_t>(size_)); }
  /// What keeps the memory alive (TiledMatrix's `owner`).
  std::shared_ptr<const void> owner() const { return window_; }

 private:
  index_t size_ = 0;
  std::shared_ptr<detail::NodeWindow> window_;
};

/// A TiledMatrix of this rank (comm.rank()) whose allocations are node-shared, so that
/// redistributing from it copies each element once between the ranks of a node.
/// Zero-filled, like TiledMatrix's own allocations. Collective over comm.
/// @throws (on every rank) what the placement throws on any rank.
template <class T, class L, class P>
TiledMatrix<T, L, P> node_shared_matrix(L layout, P placement,
                                        const boost::mpi::communicator& comm) {
  static_assert(std::is_same_v<typename P::memory_space, Kokkos::HostSpace>,
                "redist: node-shared storage is host memory (Kokkos::HostSpace)");
  StorageMap map;
  detail::collectively(comm, [&] { map = placement.map(layout, comm.rank()); });
  // Allocations one after the other, each on a 64-byte boundary (a cache line).
  constexpr index_t align = std::max<index_t>(1, 64 / static_cast<index_t>(sizeof(T)));
  std::vector<index_t> start;
  index_t total = 0;
  for (index_t n : map.allocation_sizes()) {
    start.push_back(total);
    total += (n + align - 1) / align * align;
  }
  NodeSharedArray<T> array(comm, total);
  std::vector<typename TiledMatrix<T, L, P>::allocation_view> storage;
  for (std::size_t a = 0; a < start.size(); ++a)
    storage.emplace_back(array.data() + start[a],
                         static_cast<std::size_t>(map.allocation_sizes()[a]));
  return TiledMatrix<T, L, P>(std::move(layout), std::move(placement), comm.rank(),
                              std::move(storage), array.owner());
}

/// The largest page size that backs this rank's part of the node-shared memory holding p,
/// in this process: 2 MiB where the window's file system gave huge pages, 4 KiB where it did
/// not (docs/node-shared.md, "Huge pages"); 0 if p is not in node-shared memory. Local.
inline std::size_t node_shared_page_bytes(const void* p) {
  const auto w = detail::NodeWindow::find(p, 1);
  if (!w || w->bytes(w->node_rank()) == 0) return 0;
  // Its middle: MPI need not start a part on a page, and a part's first, partial page is
  // not advised (detail/huge_pages.hpp).
  return detail::page_bytes_mapping(w->base(w->node_rank()) + w->bytes(w->node_rank()) / 2);
}

}  // namespace redist
