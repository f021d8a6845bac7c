#pragma once
/// @file scalapack/plan_cache.hpp
/// PlanCache: Redistributors between ScaLAPACK arrays, kept between calls so that a loop
/// that copies the same layouts every iteration plans once (gemr2d.hpp, the ABI library
/// libredist_scalapack).
///
/// | a call whose key (PlanKey) ...        | costs                                     |
/// |---------------------------------------|-------------------------------------------|
/// | matches an entry, same arrays and LLD | one 3-int all-reduce, then the move       |
/// | matches an entry, other arrays or LLD | + Redistributor::rebind (binding, no plan)|
/// | matches no entry                      | + a new Redistributor (plan, agreement);  |
/// |                                       | the least recently used entry goes when   |
/// |                                       | the communicator's entries exceed capacity|
///
/// Collective discipline. Building and destroying a Redistributor are collective, so
/// every rank of the communicator must make the same decision. Entries are kept per
/// communicator group (same ranks in the same order, MPI_Group_compare == MPI_IDENT); all
/// ranks of a group take part in every call on it, so their lists of entries change in
/// the same way and stay position for position alike. A call looks its key up locally,
/// then one all-reduce agrees: a hit only if every rank found the key at the same
/// position, a rebind if any rank's arrays or leading dimension changed, else a miss on
/// every rank. Lifetime: clear() (collective) destroys the entries; default_plan_cache()
/// is cleared when Kokkos or MPI is finalized, whichever comes first.
///
/// Not thread safe (nor are the BLACS): one thread of a process calls at a time.

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <redist/collective/collectively.hpp>
#include <redist/execution_options.hpp>
#include <redist/plan/plan_options.hpp>
#include <redist/redistributor.hpp>
#include <redist/region.hpp>
#include <redist/scalapack/layout.hpp>
#include <redist/transform.hpp>

namespace redist::scalapack {

/// What fixes a cached plan: element type, both descriptors without their DTYPE_ (never
/// read), context and leading dimension (LLD is storage: a change rebinds, it does not
/// replan), both grids, the region, and `operation` (0 for gemr2d's general copy; other
/// operations such as a trapezoid copy give each of their variants its own value).
struct PlanKey {
  std::type_index type = typeid(void);
  Descriptor a, b;
  Grid grid_a, grid_b;
  Region region;
  std::uint64_t operation = 0;

  /// The key of moving `region` from (a, grid_a) to (b, grid_b), elements of type T.
  template <class T>
  static PlanKey of(const Descriptor& a, const Grid& grid_a, const Descriptor& b,
                    const Grid& grid_b, Region region, std::uint64_t operation = 0) {
    PlanKey k{typeid(T), a, b, grid_a, grid_b, region, operation};
    k.a.dtype = k.b.dtype = 0;
    k.a.ctxt = k.b.ctxt = 0;
    k.a.lld = k.b.lld = 0;
    return k;
  }
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

class PlanCache {
 public:
  /// Counts of this process's acquire() outcomes.
  struct Stats {
    index_t hits = 0;       ///< same plan, same arrays
    index_t rebinds = 0;    ///< same plan, other arrays or leading dimensions
    index_t misses = 0;     ///< planned anew
    index_t evictions = 0;  ///< entries destroyed to stay within capacity
  };

  /// At most `capacity` entries per communicator group (each holds its message buffers).
  explicit PlanCache(std::size_t capacity = 4) : capacity_(capacity > 0 ? capacity : 1) {}
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;
  /// Destroys the entries: collective over every communicator that has some (clear()).
  ~PlanCache() { clear(); }

  /// The Redistributor that moves key.region from `a` (descriptor key.a with leading
  /// dimension lld_a) to `b` on `comm`: cached, rebound to these arrays, or built (with
  /// `plan`, `execution` and `transform`, which must not vary for one key: a transform
  /// goes into key.operation, scalapack/transform.hpp). Collective over `comm`;
  /// every rank passes the same key except for its own arrays and leading dimensions.
  /// Null arrays are fine on ranks that store nothing.
  /// @throws the redist::error family on every rank (bad descriptors, region, storage);
  /// the cache is then as before the call.
  template <class T>
  Redistributor<Matrix<T>, Matrix<T>>& acquire(const PlanKey& key, const T* a, index_t lld_a, T* b,
                                               index_t lld_b, const boost::mpi::communicator& comm,
                                               PlanOptions plan = {},
                                               ExecutionOptions execution = {},
                                               const Transform<T>& transform = {}) {
    using R = Redistributor<Matrix<T>, Matrix<T>>;
    Group& g = group_of(comm);
    int pos = 0;
    bool same = false;
    for (auto it = g.entries.begin(); it != g.entries.end(); ++it, ++pos)
      if ((*it)->key == key) {
        const Arrays& s = (*it)->arrays;
        same = s.a == a && s.b == b && s.lld_a == lld_a && s.lld_b == lld_b;
        break;
      }
    if (pos == static_cast<int>(g.entries.size())) pos = -1;
    // min(pos), min(-pos) = -max(pos), min(same): a hit needs the same position everywhere.
    int agreed[3] = {pos, -pos, same ? 1 : 0};
    MPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MIN, comm);
    const Arrays arrays{a, b, lld_a, lld_b};
    const auto wrap_both = [&](TypedEntry<T>& e) {
      const int me = comm.rank();
      Descriptor da = key.a, db = key.b;
      da.lld = lld_a, db.lld = lld_b;
      e.A = std::make_unique<Matrix<T>>(wrap(const_cast<T*>(a), da, key.grid_a, me));
      e.B = std::make_unique<Matrix<T>>(wrap(b, db, key.grid_b, me));
    };
    if (agreed[0] >= 0 && agreed[0] == -agreed[1]) {
      auto it = std::next(g.entries.begin(), agreed[0]);
      g.entries.splice(g.entries.begin(), g.entries, it);  // most recently used first
      auto& e = static_cast<TypedEntry<T>&>(*g.entries.front());
      if (agreed[2] == 1) {
        ++stats_.hits;
        return *e.r;
      }
      // A is only read; the const_cast lets it share the matrix type of B.
      TypedEntry<T> next;
      detail::collectively(comm, [&] { wrap_both(next); });
      e.r->rebind(*next.A, *next.B);  // collective; unchanged when it throws
      e.A = std::move(next.A);
      e.B = std::move(next.B);
      e.arrays = arrays;
      ++stats_.rebinds;
      return *e.r;
    }
    auto e = std::make_unique<TypedEntry<T>>();
    e->key = key;
    e->arrays = arrays;
    detail::collectively(comm, [&] { wrap_both(*e); });
    e->r = std::make_unique<R>(*e->A, *e->B, comm, key.region, transform, plan, execution);
    g.entries.push_front(std::move(e));
    ++stats_.misses;
    while (g.entries.size() > capacity_) {
      g.entries.pop_back();  // collective: every rank of the group drops the same entry
      ++stats_.evictions;
    }
    return *static_cast<TypedEntry<T>&>(*g.entries.front()).r;
  }

