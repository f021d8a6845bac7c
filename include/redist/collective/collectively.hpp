#pragma once
/// @file collective/collectively.hpp
/// Collective error handling: when bad input is found on some ranks only, every rank
/// throws the same error type with the same message, and no rank is left waiting in a
/// collective call that the others skipped.

#include <exception>
#include <string>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/error.hpp>

namespace redist {

namespace detail {

enum class ErrorKind : int {
  none = 0,
  error,
  invalid_argument,
  region,
  distribution,
  storage,
  parse,
  communication,
  agreement
};

inline ErrorKind kind_of(const std::exception& e) {
  if (dynamic_cast<const region_error*>(&e)) return ErrorKind::region;
  if (dynamic_cast<const distribution_error*>(&e)) return ErrorKind::distribution;
  if (dynamic_cast<const storage_error*>(&e)) return ErrorKind::storage;
  if (dynamic_cast<const parse_error*>(&e)) return ErrorKind::parse;
  if (dynamic_cast<const agreement_error*>(&e)) return ErrorKind::agreement;
  if (dynamic_cast<const invalid_argument*>(&e)) return ErrorKind::invalid_argument;
  if (dynamic_cast<const communication_error*>(&e)) return ErrorKind::communication;
  return ErrorKind::error;
}

[[noreturn]] inline void throw_kind(ErrorKind k, const std::string& what) {
  switch (k) {
    case ErrorKind::region:
      throw region_error(what);
    case ErrorKind::distribution:
      throw distribution_error(what);
    case ErrorKind::storage:
      throw storage_error(what);
    case ErrorKind::parse:
      throw parse_error(what);
    case ErrorKind::invalid_argument:
      throw invalid_argument(what);
    case ErrorKind::communication:
      throw communication_error(what);
    case ErrorKind::agreement:
      throw agreement_error(what);
    default:
      throw error(what);
  }
}

/// Runs f on every rank; if it throws on any rank, every rank throws the same error
/// type with the message of the lowest failing rank. No rank is left in a collective.
template <class F>
void collectively(const boost::mpi::communicator& comm, F&& f) {
  ErrorKind kind = ErrorKind::none;
  std::string what;
  try {
    f();
  } catch (const std::exception& e) {
    kind = kind_of(e);
    what = e.what();
  }
  const int me = kind == ErrorKind::none ? comm.size() : comm.rank();
  const int first = boost::mpi::all_reduce(comm, me, boost::mpi::minimum<int>());
  if (first == comm.size()) return;
  int k = static_cast<int>(kind);
  boost::mpi::broadcast(comm, k, first);
  boost::mpi::broadcast(comm, what, first);
  throw_kind(static_cast<ErrorKind>(k), what);
}

}  // namespace detail

}  // namespace redist
