#pragma once
// What a redist.Layout object holds: the layout, and the rank of the communicator it was made
// with, the default of its local-storage methods.
#include <optional>

#include <redist/error.hpp>

#include "py_layout.hpp"

namespace redist_python {

struct BoundLayout {
  PyLayout layout;
  std::optional<int> rank;

  /// `given`, else the communicator's rank. @throws invalid_argument if neither is known.
  int rank_or(const std::optional<int>& given) const {
    if (given) return *given;
    if (rank) return *rank;
    throw redist::invalid_argument(
        "redist: layout: which rank? Give rank=..., or make the layout with comm");
  }
};

}  // namespace redist_python
