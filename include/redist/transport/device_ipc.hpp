#pragma once
/// @file transport/device_ipc.hpp
/// Reading another process's device memory on one node (CUDA IPC): what the device-ipc
/// transport needs underneath (Transport::device_ipc, transport/choose.hpp).
///
/// The sender exports a handle of each device allocation that holds a segment it sends
/// (cudaIpcGetMemHandle); the receiver opens each handle once (cudaIpcOpenMemHandle),
/// which maps the peer's allocation into its own address space, and its copy kernels then
/// read the peer's tiles straight into its target: one device copy per element, no host
/// staging, no buffer. The receiver only reads, and a mapping lives as long as the engine
/// that opened it (Imports).
///
/// Without the CUDA backend no device memory is shared: `permission` says so, and no
/// message is ever marked for this transport.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/error.hpp>
#include <redist/topology.hpp>
#include <redist/transport/node_permission.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda.h>
#include <cuda_runtime.h>
#endif

namespace redist::transport::ipc {

/// Whether matrices in MemorySpace can be read across processes this way.
template <class MemorySpace>
inline constexpr bool shareable =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<MemorySpace, Kokkos::CudaSpace>;
#else
    false;
#endif

/// An exported allocation as it travels: the 64 bytes of its cudaIpcMemHandle_t as eight
/// words, then its size in bytes.
using Handle = std::array<std::int64_t, 9>;
inline constexpr std::size_t handle_words = std::tuple_size_v<Handle>;
/// A segment as it travels: the index of its allocation's handle in the message's list,
/// its byte offset in that allocation, its leading dimension.
inline constexpr std::size_t segment_words = 3;

/// cudaMalloc may carve small allocations out of a larger block, and a handle then maps
/// the whole block, at its start: an allocation's offset in its block is not known to the
/// reader. Only allocations that are at least this large and start at this alignment are
/// exported, the ones cudaMalloc gives blocks of their own (a matrix's storage on a rank,
/// typically); the others travel staged. The device suite checks every element of moves
/// that take this path.
inline constexpr std::uintptr_t block_alignment = std::uintptr_t{2} << 20;

/// The sender's side, per message: the allocations that hold its segments, each exported
/// once, and where each segment lies in them.
class Exports {
 public:
  /// Adds a segment at device address `p` with leading dimension `ld`; false (and nothing
  /// added) when `p` is not in an allocation that can be exported (not from cudaMalloc,
  /// or possibly carved out of a shared block: block_alignment).
  bool add(const void* p, std::int64_t ld) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    auto found = allocations_.upper_bound(at);
    if (found == allocations_.begin() || at >= std::prev(found)->first + size_of(*std::prev(found)))
      found = export_allocation(at);
    else
      --found;
    if (found == allocations_.end()) return false;
    segments_.push_back(found->second);
    segments_.push_back(static_cast<std::int64_t>(at - found->first));
    segments_.push_back(ld);
    return true;
  }
  /// The handles, then the segments, as words for the description (transport/describe.hpp).
  std::vector<std::int64_t> words() const {
    std::vector<std::int64_t> w;
    w.reserve(handles_.size() * handle_words + segments_.size());
    for (const Handle& h : handles_) w.insert(w.end(), h.begin(), h.end());
    w.insert(w.end(), segments_.begin(), segments_.end());
    return w;
  }
  std::size_t handle_count() const { return handles_.size(); }

