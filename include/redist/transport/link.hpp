#pragma once
/// @file transport/link.hpp
/// What every transport model works with: the communicator, the messages, their buffers,
/// the execution's requests and its execution-space instance.

#include <algorithm>

#include <boost/mpi/communicator.hpp>

#include <redist/config.hpp>
#include <redist/execution_options.hpp>
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
  /// ExecutionOptions::max_message_bytes, in [1, largest_message_bytes]
  index_t max_message_bytes = largest_message_bytes;
  /// The node window's chunks travel through rings of slots (transport/ring_slots.hpp),
  /// each acked once unpacked; else whole messages, acked once all unpacked. The same on
  /// every rank (ExecutionOptions::ring_slots).
  bool ring = false;

  /// Splits `elements` elements into pieces an MPI int count can carry
  /// (ExecutionOptions::max_message_bytes); f(byte offset, bytes).
  template <class F>
  void for_each_piece(index_t elements, F&& f) const {
    REDIST_EXPECTS(max_message_bytes >= 1);
    // ExecutionOptions::validate() rejects a larger limit; capped here too, so that no
    // piece's count can wrap whoever set the limit.
    const index_t limit = std::min(max_message_bytes, largest_message_bytes);
    const index_t total = elements * static_cast<index_t>(sizeof(T));
    for (index_t off = 0; off < total; off += limit)
      f(off, static_cast<int>(std::min(limit, total - off)));
  }
};

}  // namespace redist::transport
