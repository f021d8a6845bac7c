#pragma once
// Address space for a plan made before the caller's arrays are known: the Redistributor
// binds to storage at construction, and the first move rebinds it to the arrays. Reserved
// with no memory behind it until touched (and nothing touches it: no move runs on it).
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>

#include "local_arrays.hpp"
#include <sys/mman.h>

namespace redist_python {

class StandInStorage {
 public:
  StandInStorage() = default;
  /// Room for allocations of `elements` (per allocation) of `element_bytes`, one range.
  /// @throws redist::storage_error if the address space cannot be had.
  StandInStorage(const std::vector<index_t>& elements, std::size_t element_bytes) {
    std::vector<std::size_t> offsets;
    for (const index_t n : elements) {
      offsets.push_back(bytes_);
      bytes_ += (static_cast<std::size_t>(n) * element_bytes + 63) / 64 * 64;
    }
    if (bytes_ > 0) {
      void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        throw redist::storage_error(
            redist::describe("cannot reserve address space for the plan", "bytes", bytes_));
      base_ = static_cast<char*>(p);
    }
    for (std::size_t k = 0; k < elements.size(); ++k) {
      storage_.data.push_back(elements[k] > 0 ? base_ + offsets[k] : nullptr);
      storage_.elements.push_back(elements[k]);
    }
  }
  StandInStorage(StandInStorage&& o) noexcept { *this = std::move(o); }
  StandInStorage& operator=(StandInStorage&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(bytes_, o.bytes_);
    std::swap(storage_, o.storage_);
    return *this;
  }
  ~StandInStorage() {
    if (base_) ::munmap(base_, bytes_);
  }
  /// The reserved allocations (ld 0: the placement's own).
  const LocalStorage& storage() const { return storage_; }

 private:
  char* base_ = nullptr;
  std::size_t bytes_ = 0;
  LocalStorage storage_;
};

}  // namespace redist_python
