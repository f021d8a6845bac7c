#pragma once
/// @file transport/chunk_datatypes.hpp
/// A chunk of a point-to-point message described to MPI as a derived datatype over the
/// matrix's own runs (ExecutionOptions::mpi_datatypes): the sender sends from its source
/// and the receiver receives into its target, so neither packs nor unpacks and MPI's copy
/// is the only one on that side (issue 44, point 3; bench/README.md, "Derived datatypes
/// between nodes").
///
/// Each side decides alone, chunk by chunk: the type is an hindexed MPI_CHAR over absolute
/// addresses (sent from MPI_BOTTOM), so its signature is the chunk's bytes in message
/// order, as a packed chunk's is; a described send matches a packed receive and the
/// other way round. Built once per binding, freed with it.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/exception.hpp>
#include <boost/mpi/request.hpp>
#include <mpi.h>

#include <redist/index.hpp>

namespace redist::transport {

/// Runs shorter than this on average are packed instead: MPI walks a datatype block by
/// block, and below it (1 x 1 tiles, say) a pack loop is faster. bench/datatype_probe.cpp
/// measured runs of 128 B faster described than packed between nodes.
inline constexpr index_t min_described_run_bytes = 128;

/// A run of a chunk: `bytes` bytes at `at` in a matrix, at byte `offset` of the chunk.
struct ChunkBlock {
  index_t offset = 0;
  const void* at = nullptr;
  index_t bytes = 0;
};

/// The datatype whose blocks, in chunk order, are `blocks` (sorted here); MPI_DATATYPE_NULL
/// when they do not tile the chunk's `total` bytes exactly, are too many for an int count,
/// or average under min_run_bytes.
inline MPI_Datatype describe_chunk(std::vector<ChunkBlock>& blocks, index_t total,
                                   index_t min_run_bytes = min_described_run_bytes) {
  if (blocks.empty() || total <= 0 || total > INT_MAX) return MPI_DATATYPE_NULL;
  std::sort(blocks.begin(), blocks.end(),
            [](const ChunkBlock& a, const ChunkBlock& b) { return a.offset < b.offset; });
  std::vector<int> lengths;
  std::vector<MPI_Aint> addresses;
  index_t next = 0;
  const char* end = nullptr;  // where the last block ends in memory
  for (const ChunkBlock& b : blocks) {
    if (b.offset != next || b.bytes <= 0) return MPI_DATATYPE_NULL;  // a gap or an overlap
    const char* at = static_cast<const char*>(b.at);
    if (at == end) {
      lengths.back() += static_cast<int>(b.bytes);  // continues the last block in memory
    } else {
      MPI_Aint address = 0;
      MPI_Get_address(at, &address);
      addresses.push_back(address);
      lengths.push_back(static_cast<int>(b.bytes));
    }
    end = at + b.bytes;
    next += b.bytes;
  }
  if (next != total || total < min_run_bytes * static_cast<index_t>(lengths.size()))
    return MPI_DATATYPE_NULL;
  if (lengths.size() > static_cast<std::size_t>(INT_MAX)) return MPI_DATATYPE_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  BOOST_MPI_CHECK_RESULT(
      MPI_Type_create_hindexed,
      (static_cast<int>(lengths.size()), lengths.data(), addresses.data(), MPI_CHAR, &type));
  BOOST_MPI_CHECK_RESULT(MPI_Type_commit, (&type));
  return type;
}

/// The datatypes of one direction's chunks (MPI_DATATYPE_NULL: packed). Owns them.
class ChunkDatatypes {
 public:
  ChunkDatatypes() = default;
  explicit ChunkDatatypes(std::size_t chunks) : types_(chunks, MPI_DATATYPE_NULL) {}
  ChunkDatatypes(ChunkDatatypes&& o) noexcept : types_(std::exchange(o.types_, {})) {}
  ChunkDatatypes& operator=(ChunkDatatypes&& o) noexcept {
    if (this != &o) {
      release();
      types_ = std::exchange(o.types_, {});
    }
    return *this;
  }
  ChunkDatatypes(const ChunkDatatypes&) = delete;
  ChunkDatatypes& operator=(const ChunkDatatypes&) = delete;
  ~ChunkDatatypes() { release(); }

  void set(std::size_t c, MPI_Datatype t) { types_.at(c) = t; }
  bool described(std::size_t c) const {
    return c < types_.size() && types_[c] != MPI_DATATYPE_NULL;
  }
  MPI_Datatype operator[](std::size_t c) const { return types_[c]; }
  /// Chunks described.
  std::size_t count() const {
    return static_cast<std::size_t>(std::count_if(
        types_.begin(), types_.end(), [](MPI_Datatype t) { return t != MPI_DATATYPE_NULL; }));
  }

 private:
  void release() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)  // after MPI_Finalize MPI freed them itself
      for (MPI_Datatype& t : types_)
        if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    types_.clear();
  }
  std::vector<MPI_Datatype> types_;
};

/// A Boost.MPI request that stands for `raw` (an MPI_Isend or MPI_Irecv of a derived
/// datatype, which Boost.MPI cannot post): a plain ("trivial") request whose handle is
/// replaced, so the request pool tests it with the others.
inline boost::mpi::request adopt_request(const boost::mpi::communicator& comm, MPI_Request raw) {
  boost::mpi::request r = boost::mpi::request::make_trivial_recv(comm, MPI_PROC_NULL, 0,
                                                                 static_cast<char*>(nullptr), 0);
  MPI_Request& handle = *r.trivial();
  BOOST_MPI_CHECK_RESULT(MPI_Wait, (&handle, MPI_STATUS_IGNORE));  // from MPI_PROC_NULL: at once
  handle = raw;
  return r;
}

}  // namespace redist::transport
