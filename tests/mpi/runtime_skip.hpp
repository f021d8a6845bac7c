// Test cases that cannot run in this process (a missing variable, too few ranks, too
// little memory), reported as skipped with the reason instead of passing silently.
// doctest 2.4 decides skips before main() (doctest::skip) and has none at run time, and a
// case skipped on some ranks only would leave the others waiting in its collectives. So a
// test file registers a condition at static initialisation; main() (main.cpp) evaluates
// every condition on every rank once MPI is up, skips a case on all ranks when any rank
// cannot run it (doctest counts it under "skipped") and rank 0 prints why.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace redist::test {

struct RuntimeSkip {
  std::string test_case;                ///< the TEST_CASE's name, exactly
  std::function<std::string()> reason;  ///< why it cannot run on this rank; empty: it can
};

inline std::vector<RuntimeSkip>& runtime_skips() {
  static std::vector<RuntimeSkip> list;
  return list;
}

/// Registers `reason` for the test case named `test_case`; returns true, to initialise a
/// namespace-scope constant with.
inline bool skip_when(std::string test_case, std::function<std::string()> reason) {
  runtime_skips().push_back({std::move(test_case), std::move(reason)});
  return true;
}

}  // namespace redist::test
