#pragma once
/// @file error.hpp
/// The library's exception family. Every error caused by input data or the environment
/// derives from redist::error and names the offending parameter and its value, so a
/// user reading one line knows what to change. Errors are raised while planning, on
/// every rank, before any message is sent (no rank is left waiting in a collective).

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace redist {

/// Base of every redist exception.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parameter has a value outside its domain (non-positive extent, bad boundary list).
class invalid_argument : public error {
 public:
  using error::error;
};

/// A region does not fit inside the source or the target matrix.
class region_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// A distribution is inconsistent with the communicator (grid larger than the
/// communicator, owner out of range).
class distribution_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// Storage cannot hold what the layout asks for (leading dimension too small,
/// overlapping source and target, wrapped allocation too small).
class storage_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// A textual specification (redist-run layout string, region string) is malformed.
class parse_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// Ranks passed different values for what a collective operation needs identical on
/// every rank (layouts, region, element size, options). Thrown on every rank alike.
class agreement_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

/// Communication failed or peers disagree about the plan.
class communication_error : public error {
 public:
  using error::error;
};

/// No message of this rank completed for ExecutionOptions::progress_timeout_seconds: a peer
/// or the link to it is gone. Raised on the stalled rank only (its peers may be stalled in
/// their own turn, or already gone), so a program reports it where it is caught and ends
/// the job rather than entering another collective.
class progress_timeout_error : public communication_error {
 public:
  using communication_error::communication_error;
};

/// The message of every redist error: "redist: <what>: <parameter> = <value>", any
/// streamable value. User models (a Distribution, a Placement) that throw a redist::error
/// build their messages with it, so theirs read like the library's.
/// Example: describe("need at least one rank", "powers.size()", 0) is
/// "redist: need at least one rank: powers.size() = 0".
template <class Value>
std::string describe(std::string_view what, std::string_view parameter, const Value& value) {
  std::ostringstream os;
  os << "redist: " << what << ": " << parameter << " = " << value;
  return os.str();
}

namespace detail {

// The library's own code spells it detail::describe.
using redist::describe;

/// Throws E with a message naming the parameter and its value when `ok` is false.
template <class E, class Value>
void require(bool ok, std::string_view what, std::string_view parameter, const Value& value) {
  if (!ok) throw E(describe(what, parameter, value));
}

}  // namespace detail
}  // namespace redist
