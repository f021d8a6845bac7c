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

/// Calls f(first, end, field, kib) for every "Field: N kB" line of smaps text `in`, with
/// [first, end) the address range of the mapping it describes.
template <class F>
void for_each_smaps_field(std::istream& in, F&& f) {
  std::string line;
  std::uintptr_t first = 0, end = 0;
  while (std::getline(in, line)) {
    std::uintptr_t low = 0, high = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> low >> dash >> high && dash == '-') {
      first = low;
      end = high;
      continue;
    }
    char name[64] = {};
    long long kib = 0;
    if (std::sscanf(line.c_str(), "%63[^:]: %lld kB", name, &kib) == 2)
      f(first, end, std::string(name), kib);
  }
}

/// In smaps text `in`: the largest page size that maps any of the mapping that holds address
/// `at`: a page-middle-directory entry's span (2 MiB with 4 KiB pages) where some of it is on
/// huge pages (AnonHugePages, ShmemPmdMapped or FilePmdMapped above 0), else its
/// KernelPageSize; 0 where no mapping holds `at`.
inline std::size_t page_bytes_mapping(std::istream& in, std::uintptr_t at) {
  bool huge = false;
  std::size_t page = 0;
  for_each_smaps_field(
      in, [&](std::uintptr_t first, std::uintptr_t end, const std::string& field, long long kib) {
        if (at < first || at >= end) return;
        if (field == "KernelPageSize") page = static_cast<std::size_t>(kib) * 1024;
        if ((field == "AnonHugePages" || field == "ShmemPmdMapped" || field == "FilePmdMapped") &&
            kib > 0)
          huge = true;
      });
  return huge ? page * (page / 8) : page;
}

/// The same for this process's own mappings.
inline std::size_t page_bytes_mapping(const void* p) {
  std::ifstream in("/proc/self/smaps");
  return in ? page_bytes_mapping(in, reinterpret_cast<std::uintptr_t>(p)) : 0;
}

}  // namespace redist::detail
