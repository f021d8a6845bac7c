#pragma once
// MoveEngine for element type T: a Redistributor between the matrix types of the two
// storage kinds (tile and ScaLAPACK, the types redist-run builds), wrapping the caller's
// arrays in place. Included by the per-type units only (typed_engine.cpp.in).
#include <cmath>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>

#include <redist/collective/collectively.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/redistributor.hpp>
#include <redist/task_graph.hpp>
#include <redist/tiled_matrix.hpp>

#include "move_engine.hpp"
#include "stand_in_storage.hpp"

namespace redist_python {

template <class T>
using TileMatrix = TiledMatrix<T, TileMatrixLayout, SpecPlacement>;
template <class T>
using GridMatrix = TiledMatrix<T, GridMatrixLayout, ScalapackColumnMajor<>>;

namespace detail {

/// alpha or beta as T. @throws invalid_argument naming `what` if the value does not fit T.
template <class T>
T element_value(std::complex<double> v, const char* what) {
  const auto refuse = [&](const std::string& why) {
    throw redist::invalid_argument("redist: " + std::string(what) + " " + why + ", got (" +
                                   std::to_string(v.real()) + ", " + std::to_string(v.imag()) +
                                   ")");
  };
  if constexpr (redist::detail::is_complex<T>::value) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    if (v.imag() != 0) refuse("must be real for a real dtype");
    if constexpr (std::is_integral_v<T>) {
      const double x = v.real();
      if (x != std::trunc(x) || std::abs(x) > 1 << 30)
        refuse("must be an integer for an integer dtype");
    }
    return static_cast<T>(v.real());
  }
}

/// The matrix of layout `l` over `s` (the caller's arrays or stand-in storage), as the
/// placement of its storage kind wants it: ScaLAPACK's leading dimension from the array.
template <class M>
std::unique_ptr<M> wrap(const typename M::layout_type& l, const SpecPlacement& tiles,
                        const LocalStorage& s, int rank) {
  using T = typename M::value_type;
  std::vector<typename M::allocation_view> views;
  for (std::size_t k = 0; k < s.data.size(); ++k)
    views.emplace_back(static_cast<T*>(s.data[k]), static_cast<std::size_t>(s.elements[k]));
  if constexpr (std::is_same_v<typename M::placement_type, SpecPlacement>)
    return std::make_unique<M>(l, tiles, rank, std::move(views));
  else
    return std::make_unique<M>(l, ScalapackColumnMajor<>{s.ld}, rank, std::move(views));
}

template <class M>
typename M::layout_type layout_of(const PyLayout& l, int comm_size) {
  if constexpr (std::is_same_v<typename M::layout_type, GridMatrixLayout>)
    return l.grid_layout();
  else
    return l.tile_layout(comm_size);
}

}  // namespace detail

template <class Src, class Dst>
class TypedEngine final : public MoveEngine {
  using T = typename Src::value_type;
  using R = Redistributor<Src, Dst>;

 public:
  explicit TypedEngine(const MoveRequest& q)
      : src_tiles_(q.src->tile_placement()), dst_tiles_(q.dst->tile_placement()) {
    const int me = q.comm.rank();
    Transform<T> transform;
    redist::detail::collectively(q.comm, [&] {
      src_layout_.emplace(detail::layout_of<Src>(*q.src, q.comm.size()));
      dst_layout_.emplace(detail::layout_of<Dst>(*q.dst, q.comm.size()));
      transform = Transform<T>{q.op, detail::element_value<T>(q.alpha, "alpha"),
                               detail::element_value<T>(q.beta, "beta"), q.triangle};
      src_stand_in_ = StandInStorage(q.src->local(me).allocations, sizeof(T));
      dst_stand_in_ = StandInStorage(q.dst->local(me).allocations, sizeof(T));
      src_ = detail::wrap<Src>(*src_layout_, src_tiles_, src_stand_in_.storage(), me);
      dst_ = detail::wrap<Dst>(*dst_layout_, dst_tiles_, dst_stand_in_.storage(), me);
    });
    r_ = std::make_unique<R>(*src_, *dst_, q.comm, q.region, transform, q.plan, q.execution);
    set_up_ = r_->set_up_times();
    remember(this);
  }
  ~TypedEngine() override {
    forget(this);
    TypedEngine::release();
  }

