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
  device_ipc,      ///< the receiver's device copies read the sender's device source (CUDA IPC)
  push             ///< the sender writes it into the receiver's node-shared target
};

/// Every transport, in the order reports list them.
inline constexpr Transport all_transports[] = {Transport::point_to_point, Transport::shared_window,
                                               Transport::direct,         Transport::cross_memory,
                                               Transport::device_ipc,     Transport::push};

/// Whether the receiver of a message that travels so reads the sender's source in place
/// (nothing is packed; the sender waits for the receiver's ack before the source may
/// change).
constexpr bool reads_in_place(Transport how) {
  return how == Transport::direct || how == Transport::cross_memory || how == Transport::device_ipc;
}

/// Whether each element of a message that travels so is copied once, from the sender's
/// source into the receiver's target (read in place, or pushed: transport/push.hpp).
constexpr bool copied_once(Transport how) { return reads_in_place(how) || how == Transport::push; }

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
    case Transport::push:
      return "push";
  }
  return "?";
}

}  // namespace redist
