// The page size that backs an address (detail/mapped_pages.hpp), read from smaps text: a
// mapping's KernelPageSize, or a PMD's span where some of it is on huge pages (anonymous,
// shared memory or file), and 0 outside every mapping.
#include <cstdint>
#include <sstream>
#include <vector>

#include <redist/detail/mapped_pages.hpp>

#include <doctest/doctest.h>

using redist::detail::page_bytes_mapping;

namespace {

const char* const smaps = R"(55e0a0000000-55e0a0021000 r-xp 00000000 fd:01 1234   /usr/bin/x
Size:                132 kB
KernelPageSize:        4 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
7f0000000000-7f0010000000 rw-s 00000000 00:1a 99     /dev/shm/osc_sm.node.1 (deleted)
Size:             262144 kB
KernelPageSize:        4 kB
Rss:              262144 kB
AnonHugePages:         0 kB
ShmemPmdMapped:   262144 kB
FilePmdMapped:         0 kB
7f0010000000-7f0020000000 rw-s 00000000 00:1a 98     /dev/shm/osc_sm.node.0 (deleted)
Size:             262144 kB
KernelPageSize:        4 kB
ShmemPmdMapped:        0 kB
7f0020000000-7f0020400000 rw-p 00000000 00:00 0
Size:               4096 kB
KernelPageSize:        4 kB
AnonHugePages:      2048 kB
7ffc00000000-7ffc40000000 rw-p 00000000 00:00 0
Size:            1048576 kB
KernelPageSize:       64 kB
AnonHugePages:    524288 kB
7ffc40000000-7ffc40021000 rw-p 00000000 00:00 0      [stack]
Size:                132 kB
KernelPageSize:       64 kB
)";

std::size_t at(std::uintptr_t address) {
  std::istringstream in(smaps);
  return page_bytes_mapping(in, address);
}

}  // namespace

TEST_CASE("mapped pages: the page size of the mapping that holds an address") {
  CHECK(at(0x55e0a0000000) == 4096);                    // first byte
  CHECK(at(0x55e0a0020fff) == 4096);                    // last byte
  CHECK(at(0x55e0a0021000) == 0);                       // just past: no mapping
  CHECK(at(0x7f0000001234) == std::size_t{2} << 20);    // shared memory on huge pages
  CHECK(at(0x7f0010000000) == 4096);                    // shared memory on 4 KiB pages
  CHECK(at(0x7f0020200000) == std::size_t{2} << 20);    // anonymous, partly huge
  CHECK(at(0x7ffc00000000) == std::size_t{512} << 20);  // 64 KiB pages: a PMD spans 512 MiB
  CHECK(at(0x7ffc40000000) == std::size_t{64} << 10);   // 64 KiB pages, none huge
  CHECK(at(0x1000) == 0);
  std::istringstream empty;
  CHECK(page_bytes_mapping(empty, 0x7f0000000000) == 0);
}

TEST_CASE("mapped pages: this process's own stack") {
  int here = 0;
  const std::size_t page = page_bytes_mapping(&here);
  CHECK(page >= 4096);
  CHECK((page & (page - 1)) == 0);
}
