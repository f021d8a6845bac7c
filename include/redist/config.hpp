#pragma once
/// @file config.hpp
/// Version, the element index type, and the contract macros of redist.

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace redist {

/// Library version, also exported to CMake as redist_VERSION.
inline constexpr const char* version_string = "0.1.0";

/// Every element and tile count is 64-bit: matrices beyond 2^31 elements are the normal case.
using index_t = std::int64_t;

namespace detail {
[[noreturn]] inline void contract_violation(const char* kind, const char* cond, const char* file,
                                            int line) {
  std::fprintf(stderr, "redist: %s violated: %s (%s:%d)\n", kind, cond, file, line);
  std::abort();
}
}  // namespace detail

}  // namespace redist

/// Contract checks on caller bugs in hot index math (not on user data: that throws
/// redist::error). Compiled in with -DREDIST_ENABLE_CONTRACTS=1, or in debug builds.
/// Outside constant evaluation a violation aborts with the condition; inside a
/// constant expression it makes the expression ill-formed.
#if !defined(REDIST_ENABLE_CONTRACTS)
#if defined(NDEBUG)
#define REDIST_ENABLE_CONTRACTS 0
#else
#define REDIST_ENABLE_CONTRACTS 1
#endif
#endif

#if REDIST_ENABLE_CONTRACTS
#define REDIST_EXPECTS(cond)     \
  ((cond) ? static_cast<void>(0) \
          : ::redist::detail::contract_violation("precondition", #cond, __FILE__, __LINE__))
#define REDIST_ENSURES(cond)     \
  ((cond) ? static_cast<void>(0) \
          : ::redist::detail::contract_violation("postcondition", #cond, __FILE__, __LINE__))
#else
#define REDIST_EXPECTS(cond) static_cast<void>(0)
#define REDIST_ENSURES(cond) static_cast<void>(0)
#endif
