#pragma once
/// @file tools/spec_parser.hpp
/// The pieces the layout grammar (tools/layout_spec.hpp) is read with: decimal numbers in
/// a range, "AxB" pairs, grids, lists of powers, and the one error every malformed piece
/// raises (parse_error naming the argument, the piece and the whole text).

#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <redist/error.hpp>
#include <redist/index.hpp>

namespace redist::tools {

/// `text` with every byte that is not printable ASCII or part of a valid UTF-8 character
/// written as \xHH, so a message quoting user input is one readable line.
/// Example: escape_nonprintable("a\xFFb\n") == "a\\xFFb\\x0A".
inline std::string escape_nonprintable(std::string_view text) {
  std::string out;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  for (std::size_t k = 0; k < text.size();) {
    const unsigned char c = byte(k);
    // Length of a well-formed UTF-8 sequence starting at k (0: not one).
    std::size_t len = c >= 0x20 && c < 0x7F ? 1 : 0;
    if (c >= 0xC2 && c <= 0xF4) {
      const std::size_t want = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      std::size_t ok = 1;
      while (ok < want && k + ok < text.size() && (byte(k + ok) & 0xC0) == 0x80) ++ok;
      if (ok == want) len = want;
    }
    if (len > 0) {
      out.append(text.substr(k, len));
      k += len;
    } else {
      static constexpr char hex[] = "0123456789ABCDEF";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++k;
    }
  }
  return out;
}

/// A P x Q grid with KP x KQ super-tiles.
struct GridSpec {
  int P = 1;
  int Q = 1;
  index_t kp = 1;
  index_t kq = 1;
  friend bool operator==(const GridSpec&, const GridSpec&) = default;
};

namespace detail {

/// Throws parse_error "redist: <argument>: <reason> '<piece>' (in '<text>')", with
/// non-printable bytes of piece and text escaped.
[[noreturn]] inline void parse_fail(std::string_view argument, std::string_view reason,
                                    std::string_view piece, std::string_view text) {
  std::ostringstream os;
  os << "redist: " << argument << ": " << reason << " '" << escape_nonprintable(piece) << "'";
  if (piece != text) os << " (in '" << escape_nonprintable(text) << "')";
  throw parse_error(os.str());
}

/// Reads the pieces of one argument's text; every failure names `argument` and `text`.
struct Parser {
  std::string_view argument;
  std::string_view text;

  [[noreturn]] void fail(std::string_view reason, std::string_view piece) const {
    parse_fail(argument, reason, piece, text);
  }

  /// A decimal integer in [min, max], the whole of `s`.
  std::uint64_t number(std::string_view s, std::string_view what, std::uint64_t min,
                       std::uint64_t max) const {
    std::uint64_t v = 0;
    const char* first = s.data();
    const char* last = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (s.empty() || ec != std::errc() || ptr != last)
      fail("expected a non-negative integer for " + std::string(what) + ", got", s);
    if (v < min || v > max)
      fail(std::string(what) + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
               "], got",
           s);
    return v;
  }
  index_t index(std::string_view s, std::string_view what, index_t min) const {
    return static_cast<index_t>(number(s, what, static_cast<std::uint64_t>(min),
                                       static_cast<std::uint64_t>(INT64_MAX / 4)));
  }
  int small(std::string_view s, std::string_view what) const {
    return static_cast<int>(number(s, what, 1, 1u << 30));
  }

  /// "AxB" -> (A, B) as strings.
  std::pair<std::string_view, std::string_view> pair(std::string_view s, std::string_view what,
                                                     char sep = 'x') const {
    const auto k = s.find(sep);
    if (k == std::string_view::npos || s.find(sep, k + 1) != std::string_view::npos)
      fail(std::string("expected ") + std::string(what) + ", got", s);
    return {s.substr(0, k), s.substr(k + 1)};
  }

  Extents extents(std::string_view s, std::string_view what, index_t min) const {
    const auto [a, b] = pair(s, std::string(what) + " as ROWSxCOLS");
    return {index(a, std::string(what) + " rows", min),
            index(b, std::string(what) + " columns", min)};
  }

  GridSpec grid(std::string_view s, std::string_view what) const {
    const auto [p, q] = pair(s, std::string(what) + " as PxQ");
    GridSpec g;
    g.P = small(p, std::string(what) + " rows P");
    g.Q = small(q, std::string(what) + " columns Q");
    return g;
  }

  static std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
      const auto k = s.find(sep, start);
      out.push_back(s.substr(start, k == std::string_view::npos ? s.npos : k - start));
      if (k == std::string_view::npos) return out;
      start = k + 1;
    }
  }

  /// A comma-separated list of powers: finite decimals >= 0, not all zero.
  std::vector<double> powers(std::string_view s) const {
    std::vector<double> out;
    double sum = 0;
    const auto items = split(s, ',');
    for (std::size_t k = 0; k < items.size(); ++k) {
      const std::string_view w = items[k];
      double v = 0;
      const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
      const std::string what = "power w" + std::to_string(k);
      if (w.empty() || ec != std::errc() || ptr != w.data() + w.size() || !std::isfinite(v))
        fail("expected a decimal number for " + what + ", got", w);
      if (v < 0) fail(what + " must be non-negative, got", w);
      out.push_back(v);
      sum += v;
    }
    if (!(sum > 0)) fail("powers must not all be zero, got", s);
    return out;
  }
};

}  // namespace detail
}  // namespace redist::tools
