#pragma once
// Helpers shared by the unit tests.
#include <string>

#include "../support/generators.hpp"

namespace redist::test {

/// The what() of the E that f throws, or "<no exception>".
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no exception>";
}

}  // namespace redist::test
