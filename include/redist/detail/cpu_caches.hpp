#pragma once
/// @file detail/cpu_caches.hpp
/// The data caches of the CPU this process runs on, as Linux lists them under
/// /sys/devices/system/cpu/cpu0/cache/index*/ (level, type, size): what the node window's
/// rings are sized by (engine/ring_slots.hpp). Read once per process.

#include <algorithm>
#include <fstream>
#include <string>

#include <redist/index.hpp>

namespace redist::detail {

/// Bytes of the largest data (or unified) cache of each level; 0 where none is listed.
struct CpuCaches {
  index_t l2 = 0;  ///< per core, on the machines measured
  index_t l3 = 0;  ///< the cache the node's cores share (the last level)
};

/// "1024K", "32M" or "49152" as bytes; 0 if unreadable.
inline index_t parse_cache_size(const std::string& text) {
  index_t n = 0;
  std::size_t k = 0;
  for (; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k) n = n * 10 + (text[k] - '0');
  if (k == 0 || n > (index_t{1} << 40)) return 0;
  const char unit = k < text.size() ? text[k] : ' ';
  return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : unit == 'G' ? n << 30 : n;
}

/// The caches of cpu0 under `root` (tests pass a directory of their own).
inline CpuCaches read_cpu_caches(const std::string& root = "/sys/devices/system/cpu/cpu0/cache") {
  CpuCaches c;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = root + "/index" + std::to_string(i) + "/";
    std::ifstream level_in(dir + "level"), type_in(dir + "type"), size_in(dir + "size");
    std::string level, type, size;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> size)) continue;
    if (type == "Instruction") continue;
    if (level != "2" && level != "3") continue;
    index_t& bytes = level == "2" ? c.l2 : c.l3;
    bytes = std::max(bytes, parse_cache_size(size));
  }
  return c;
}

/// This machine's caches, read on first use.
inline const CpuCaches& cpu_caches() {
  static const CpuCaches caches = read_cpu_caches();
  return caches;
}

}  // namespace redist::detail
