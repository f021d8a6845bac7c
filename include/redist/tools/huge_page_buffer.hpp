#pragma once
/// @file tools/huge_page_buffer.hpp
/// Host bytes allocated as TiledMatrix allocates its tiles: aligned to a 2 MiB huge page
/// and advised transparent huge pages before the first touch (detail/huge_pages.hpp). The
/// floors that redist-calibrate and the benchmarks measure (memcpy with every rank
/// copying, strided copies) copy between such buffers, so that a floor and the moves it
/// bounds run on the same kind of pages: memcpy on huge pages measured 0.91-1.58x (median
/// 1.18x) its rate on 4 KiB pages here (bench/README.md, "The floor on the matrices' pages").

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include <redist/detail/huge_pages.hpp>

namespace redist::tools {

class HugePageBuffer {
 public:
  /// `bytes` bytes, every page present and set to `fill`.
  explicit HugePageBuffer(std::size_t bytes, unsigned char fill = 0)
      : data_(allocate(bytes)), bytes_(bytes) {
    detail::advise_huge_pages(data_.get(), bytes_);
    std::memset(data_.get(), fill, bytes_);
  }

  [[nodiscard]] char* data() noexcept { return data_.get(); }
  [[nodiscard]] const char* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

 private:
  static constexpr std::size_t alignment = std::size_t{2} << 20;

  struct Free {
    void operator()(char* p) const noexcept { std::free(p); }
  };

  static char* allocate(std::size_t bytes) {
    // aligned_alloc wants a multiple of the alignment; at least one byte.
    const std::size_t rounded =
        (std::max<std::size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
    auto* p = static_cast<char*>(std::aligned_alloc(alignment, rounded));
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }

  std::unique_ptr<char, Free> data_;
  std::size_t bytes_;
};

}  // namespace redist::tools
