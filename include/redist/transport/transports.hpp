#pragma once
/// @file transport/transports.hpp
/// The four transport models of one executor over one Link, and the dispatch from a
/// message's Transport to its model.

#include <redist/transport/direct.hpp>
#include <redist/transport/link.hpp>
#include <redist/transport/point_to_point.hpp>
#include <redist/transport/push.hpp>
#include <redist/transport/shared_window.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
class Transports {
 public:
  static_assert(MessageTransport<PointToPoint<T, MemorySpace>>);
  static_assert(MessageTransport<SharedWindow<T, MemorySpace>>);
  static_assert(MessageTransport<Direct<T, MemorySpace>>);
  static_assert(MessageTransport<Push<T, MemorySpace>>);

  /// @pre `link` outlives this object and does not move.
  explicit Transports(const Link<T, MemorySpace>* link)
      : point_to_point(link), shared_window(link), direct(link), push(link) {}

  /// f(model) for the model of transport `how`.
  template <class F>
  decltype(auto) with(Transport how, F&& f) {
    switch (how) {
      case Transport::shared_window:
        return f(shared_window);
      case Transport::direct:
      case Transport::cross_memory:
      case Transport::device_ipc:
        return f(direct);
      case Transport::push:
        return f(push);
      case Transport::point_to_point:
        break;
    }
    return f(point_to_point);
  }
  template <class F>
  void for_each(F&& f) {
    f(point_to_point);
    f(shared_window);
    f(direct);
    f(push);
  }

  PointToPoint<T, MemorySpace> point_to_point;
  SharedWindow<T, MemorySpace> shared_window;
  Direct<T, MemorySpace> direct;
  Push<T, MemorySpace> push;
};

}  // namespace redist::transport