 private:
  using Entry = std::pair<const std::uintptr_t, std::int64_t>;  ///< base -> handle index
  std::size_t size_of(const Entry& e) const {
    return static_cast<std::size_t>(handles_[static_cast<std::size_t>(e.second)].back());
  }
  /// Exports the allocation that contains `at`; end() when it cannot be.
  std::map<std::uintptr_t, std::int64_t>::iterator export_allocation(
      [[maybe_unused]] std::uintptr_t at) {
#if defined(KOKKOS_ENABLE_CUDA)
    CUdeviceptr base = 0;
    std::size_t bytes = 0;
    cudaIpcMemHandle_t h;
    if (cuMemGetAddressRange(&base, &bytes, static_cast<CUdeviceptr>(at)) != CUDA_SUCCESS ||
        static_cast<std::uintptr_t>(base) % block_alignment != 0 || bytes < block_alignment ||
        cudaIpcGetMemHandle(&h, reinterpret_cast<void*>(base)) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it for the caller's next CUDA call
      return allocations_.end();
    }
    Handle words{};
    static_assert(sizeof h <= sizeof(std::int64_t) * (handle_words - 1));
    std::memcpy(words.data(), &h, sizeof h);
    words.back() = static_cast<std::int64_t>(bytes);
    handles_.push_back(words);
    return allocations_
        .emplace(static_cast<std::uintptr_t>(base), static_cast<std::int64_t>(handles_.size() - 1))
        .first;
#else
    return allocations_.end();
#endif
  }

  std::map<std::uintptr_t, std::int64_t> allocations_;
  std::vector<Handle> handles_;
  std::vector<std::int64_t> segments_;  ///< segment_words per segment
};

/// The receiver's side: the peers' allocations it has mapped, each once, unmapped when it
/// is destroyed (by the engine that bound its copies to them).
class Imports {
 public:
  Imports() = default;
  Imports(const Imports&) = delete;
  Imports& operator=(const Imports&) = delete;
  ~Imports() {
#if defined(KOKKOS_ENABLE_CUDA)
    for (const auto& [handle, base] : mapped_) (void)cudaIpcCloseMemHandle(base);
#endif
  }

  /// Appends the segments that `words` describes (Exports::words(): `handles` handles,
  /// then the segments) to `out`, as addresses here, each with its leading dimension.
  /// What the peer published is checked: every handle index names one of its handles,
  /// every offset lies in that allocation, every leading dimension is at least 1.
  /// @throws communication_error naming the peer otherwise, or when a handle cannot be
  /// mapped.
  template <class T>
  void resolve(const std::vector<std::int64_t>& words, std::size_t handles, int peer,
               std::vector<std::pair<const T*, std::int64_t>>& out) {
    std::vector<const char*> base(handles);
    std::vector<std::int64_t> bytes(handles);
    for (std::size_t k = 0; k < handles; ++k) {
      Handle h;
      std::copy_n(words.begin() + static_cast<std::ptrdiff_t>(k * handle_words), handle_words,
                  h.begin());
      base[k] = open(h, peer);
      bytes[k] = h.back();
    }
    const auto bad = [peer](const char* what) {
      return communication_error(redist::detail::describe(what, "peer", peer));
    };
    out.reserve(out.size() + (words.size() - handles * handle_words) / segment_words);
    for (std::size_t i = handles * handle_words; i + segment_words <= words.size();
         i += segment_words) {
      const std::int64_t k = words[i], offset = words[i + 1], ld = words[i + 2];
      if (k < 0 || static_cast<std::size_t>(k) >= handles)
        throw bad("a peer described a device segment in an allocation it did not export");
      if (offset < 0 || offset >= bytes[static_cast<std::size_t>(k)])
        throw bad("a peer described a device segment outside its allocation");
      if (ld < 1) throw bad("a peer described a segment with a leading dimension below 1");
      out.emplace_back(reinterpret_cast<const T*>(base[static_cast<std::size_t>(k)] + offset), ld);
    }
  }

  /// The peer's allocation of `h`, mapped here.
  /// @throws communication_error naming the peer and CUDA's reason when it cannot be.
  const char* open(const Handle& h, [[maybe_unused]] int peer) {
    if (const auto found = mapped_.find(h); found != mapped_.end())
      return static_cast<const char*>(found->second);
#if defined(KOKKOS_ENABLE_CUDA)
    cudaIpcMemHandle_t handle;
    std::memcpy(&handle, h.data(), sizeof handle);
    void* base = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw communication_error(
          redist::detail::describe(std::string("a peer's device memory cannot be mapped here (") +
                                       cudaGetErrorString(e) + ")",
                                   "peer", peer));
    }
    mapped_.emplace(h, base);
    return static_cast<const char*>(base);
#else
    throw communication_error(redist::detail::describe(
        "a peer described device memory to share, but this build has no CUDA backend", "peer",
        peer));
#endif
  }

 private:
  std::map<Handle, void*> mapped_;
};

