#pragma once
// The matrices redist-run moves: the layouts and storage the --src and --dst specs name
// (tools/layout_spec.hpp), built collectively, o.count of each side when they fit in memory.
#include <complex>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/compiled_engine.hpp>
#include <redist/node_shared.hpp>
#include <redist/redist.hpp>
#include <redist/relabel.hpp>
#include <redist/tiled_matrix.hpp>
#include <redist/tools/layout_spec.hpp>
#include <redist/topology.hpp>

#include "move.hpp"
#include "options.hpp"
#include "report.hpp"

namespace redist_run {

/// Target tile layouts go through Relabeled (the identity unless --relabel), so the
/// relabeled case needs no further template instantiations. TileMatrixLayout and
/// GridMatrixLayout: tools/layout_spec.hpp.
using RelabeledLayout = Layout<SpecShape, Relabeled<SpecDistribution>>;

/// Bytes of storage matrix m holds on its rank.
template <class M>
index_t matrix_bytes(const M& m) {
  index_t bytes = 0;
  for (const auto& a : m.allocations())
    bytes += static_cast<index_t>(a.span() * sizeof(typename M::value_type));
  return bytes;
}

/// What a part costs beyond its matrices' storage: the two matrix objects and their
/// allocation records, and the part's share of the plan and its copy programs (about 1.3 KiB
/// with 4 x 4 matrices of 2 x 2 tiles: bench/README.md, suite parts).
constexpr index_t part_overhead_bytes = 4096;

/// Whether --count matrices of each side fit in memory: each rank needs count x (its
/// storage of one source and one target matrix + part_overhead_bytes), and the ranks of a
/// node together at most its memory + swap (the bound TiledMatrix checks one matrix
/// against). Collective.
/// @throws UsageError naming --count, its value, the bytes needed and how many fit, on
/// every rank alike, if some node has too little.
inline void check_count(const Options& o, const boost::mpi::communicator& comm,
                        index_t pair_bytes) {
  const index_t per_part = pair_bytes + part_overhead_bytes;
  // Saturated: a count whose bytes overflow 64 bits fits nowhere.
  const auto times = [](index_t a, index_t b) {
    index_t x = 0;
    return __builtin_mul_overflow(a, b, &x) ? INT64_MAX : x;
  };
  const boost::mpi::communicator node = redist::detail::node_communicator(comm);
  std::vector<index_t> parts_of;  // per part, on each rank of this node
  boost::mpi::all_gather(node, per_part, parts_of);
  index_t node_part = 0;
  for (const index_t b : parts_of) node_part = std::min(INT64_MAX - b, node_part) + b;
  const index_t need = times(o.count, node_part);
  const index_t memory = redist::detail::node_memory_bytes();
  const bool over = memory > 0 && need > memory;
  const int first =
      boost::mpi::all_reduce(comm, over ? comm.rank() : comm.size(), boost::mpi::minimum<int>());
  if (first == comm.size()) return;
  std::string message;
  if (comm.rank() == first)
    message = std::to_string(o.count) + " matrices of each side need " +
              (need == INT64_MAX ? "more than 2^63" : std::to_string(need)) +
              " bytes on one node (" + std::to_string(node_part) +
              " per matrix pair), more than its memory + swap (" + std::to_string(memory) +
              "); at most " + std::to_string(memory / node_part) + " fit";
  boost::mpi::broadcast(comm, message, first);
  throw UsageError{"--count", message};
}

/// Builds o.count matrices of each side in --type T, as --src and --dst say, and runs
/// them (move.hpp). Collective. Returns the exit status.
template <class T>
int run_typed(const Options& o, const boost::mpi::communicator& comm) {
  const int me = comm.rank(), np = comm.size();
  // Building the matrices allocates on each rank alone; a rank that cannot (storage_error)
  // must not leave the others in the Redistributor's collectives: every rank throws the
  // lowest failing rank's error. `n` more matrices into `list`, in node-shared memory
  // (node_shared_matrix, collective itself) where `shared`.
  const auto build = [&](auto& list, index_t n, bool shared, const auto& layout,
                         const auto& placement) {
    using M = typename std::decay_t<decltype(list)>::value_type::element_type;
    redist::detail::collectively(comm, [&] {
      list.reserve(list.size() + static_cast<std::size_t>(n));
      for (index_t k = 0; k < n; ++k)
        list.push_back(shared ? std::make_unique<M>(node_shared_matrix<T>(layout, placement, comm))
                              : std::make_unique<M>(layout, placement, me));
    });
  };
  const auto pointers = [](auto& list) {
    std::vector<typename std::decay_t<decltype(list)>::value_type::element_type*> out;
    for (auto& m : list) out.push_back(m.get());
    return out;
  };
  // One matrix of each side first: what they hold says whether o.count of each fit
  // (check_count), before the others are built. `more_a` builds the other sources.
  const auto with_dst = [&](auto& A, const auto& more_a) {
    RelabelChoice choice;
    const auto finish = [&](auto& B, const auto&... b_args) {
      build(B, 1, o.shared_dst, b_args...);
      check_count(o, comm, matrix_bytes(*A.front()) + matrix_bytes(*B.front()));
      more_a();
      build(B, o.count - 1, o.shared_dst, b_args...);
      return move_and_report<T>(o, comm, pointers(A), pointers(B), choice);
    };
    // The four storage combinations; tile storage packs the owned tiles in one allocation.
    if (o.dst.storage == StorageKind::scalapack) {
      std::vector<std::unique_ptr<TiledMatrix<T, GridMatrixLayout, ScalapackColumnMajor<>>>> B;
      return finish(B, make_block_cyclic_layout(o.dst, "--dst"), ScalapackColumnMajor<>{});
    }
    const TileMatrixLayout base = make_layout(o.dst, np);
    std::vector<int> perm(static_cast<std::size_t>(np));
    std::iota(perm.begin(), perm.end(), 0);
    // Every rank computes the same volumes and so the same permutation.
    if (o.relabel != Relabel::off) {
      // The volumes of the move as it runs: op(source), masked to the triangle.
      const std::vector<index_t> volume =
          transfer_volumes(A.front()->layout(), base, *o.region, np, o.op, o.triangle);
      const std::vector<int>& nodes = node_map(comm).node_of_rank;
      choice.inter_node_before = split_transfers(volume, perm, nodes).inter_node;
      perm = o.relabel == Relabel::nodes ? best_node_relabeling(volume, nodes)
                                         : best_relabeling(volume, np);
      choice.inter_node_after = split_transfers(volume, perm, nodes).inter_node;
    }
    const RelabeledLayout relabeled{base.shape(),
                                    Relabeled<SpecDistribution>(base.distribution(), perm)};
    std::vector<std::unique_ptr<TiledMatrix<T, RelabeledLayout, SpecPlacement>>> B;
    return finish(B, relabeled, make_placement(o.dst));
  };
  if (o.src.storage == StorageKind::scalapack) {
    std::vector<std::unique_ptr<TiledMatrix<T, GridMatrixLayout, ScalapackColumnMajor<>>>> A;
    const GridMatrixLayout layout = make_block_cyclic_layout(o.src, "--src");
    build(A, 1, o.shared_src, layout, ScalapackColumnMajor<>{});
    return with_dst(A,
                    [&] { build(A, o.count - 1, o.shared_src, layout, ScalapackColumnMajor<>{}); });
  }
  std::vector<std::unique_ptr<TiledMatrix<T, TileMatrixLayout, SpecPlacement>>> A;
  const TileMatrixLayout layout = make_layout(o.src, np);
  const SpecPlacement placement = make_placement(o.src);
  build(A, 1, o.shared_src, layout, placement);
  return with_dst(A, [&] { build(A, o.count - 1, o.shared_src, layout, placement); });
}

// Each element type's run is compiled in a unit of its own (apps/CMakeLists.txt generates
// them from redist-run/typed.cpp.in), so the five compile side by side.
#define REDIST_RUN_TYPED(T) \
  extern template int run_typed<T>(const Options&, const boost::mpi::communicator&);
REDIST_COMPILED_ELEMENT_TYPES(REDIST_RUN_TYPED)
#undef REDIST_RUN_TYPED

/// run_typed for o.type.
inline int dispatch(const Options& o, const boost::mpi::communicator& comm) {
  if (o.type == "float") return run_typed<float>(o, comm);
  if (o.type == "cdouble") return run_typed<std::complex<double>>(o, comm);
  if (o.type == "cfloat") return run_typed<std::complex<float>>(o, comm);
  if (o.type == "int") return run_typed<int>(o, comm);
  return run_typed<double>(o, comm);
}

}  // namespace redist_run