  /// Destroys every entry, groups in the reverse order of their first use. Collective
  /// over every communicator that has entries: call it on all ranks at the same point
  /// (Kokkos and MPI still initialized). After MPI_Finalize or Kokkos::finalize the
  /// entries cannot be destroyed any more and are abandoned instead.
  void clear() {
    int mpi_done = 0, mpi_up = 0;
    MPI_Finalized(&mpi_done);
    MPI_Initialized(&mpi_up);
    if (mpi_done || !mpi_up || !Kokkos::is_initialized()) {
      abandon();
      return;
    }
    while (!groups_.empty()) {
      groups_.back().entries.clear();
      MPI_Group_free(&groups_.back().group);
      groups_.pop_back();
    }
  }

  /// Forgets every entry without destroying it (no MPI, no Kokkos): for exits where
  /// a collective destruction could hang. The entries' memory is leaked.
  void abandon() {
    for (Group& g : groups_)
      for (auto& e : g.entries) (void)e.release();
    groups_.clear();
  }

  /// Entries held, over all communicator groups.
  std::size_t size() const {
    std::size_t n = 0;
    for (const Group& g : groups_) n += g.entries.size();
    return n;
  }
  std::size_t capacity() const { return capacity_; }
  const Stats& stats() const { return stats_; }

 private:
  struct Arrays {
    const void* a = nullptr;
    const void* b = nullptr;
    index_t lld_a = 0, lld_b = 0;
  };
  struct Entry {
    virtual ~Entry() = default;
    PlanKey key;
    Arrays arrays;
  };
  template <class T>
  struct TypedEntry : Entry {
    // Destroyed in reverse: the Redistributor before the matrices it is bound to.
    std::unique_ptr<Matrix<T>> A, B;
    std::unique_ptr<Redistributor<Matrix<T>, Matrix<T>>> r;
  };
  struct Group {
    MPI_Group group = MPI_GROUP_NULL;
    std::list<std::unique_ptr<Entry>> entries;  // most recently used first
  };

  Group& group_of(const boost::mpi::communicator& comm) {
    MPI_Group mine;
    MPI_Comm_group(static_cast<MPI_Comm>(comm), &mine);
    for (Group& g : groups_) {
      int same = MPI_UNEQUAL;
      MPI_Group_compare(g.group, mine, &same);
      if (same == MPI_IDENT) {
        MPI_Group_free(&mine);
        return g;
      }
    }
    groups_.push_back(Group{mine, {}});
    return groups_.back();
  }

  std::size_t capacity_;
  std::list<Group> groups_;  // in the order of first use
  Stats stats_;
};

}  // namespace redist::scalapack

namespace redist::detail::scalapack {

/// Called by MPI_Finalize (attributes of MPI_COMM_SELF are deleted first, while MPI
/// still works).
inline int clear_plan_cache_at_finalize(MPI_Comm, int, void* cache, void*) {
  static_cast<redist::scalapack::PlanCache*>(cache)->clear();
  return MPI_SUCCESS;
}

}  // namespace redist::detail::scalapack

namespace redist::scalapack {

/// The process's cache behind gemr2d (and the ABI library's Cp?gemr2d / p?gemr2d_).
/// Never destroyed; cleared (collectively) at the start of Kokkos::finalize or of
/// MPI_Finalize, whichever comes first. @pre MPI and Kokkos are initialized.
inline PlanCache& default_plan_cache() {
  static PlanCache* cache = new PlanCache(4);  // never destroyed: see clear()
  static bool mpi_hook = false;
  static bool kokkos_hook = false;
  if (!mpi_hook) {
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, detail::scalapack::clear_plan_cache_at_finalize,
                           &key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, cache);
    mpi_hook = true;
  }
  if (!kokkos_hook) {
    // Kokkos runs (and forgets) its hooks in finalize: register again after a restart.
    Kokkos::push_finalize_hook([] {
      kokkos_hook = false;
      cache->clear();
    });
    kokkos_hook = true;
  }
  return *cache;
}

}  // namespace redist::scalapack
