#pragma once
/// @file detail/environment.hpp
/// Parsing of the REDIST_* environment variables (ExecutionOptions::with_environment,
/// PlanOptions::with_environment): one place for their syntax and their error messages.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include <redist/error.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// A switch: "0" or "1".
/// @throws invalid_argument naming the variable and its value otherwise.
inline bool env_flag(std::string_view name, std::string_view v) {
  if (v == "0") return false;
  if (v == "1") return true;
  throw invalid_argument(describe("environment flag must be 0 or 1", name, v));
}

/// A byte count (or any count: `what`) in [smallest, largest] (smallest 0 or 1), in
/// decimal digits.
/// @throws invalid_argument naming the variable and its value otherwise.
inline index_t env_bytes(std::string_view name, std::string_view v, index_t largest = INT64_MAX,
                         index_t smallest = 1, std::string_view what = "byte count") {
  index_t n = 0;
  bool ok = !v.empty() && v.size() <= 18;  // 18 digits cannot overflow 64 bits
  for (char c : v) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  require<invalid_argument>(ok && n >= smallest,
                            smallest > 0 ? "must be a positive " + std::string(what)
                                         : "must be a " + std::string(what) + " (decimal digits)",
                            name, v);
  require<invalid_argument>(
      n <= largest, std::string(what) + " above the largest allowed, " + std::to_string(largest),
      name, v);
  return n;
}

/// Seconds: a finite decimal number >= 0 ("0.5", "300").
/// @throws invalid_argument naming the variable and its value otherwise.
inline double env_seconds(std::string_view name, std::string_view v) {
  double s = -1;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
  require<invalid_argument>(
      !v.empty() && ec == std::errc() && ptr == v.data() + v.size() && std::isfinite(s) && s >= 0,
      "must be a number of seconds >= 0", name, v);
  return s;
}

}  // namespace redist::detail