/// Tries it once, the way the transport does it: every rank of `node` exports a word of
/// device memory (Exports), and reads the next rank's (in node order) through its
/// description (Imports). Collective over `node`; the same answer on every rank
/// (Permission, transport/node_permission.hpp). One rank alone is allowed (nothing to
/// read). REDIST_DEVICE_IPC_PROBE=fail makes it fail, to test the fallback.
inline Permission probe(const boost::mpi::communicator& node) {
  const bool fail = forced_to_fail("REDIST_DEVICE_IPC_PROBE");
  if (node.size() < 2 && !fail) return {true, ""};
  std::string why = fail ? "REDIST_DEVICE_IPC_PROBE=fail" : "";
#if defined(KOKKOS_ENABLE_CUDA)
  const auto expected = [](int rank) { return 0x4950430000000000ll ^ rank; };
  const std::int64_t word = expected(node.rank());
  constexpr std::size_t words = handle_words + segment_words;  // one handle, one segment
  void* mine = nullptr;  // a block of its own, as a matrix's storage has
  Exports exported;
  cudaError_t e = cudaMalloc(&mine, block_alignment);
  if (e == cudaSuccess) e = cudaMemcpy(mine, &word, sizeof word, cudaMemcpyHostToDevice);
  // A copy from pageable memory may return before it lands: the peer reads right after.
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess && why.empty())
    why = std::string("device memory for the probe failed (") + cudaGetErrorString(e) + ")";
  if (e == cudaSuccess && !exported.add(mine, 1) && why.empty())
    why =
        "device memory from cudaMalloc cannot be exported (cuMemGetAddressRange, "
        "cudaIpcGetMemHandle)";
  std::vector<std::int64_t> out(words, -1), all(words * static_cast<std::size_t>(node.size()));
  if (exported.handle_count() == 1) out = exported.words();
  boost::mpi::all_gather(node, out.data(), static_cast<int>(words), all.data());
  const int peer = (node.rank() + 1) % node.size();
  const std::vector<std::int64_t> theirs(
      all.begin() + static_cast<std::ptrdiff_t>(words * peer),
      all.begin() + static_cast<std::ptrdiff_t>(words * (peer + 1)));
  if (why.empty() && theirs.back() == -1) why = "a peer's device memory cannot be exported";
  if (why.empty()) {
    try {
      Imports imports;  // unmapped at the end of this block, before the peer frees it
      std::vector<std::pair<const std::int64_t*, std::int64_t>> at;
      imports.resolve(theirs, 1, peer, at);
      std::int64_t seen = 0;
      e = cudaMemcpy(&seen, at.front().first, sizeof seen, cudaMemcpyDeviceToHost);
      if (e != cudaSuccess)
        why =
            std::string("a read of a peer's device memory failed (") + cudaGetErrorString(e) + ")";
      else if (seen != expected(peer))
        why = "a read of a peer's device memory returned " + std::to_string(seen) + " instead of " +
              std::to_string(expected(peer));
    } catch (const communication_error& x) {
      why = x.what();
    }
  }
  (void)cudaGetLastError();
  Permission answer = agree(node, why);  // once every rank has read: `mine` may go
  if (mine != nullptr) (void)cudaFree(mine);
  return answer;
#else
  if (why.empty()) why = "device memory is shared between processes only with the CUDA backend";
  return agree(node, why);
#endif
}

/// The permission for comm's nodes: probed on each node on the first call on comm
/// (collective over comm then) and cached on it (topology.hpp). Later calls are local.
inline const Permission& permission(const boost::mpi::communicator& comm) {
  struct Cached : Permission {};  // its own slot in the communicator's cache
  return redist::detail::cached_on<Cached>(comm,
                                           [&] { return Cached{probe(node_map(comm).node)}; });
}

}  // namespace redist::transport::ipc
