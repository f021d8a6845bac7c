#pragma once
/// @file engine/mpi_described_chunks.hpp
/// Which chunks of this rank's point-to-point messages go to MPI as derived datatypes over
/// the matrices' own runs (ExecutionOptions::mpi_datatypes, transport/chunk_datatypes.hpp),
/// with their datatypes. Each side decides alone, chunk by chunk:
///   - the message goes point to point, in host memory, unstaged, and (automatic) to or
///     from a rank on another node, or (on) any rank;
///   - the chunk travels as one MPI piece (`max_message_bytes`: the link's, which a step
///     order between nodes lowers to its pieces), as its peer, which cuts alike, expects;
///   - the side only copies (a receive that scales, conjugates or transposes is unpacked);
///   - its runs tile the chunk and are long enough on average (min_described_run_bytes).
/// Sides that decide differently still match: both signatures are the chunk's bytes.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <redist/engine/bound_copies.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan.hpp>
#include <redist/task_graph.hpp>
#include <redist/topology.hpp>
#include <redist/transport/chunk_datatypes.hpp>
#include <redist/transport/message_buffers.hpp>

namespace redist::engine {

/// The described chunks of this rank: sent, received.
struct DescribedChunks {
  transport::ChunkDatatypes sent, received;
};

template <class T, class MemorySpace>
DescribedChunks describe_chunks_to_mpi(const Plan& plan, const TaskGraph& graph,
                                       const BoundCopies<T, MemorySpace>& copies,
                                       const transport::MessageBuffers<T, MemorySpace>& buffers,
                                       const ExecutionOptions& options, const NodeMap& nodes,
                                       index_t max_message_bytes) {
  DescribedChunks out{transport::ChunkDatatypes(graph.send.chunks.size()),
                      transport::ChunkDatatypes(graph.recv.chunks.size())};
  constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  if (!host_memory || buffers.staged() || options.mpi_datatypes == Toggle::off) return out;
  const auto size = static_cast<index_t>(sizeof(T));
  const int me_node = nodes.node_of_rank[static_cast<std::size_t>(plan.rank)];
  const auto wanted = [&](const Message& msg, Transport how) {
    if (how != Transport::point_to_point) return false;
    return options.mpi_datatypes == Toggle::on ||
           nodes.node_of_rank[static_cast<std::size_t>(msg.peer)] != me_node;
  };
  const auto one_piece = [&](const Chunk& ch) {
    return ch.elements * size <= std::min(max_message_bytes, largest_message_bytes);
  };
  std::vector<transport::ChunkBlock> blocks;
  // f(c, start of chunk c in the buffer, add) lists chunk c's runs into `blocks`.
  const auto describe = [&](const T* chunk_at, const Chunk& ch, auto&& runs) {
    blocks.clear();
    const bool copies_only = runs([&](const T* in_buffer, const T* in_matrix, index_t n) {
      blocks.push_back({(in_buffer - chunk_at) * size, in_matrix, n * size});
    });
    return copies_only ? transport::describe_chunk(blocks, ch.elements * size) : MPI_DATATYPE_NULL;
  };
  for (std::size_t c = 0; c < graph.send.chunks.size(); ++c) {
    const Chunk& ch = graph.send.chunks[c];
    if (!wanted(plan.send.messages[ch.message], graph.send_transport[ch.message]) || !one_piece(ch))
      continue;
    out.sent.set(c, describe(buffers.chunk_at(ch.message, c, ch.offset), ch,
                             [&](auto&& add) { return copies.for_each_sent_run(c, add); }));
  }
  for (std::size_t c = 0; c < graph.recv.chunks.size(); ++c) {
    const Chunk& ch = graph.recv.chunks[c];
    if (!wanted(plan.recv.messages[ch.message], graph.recv_transport[ch.message]) || !one_piece(ch))
      continue;
    out.received.set(c, describe(buffers.recv_at(ch.message) + ch.offset, ch,
                                 [&](auto&& add) { return copies.for_each_received_run(c, add); }));
  }
  return out;
}

}  // namespace redist::engine
