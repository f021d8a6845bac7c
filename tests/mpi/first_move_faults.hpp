#pragma once
// The page faults of a first move through node-shared memory (engine/peer_pages.hpp): set-up
// maps the peers' pages that pushes write and direct reads read, so the first move takes
// about none where it took one a page of a peer's memory touched. Used by test_push.cpp
// (a node-shared target) and test_node_shared.cpp (a node-shared source).
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"
#include <sys/mman.h>
#include <sys/resource.h>

namespace redist::test {

/// This process's minor page faults so far.
inline long minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

/// Whether a first move's faults can be counted here: the kernel makes shared pages present
/// on request (Linux 5.14; without it the first move faults them in, as before), and no
/// AddressSanitizer maps its shadow of the peers' memory on first touch.
inline bool faults_countable() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return false;
#endif
#endif
  const std::size_t page = detail::page_bytes();
  void* p = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = detail::populate_pages(p, page, detail::PageAccess::write);
  ::munmap(p, page);
  return ok;
}

/// Elements of this rank's messages (plan.send.messages or plan.recv.messages) to or from
/// ranks of its node (reference_nodes).
template <class Messages>
index_t on_node_elements(const boost::mpi::communicator& comm, const Messages& messages) {
  const std::vector<int> node = reference_nodes(comm, ranks_per_node_env());
  index_t n = 0;
  for (const auto& m : messages)
    if (node[static_cast<std::size_t>(m.peer)] == node[static_cast<std::size_t>(comm.rank())])
      n += m.elements;
  return n;
}

/// Bytes of the mappings that meet [first, end) present in this process's page tables
/// (their Rss in /proc/self/smaps).
inline long mapped_bytes(std::uintptr_t first, std::uintptr_t end) {
  std::ifstream in("/proc/self/smaps");
  long bytes = 0;
  detail::for_each_smaps_field(
      in, [&](std::uintptr_t low, std::uintptr_t high, const std::string& field, long long kib) {
        if (field == "Rss" && low < end && first < high) bytes += static_cast<long>(kib) * 1024;
      });
  return bytes;
}

/// Bytes present in this process's page tables of the node window that holds node-shared
/// matrix m's storage on this rank (every part of the node's ranks).
template <class M>
long mapped_window_bytes(const M& m) {
  const void* p = nullptr;
  m.for_each_tile([&](TileIndex t) {
    if (p == nullptr) p = m.tile_ref(t).data;
  });
  const auto w = detail::NodeWindow::find(p, 1);
  if (!w) return 0;
  std::uintptr_t first = UINTPTR_MAX, end = 0;
  for (int r = 0; r < w->node_size(); ++r) {
    const auto at = reinterpret_cast<std::uintptr_t>(w->base(r));
    first = std::min(first, at);
    end = std::max(end, at + w->bytes(r));
  }
  return first < end ? mapped_bytes(first, end) : 0;
}

/// Checks r's set-up and first move where peers' memory is touched in place (`in_place`):
/// set-up put at least nine tenths of the peers' pages that its moves touch
/// (`peer_elements` of T) in this process's page tables (the node-shared matrix `shared`'s
/// mapping grew by that much since `mapped_before`, its size before set-up), and the first
/// move then added under a tenth of them. Without set-up's mapping, pushes took a fault a
/// page and reads one a 16 pages (the kernel maps a read fault's neighbours), and the
/// window's mapping grew by every page touched either way. The window's own growth is the
/// measure, not the process's page faults: those also count the MPI library's first
/// touches, which vary with the transport (77 where TCP crossed simulated nodes, stop 68's
/// CI). Then r's first move and every target element and the source, in any case.
template <class R, class A, class B, class S>
void check_first_move_faults(const boost::mpi::communicator& comm, R& r, const A& a, const B& b,
                             const Region& region, const S& shared, long mapped_before,
                             index_t peer_elements, bool in_place) {
  using T = typename B::value_type;
  const long page = static_cast<long>(detail::page_bytes());
  const long pages = static_cast<long>(peer_elements) * static_cast<long>(sizeof(T)) / page;
  const long mapped_at_setup = mapped_window_bytes(shared);
  const long mapped = mapped_at_setup - mapped_before;
  comm.barrier();
  const long before = minor_faults();
  r.redistribute();
  const long faults = minor_faults() - before;
  const long grown = mapped_window_bytes(shared) - mapped_at_setup;
  index_t checked = 0;
  CHECK(sum(comm, target_errors(b, region, checked)) == 0);
  CHECK(sum(comm, source_errors(a)) == 0);
  if (!in_place) return;
  // The checks mean something only where peers' pages are touched at all.
  CHECK(sum(comm, pages) >= (comm.size() > 1 ? 256 : 0));
  if (faults_countable()) {
    INFO("peers' pages touched ", pages, ", mapped at set-up ", mapped / page,
         ", mapped by the first move ", grown / page, ", the process's page faults in it ", faults);
    CHECK(mapped >= pages * page * 9 / 10);
    CHECK(grown <= pages * page / 10);
  }
}

}  // namespace redist::test
