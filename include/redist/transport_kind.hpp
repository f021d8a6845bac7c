#pragma once
/// @file transport_kind.hpp
/// Transport: how one message travels between two ranks, and its name. Apart from the task
/// graph (task_graph.hpp), which holds one per message, so that what reads the transports
/// of a move (the cost model, cost_model.hpp) needs no engine header.

#include <cstdint>

namespace redist {

/// How a message travels (chosen collectively when the engine is wired: transport/choose.hpp).
enum class Transport : std::uint8_t {
  point_to_point,  ///< MPI copies it from the sender's buffer into the receiver's
  shared_window,   ///< the receiver unpacks it from the sender's buffer (node window)
  direct,          ///< the receiver copies it from the sender's node-shared source tiles
  cross_memory,    ///< the receiver reads the sender's private source through the kernel
  device_ipc       ///< the receiver's device copies read the sender's device source (CUDA IPC)
};

/// Whether the receiver of a message that travels so reads the sender's source in place
/// (nothing is packed; the sender waits for the receiver's ack before the source may
/// change).
constexpr bool reads_in_place(Transport how) {
  return how == Transport::direct || how == Transport::cross_memory || how == Transport::device_ipc;
}

inline const char* to_string(Transport how) {
  switch (how) {
    case Transport::point_to_point:
      return "point-to-point";
    case Transport::shared_window:
      return "node-window";
    case Transport::direct:
      return "direct";
    case Transport::cross_memory:
      return "cross-memory";
    case Transport::device_ipc:
      return "device-ipc";
  }
  return "?";
}

}  // namespace redist
