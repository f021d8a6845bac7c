#pragma once
/// @file transport/cross_memory_io.hpp
/// Reading another process's memory on the same node ("cross-memory attach", Linux's
/// process_vm_readv): what a cross-memory transport needs underneath, a probe of whether
/// it is permitted and a gather of many pieces.
///
/// One copy per element: the reader's kernel copies the peer's pages straight into its
/// own, where two would be needed through a buffer (pack, then unpack). Open MPI's
/// shared-memory transport uses the same call for large messages. Whether it is allowed
/// depends on the machine: same user, and ptrace rules such as Yama's ptrace_scope. The
/// probe tries it once and says why not.

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/error.hpp>
#include <redist/topology.hpp>
#include <redist/transport/node_permission.hpp>

#include <sys/types.h>
#include <sys/uio.h>

namespace redist::transport::cma {

using transport::Permission;

/// `bytes` bytes at `remote` in the peer's address space, to `local` in ours.
struct Piece {
  std::uint64_t remote = 0;
  void* local = nullptr;
  std::size_t bytes = 0;
};

/// Reads every piece from process `pid`, in batches of IOV_MAX, resuming partial reads.
/// @throws communication_error naming the peer, the errno and the bytes not read.
inline void read(pid_t pid, std::span<const Piece> pieces) {
  constexpr std::size_t batch = IOV_MAX;
  std::vector<iovec> local, remote;
  local.reserve(batch);
  remote.reserve(batch);
  std::size_t next = 0;          // first piece not fully read
  std::size_t done_in_next = 0;  // bytes of it already read
  while (next < pieces.size()) {
    local.clear();
    remote.clear();
    for (std::size_t k = next; k < pieces.size() && local.size() < batch; ++k) {
      const std::size_t skip = k == next ? done_in_next : 0;
      const Piece& p = pieces[k];
      if (p.bytes == skip) continue;
      local.push_back({static_cast<char*>(p.local) + skip, p.bytes - skip});
      remote.push_back({reinterpret_cast<void*>(p.remote + skip), p.bytes - skip});
    }
    if (local.empty()) break;
    const ssize_t got =
        ::process_vm_readv(pid, local.data(), local.size(), remote.data(), remote.size(), 0);
    if (got <= 0) {
      const int err = got < 0 ? errno : EFAULT;
      std::size_t left = pieces[next].bytes - done_in_next;
      for (std::size_t k = next + 1; k < pieces.size(); ++k) left += pieces[k].bytes;
      throw communication_error("redist: cross-memory read from process " + std::to_string(pid) +
                                " failed (" + std::strerror(err) + ") with " +
                                std::to_string(left) + " bytes not read");
    }
    // Advance over what was read: whole pieces, then part of one.
    auto n = static_cast<std::size_t>(got);
    while (n > 0 && next < pieces.size()) {
      const std::size_t rest = pieces[next].bytes - done_in_next;
      if (n >= rest) {
        n -= rest;
        ++next;
        done_in_next = 0;
      } else {
        done_in_next += n;
        n = 0;
      }
    }
    while (next < pieces.size() && pieces[next].bytes == done_in_next) {
      ++next;  // empty pieces
      done_in_next = 0;
    }
  }
}

/// Tries it once: every rank of `node` reads a word of the next one (in node order) and
/// checks its value. Collective over `node`; the answer is the same on every rank (not
/// allowed if any read failed, with the first failing rank's reason). One rank alone is
/// allowed (nothing to read). REDIST_CROSS_MEMORY_PROBE=fail makes it fail, to test the
/// fallback.
inline Permission probe(const boost::mpi::communicator& node) {
  const bool fail = forced_to_fail("REDIST_CROSS_MEMORY_PROBE");
  if (node.size() < 2 && !fail) return {true, ""};
  const std::uint64_t word = 0x5245444953540000ull ^ static_cast<std::uint64_t>(::getpid());
  std::vector<std::int64_t> pids;
  std::vector<std::uint64_t> addresses;
  boost::mpi::all_gather(node, static_cast<std::int64_t>(::getpid()), pids);
  boost::mpi::all_gather(node, reinterpret_cast<std::uint64_t>(&word), addresses);
  const auto peer = static_cast<std::size_t>((node.rank() + 1) % node.size());
  std::string why = fail ? "REDIST_CROSS_MEMORY_PROBE=fail" : "";
  if (!fail) {
    std::uint64_t seen = 0;
    try {
      const Piece p{addresses[peer], &seen, sizeof seen};
      read(static_cast<pid_t>(pids[peer]), std::span<const Piece>(&p, 1));
      if (seen != (0x5245444953540000ull ^ static_cast<std::uint64_t>(pids[peer])))
        why = "a cross-memory read returned the wrong value";
    } catch (const communication_error& e) {
      why = e.what();
    }
  }
  return agree(node, why);  // once every rank has read: `word` is not needed after it
}

/// The permission for comm's nodes: probed on each node on the first call on comm
/// (collective over comm then) and cached on it (topology.hpp). Later calls are local.
inline const Permission& permission(const boost::mpi::communicator& comm) {
  struct Cached : Permission {};  // its own slot in the communicator's cache
  return redist::detail::cached_on<Cached>(comm,
                                           [&] { return Cached{probe(node_map(comm).node)}; });
}

}  // namespace redist::transport::cma
