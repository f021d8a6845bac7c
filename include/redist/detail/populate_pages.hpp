#pragma once
/// @file detail/populate_pages.hpp
/// Makes the pages of an address range present in this process's page tables in one call
/// (MADV_POPULATE_READ / MADV_POPULATE_WRITE, Linux 5.14) instead of one fault a page on
/// first touch. Shared memory needs it once per process that maps it: each process has page
/// tables of its own (docs/node-shared.md, "The first move").

#include <cstddef>
#include <cstdint>
#include <unistd.h>

#include <sys/mman.h>

namespace redist::detail {

enum class PageAccess { read, write };

/// The size of a page here.
inline std::size_t page_bytes() {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

/// Makes the pages of [p, p + n) present for `access`; false where the kernel cannot (older
/// than 5.14, or the range is not mapped that way), which leaves them to be faulted in on
/// first touch, as without it.
inline bool populate_pages(const void* p, std::size_t n, PageAccess access) {
#if defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
  if (n == 0) return true;
  const std::size_t page = page_bytes();
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = at & ~(page - 1);
  return ::madvise(reinterpret_cast<void*>(start), n + (at - start),
                   access == PageAccess::write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0;
#else
  (void)p;
  (void)n;
  (void)access;
  return false;
#endif
}

}  // namespace redist::detail
