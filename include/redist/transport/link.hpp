#pragma once
/// @file transport/link.hpp
/// What every transport model works with: the communicator, the messages, their buffers,
/// the execution's requests and its execution-space instance.

#include <algorithm>

#include <boost/mpi/communicator.hpp>

#include <redist/transport/message_buffers.hpp>
#include <redist/transport/request_pool.hpp>
#include <redist/transport/transport.hpp>

namespace redist::transport {

template <class T, class MemorySpace>
struct Link {
  using execution_space = typename MemorySpace::execution_space;
  boost::mpi::communicator comm;
  Messages messages;
  MessageBuffers<T, MemorySpace>* buffers = nullptr;
  RequestPool* requests = nullptr;
  const execution_space* exec = nullptr;  ///< the execution's instance (start())
  index_t max_message_bytes = index_t{1} << 30;

  /// Splits `elements` elements into pieces an MPI int count can carry
  /// (PlanOptions::max_message_bytes); f(byte offset, bytes).
  template <class F>
  void for_each_piece(index_t elements, F&& f) const {
    const index_t total = elements * static_cast<index_t>(sizeof(T));
    for (index_t off = 0; off < total; off += max_message_bytes)
      f(off, static_cast<int>(std::min(max_message_bytes, total - off)));
  }
};

}  // namespace redist::transport
