#pragma once
/// @file detail/huge_pages.hpp
/// Transparent huge pages for the large host allocations redist makes itself (tile storage,
/// tiled_matrix.hpp): advised before their first touch, as NumPy advises its large arrays.
/// A move reads and writes every element once; with 4 KiB pages a 256 MiB matrix spans 65536
/// pages and the copies miss the TLB on every new page, with 2 MiB pages on 128 (bench/README.md,
/// "Huge pages"). The kernel's setting decides: with transparent_hugepage `never` the advice does
/// nothing, with `always` it is not needed, with `madvise` (Debian's default) it is what asks.

#include <cstddef>
#include <cstdint>
#include <unistd.h>

#include <sys/mman.h>

namespace redist::detail {

/// Allocations below this are left alone (NumPy's threshold): a huge page is 2 MiB, and a
/// range must hold a whole aligned one to get it.
inline constexpr std::size_t huge_page_advice_bytes = std::size_t{4} << 20;

/// Advises transparent huge pages for the whole pages of [p, p + bytes) when bytes reaches
/// huge_page_advice_bytes; true if the kernel took the advice. Call it before the range is
/// first written: pages already present stay as they are until the kernel collapses them.
inline bool advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (p == nullptr || bytes < huge_page_advice_bytes) return false;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (end <= begin) return false;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

}  // namespace redist::detail