  const boost::mpi::communicator& communicator() const override { return live().communicator(); }
  bool bound_to(const LocalStorage& a, const LocalStorage& b) const override {
    return bound_ && a == a_ && b == b_;
  }
  void bind(const LocalStorage& a, const LocalStorage& b) override {
    const int me = live().communicator().rank();
    std::unique_ptr<Src> src;
    std::unique_ptr<Dst> dst;
    redist::detail::collectively(r_->communicator(), [&] {
      src = detail::wrap<Src>(*src_layout_, src_tiles_, a, me);
      dst = detail::wrap<Dst>(*dst_layout_, dst_tiles_, b, me);
    });
    r_->rebind(*src, *dst);  // collective; unchanged when it throws
    src_ = std::move(src);
    dst_ = std::move(dst);
    src_stand_in_ = {};
    dst_stand_in_ = {};
    a_ = a, b_ = b, bound_ = true;
    ++bindings_;
  }
  void redistribute() override { live().redistribute(); }
  void start() override { live().start(); }
  bool test() override { return live().test(); }
  void wait() override { live().wait(); }
  bool released() const override { return !r_; }

  MoveReport report() const override {
    const R& r = live();
    MoveReport m;
    m.stats = r.plan().stats;
    m.batch = r.plan().batch;
    m.batches = r.plan().batches;
    m.buffer_bytes = r.buffer_bytes();
    m.set_up = set_up_;
    if (bindings_ > 0) m.bind = r.set_up_times();
    m.bindings = bindings_;
    for (const Transport how : all_transports) {
      if (const index_t n = r.messages(how).first; n > 0)
        m.sent_by_transport.emplace_back(to_string(how), n);
    }
    return m;
  }

  // The Redistributor before the matrices it is bound to, they before their storage.
  void release() override {
    r_.reset();
    src_.reset();
    dst_.reset();
    src_stand_in_ = {};
    dst_stand_in_ = {};
    bound_ = false;
  }

 private:
  const R& live() const {
    if (!r_)
      throw redist::error("redist: this Redistributor was closed (close(), or MPI was finalized)");
    return *r_;
  }
  R& live() { return const_cast<R&>(std::as_const(*this).live()); }

  // Made collectively (a layout that cannot be made throws on every rank).
  std::optional<typename Src::layout_type> src_layout_;
  std::optional<typename Dst::layout_type> dst_layout_;
  SpecPlacement src_tiles_, dst_tiles_;
  StandInStorage src_stand_in_, dst_stand_in_;
  std::unique_ptr<Src> src_;
  std::unique_ptr<Dst> dst_;
  std::unique_ptr<R> r_;
  SetUpTimes set_up_;
  LocalStorage a_, b_;
  bool bound_ = false;
  index_t bindings_ = 0;
};

template <class T>
std::unique_ptr<MoveEngine> make_engine(const MoveRequest& q) {
  const bool grid_src = q.src->scalapack_storage(), grid_dst = q.dst->scalapack_storage();
  if (grid_src && grid_dst) return std::make_unique<TypedEngine<GridMatrix<T>, GridMatrix<T>>>(q);
  if (grid_src) return std::make_unique<TypedEngine<GridMatrix<T>, TileMatrix<T>>>(q);
  if (grid_dst) return std::make_unique<TypedEngine<TileMatrix<T>, GridMatrix<T>>>(q);
  return std::make_unique<TypedEngine<TileMatrix<T>, TileMatrix<T>>>(q);
}

}  // namespace redist_python
