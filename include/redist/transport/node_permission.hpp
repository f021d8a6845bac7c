#pragma once
/// @file transport/node_permission.hpp
/// Whether the ranks of a node may read each other's memory one way (the kernel's
/// cross-memory attach, transport/cross_memory_io.hpp; CUDA IPC, transport/device_ipc.hpp),
/// as every rank of the node agrees after trying it once.

#include <cstdlib>
#include <string>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

namespace redist::transport {

/// Whether the ranks of a node may read each other's memory, and if not, why.
struct Permission {
  bool allowed = false;
  std::string reason;  ///< empty when allowed
};

/// Whether environment variable `var` is "fail": a probe then fails on purpose, to test
/// the fallback. Set on some ranks only, the probe still fails everywhere alike.
inline bool forced_to_fail(const char* var) {
  const char* v = std::getenv(var);
  return v != nullptr && std::string(v) == "fail";
}

/// The answer of every rank of `node` from each one's own try (`why`: empty if it
/// succeeded): allowed if every rank succeeded, else not, with the first failing rank's
/// reason. Collective over `node`; returns once every rank has tried, so what a rank
/// exposed for the try may be freed after it.
inline Permission agree(const boost::mpi::communicator& node, std::string why) {
  const int first_failed = boost::mpi::all_reduce(node, why.empty() ? node.size() : node.rank(),
                                                  boost::mpi::minimum<int>());
  if (first_failed == node.size()) return {true, ""};
  boost::mpi::broadcast(node, why, first_failed);
  return {false, why};
}

}  // namespace redist::transport
