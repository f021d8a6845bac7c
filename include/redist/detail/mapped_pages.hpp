#pragma once
/// @file detail/mapped_pages.hpp
/// The page size that backs an address in this process, from /proc/self/smaps: what a
/// program (and redist-run) asks to learn whether its node-shared memory got the huge pages
/// that its file system may or may not give (docs/node-shared.md, "Huge pages").

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <istream>
#include <sstream>
#include <string>

namespace redist::detail {

/// In smaps text `in`: the largest page size that maps any of the mapping that holds address
/// `at`: a page-middle-directory entry's span (2 MiB with 4 KiB pages) where some of it is on
/// huge pages (AnonHugePages, ShmemPmdMapped or FilePmdMapped above 0), else its
/// KernelPageSize; 0 where no mapping holds `at`.
inline std::size_t page_bytes_mapping(std::istream& in, std::uintptr_t at) {
  std::string line;
  bool inside = false, huge = false;
  std::size_t page = 0;
  const auto finish = [&] { return huge ? page * (page / 8) : page; };
  while (std::getline(in, line)) {
    std::uintptr_t first = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> first >> dash >> end && dash == '-') {
      if (inside) return finish();  // the next mapping's header: ours is complete
      inside = first <= at && at < end;
      continue;
    }
    if (!inside) continue;
    char name[64] = {};
    long long kib = 0;
    if (std::sscanf(line.c_str(), "%63[^:]: %lld kB", name, &kib) != 2) continue;
    const std::string field = name;
    if (field == "KernelPageSize") page = static_cast<std::size_t>(kib) * 1024;
    if ((field == "AnonHugePages" || field == "ShmemPmdMapped" || field == "FilePmdMapped") &&
        kib > 0)
      huge = true;
  }
  return inside ? finish() : 0;
}

/// The same for this process's own mappings.
inline std::size_t page_bytes_mapping(const void* p) {
  std::ifstream in("/proc/self/smaps");
  return in ? page_bytes_mapping(in, reinterpret_cast<std::uintptr_t>(p)) : 0;
}

}  // namespace redist::detail
