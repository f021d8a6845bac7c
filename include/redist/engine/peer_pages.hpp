#pragma once
/// @file engine/peer_pages.hpp
/// The pages of the peers' node-shared memory that a rank's moves touch in place: the
/// targets its pushes write (transport/push.hpp) and the sources its direct reads read
/// (transport/direct.hpp). A process maps a peer's page on its first touch, one fault a
/// page, and the first move paid them all (case a at 8192^2 into a node-shared target:
/// 0.56 s against 0.03 s for the next; bench/README.md, "The first move into or out of
/// node-shared memory"). Set-up makes them present in one call a span instead, and only
/// the spans the moves touch: a small region of a large matrix costs its own pages.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <redist/detail/populate_pages.hpp>
#include <redist/engine/pack_followers.hpp>

namespace redist::engine {

/// `spans` widened to whole pages of `page` bytes, sorted, and those that overlap or touch
/// merged: the fewest calls that cover every page of every span. Empty spans are dropped.
inline std::vector<AddressSpan> page_spans(std::vector<AddressSpan> spans, std::size_t page) {
  const std::uintptr_t mask = ~static_cast<std::uintptr_t>(page - 1);
  std::erase_if(spans, [](const AddressSpan& s) { return s.empty(); });
  for (AddressSpan& s : spans) {
    s.first &= mask;
    s.second = (s.second + page - 1) & mask;
  }
  std::sort(spans.begin(), spans.end(),
            [](const AddressSpan& a, const AddressSpan& b) { return a.first < b.first; });
  std::vector<AddressSpan> merged;
  for (const AddressSpan& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, s.second);
    else
      merged.push_back(s);
  }
  return merged;
}

/// Spans gathered one by one (a column member's at a time), then populated.
class PeerPages {
 public:
  /// Adds [first, end); joins it to the last span where they meet within a page (copies
  /// come in address order within a chunk, so most join here and the list stays short).
  void add(std::uintptr_t first, std::uintptr_t end) {
    if (first >= end) return;
    const std::uintptr_t page = redist::detail::page_bytes();
    if (!spans_.empty() && first <= spans_.back().second + page &&
        end + page >= spans_.back().first) {
      spans_.back().first = std::min(spans_.back().first, first);
      spans_.back().second = std::max(spans_.back().second, end);
      return;
    }
    spans_.push_back({first, end});
  }
  /// Makes every page of the spans present for `access`; returns the bytes made present
  /// (0 where the kernel cannot: the moves then fault them in, as before).
  std::size_t populate(redist::detail::PageAccess access) const {
    std::size_t bytes = 0;
    for (const AddressSpan& s : page_spans(spans_, redist::detail::page_bytes()))
      if (redist::detail::populate_pages(reinterpret_cast<const void*>(s.first), s.second - s.first,
                                         access))
        bytes += s.second - s.first;
    return bytes;
  }

 private:
  std::vector<AddressSpan> spans_;
};

}  // namespace redist::engine
