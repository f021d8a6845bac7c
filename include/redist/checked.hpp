#pragma once
/// @file checked.hpp
/// Overflow-checked 64-bit size arithmetic. Element counts, tile counts, grid sizes and
/// byte counts come from user input (a layout spec, a descriptor); a product that wraps
/// around would silently plan or allocate the wrong size, so every such product or sum
/// goes through these and an overflow is an invalid_argument naming the quantity:
///
///   checked_mul(4294967296, 4294967296, "matrix elements")
///   -> throws "redist: size overflows 64 bits: matrix elements = 4294967296 * 4294967296"

#include <string>
#include <string_view>

#include <redist/config.hpp>
#include <redist/error.hpp>

namespace redist::detail {

/// The message of a size that overflows: "redist: size overflows 64 bits: <quantity> = a <op> b".
inline std::string overflow_message(std::string_view quantity, index_t a, const char* op,
                                    index_t b) {
  return describe("size overflows 64 bits", quantity,
                  std::to_string(a) + " " + op + " " + std::to_string(b));
}

/// a * b. @throws invalid_argument naming `quantity` and both factors if it overflows.
constexpr index_t checked_mul(index_t a, index_t b, std::string_view quantity) {
  index_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw invalid_argument(overflow_message(quantity, a, "*", b));
  return r;
}

/// a + b. @throws invalid_argument naming `quantity` and both terms if it overflows.
constexpr index_t checked_add(index_t a, index_t b, std::string_view quantity) {
  index_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw invalid_argument(overflow_message(quantity, a, "+", b));
  return r;
}

/// A count that must fit an int (ranks of a grid): a * b.
/// @throws E (an invalid_argument) naming `quantity` and both factors if it exceeds INT_MAX.
template <class E = invalid_argument>
constexpr int checked_mul_int(int a, int b, std::string_view quantity) {
  int r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw E(describe("count overflows an int", quantity,
                     std::to_string(a) + " * " + std::to_string(b)));
  return r;
}

}  // namespace redist::detail
