#pragma once
// Keyword options of redist.Redistributor: every member of PlanOptions and ExecutionOptions
// by its name in code, read through their field tables (option_fields.hpp), so an option
// added there is a keyword here with nothing to write.
#include <string>
#include <vector>

#include <redist/execution_options.hpp>
#include <redist/plan/plan_options.hpp>

#include <pybind11/pybind11.h>

namespace redist_python {

struct MoveOptions {
  redist::PlanOptions plan;
  redist::ExecutionOptions execution;
};

/// `kwargs` as options: integers, booleans, seconds, toggles ("auto", "on", "off" or a bool)
/// and policies by their names ("node-window").
/// @throws redist::invalid_argument naming an unknown keyword (with the known ones), or a
/// keyword whose value has the wrong type or is out of its range.
MoveOptions move_options(const pybind11::kwargs& kwargs);

/// The keywords move_options takes, in table order.
std::vector<std::string> option_names();

}  // namespace redist_python
