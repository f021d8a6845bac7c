#pragma once
/// @file copy/element_op.hpp
/// The element operation of a pool of copies (copy/strided_copy.hpp): what one copied
/// element writes. A pool holds one, and a runner (copy/run_copies.hpp) hands it to its
/// kernels once per launch, by value: alpha and beta then sit in registers, not in copies
/// that every store through a T* might alias (the compiler reloaded them after each one).
///
///   Assign:        d = v
///   ElementOp<T>:  d = alpha * op(v) + beta * d   (op(v) = conj(v) for conj_transpose;
///                                                  beta = 0 does not read d)
///
/// A runner applies Assign when the pool's operation is plain(), so plain copies stay
/// memory copies (memcpy, streaming stores, in-register transposes). A host runner hands
/// its walkers a FixedElementOp: beta = 0 and the conjugation decided once per launch.

#include <type_traits>

#include <Kokkos_Core.hpp>

#include <redist/transform_op.hpp>

namespace redist {

/// Writes v into d: the operation of a plain copy.
struct Assign {
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& d, const T& v) const {
    d = v;
  }
};

namespace detail {

/// d = alpha * op(v) + beta * d (op(v) = conj(v) when `conj`; d not read when `beta_zero`);
/// d = v for an element type without arithmetic. Complex values as (real, imaginary)
/// pairs: std::complex's operators are host functions, and this runs in device kernels
/// too. [complex.numbers.general] makes a std::complex<R> readable as R[2].
template <class T>
KOKKOS_INLINE_FUNCTION void put_scaled(T& d, const T& v, const T& alpha, const T& beta,
                                       bool beta_zero, bool conj) {
  if constexpr (is_complex<T>::value) {
    using R = typename T::value_type;
    const R* x = reinterpret_cast<const R*>(&v);
    const R* a = reinterpret_cast<const R*>(&alpha);
    R* y = reinterpret_cast<R*>(&d);
    const R xi = conj ? -x[1] : x[1];
    R re = a[0] * x[0] - a[1] * xi;
    R im = a[0] * xi + a[1] * x[0];
    if (!beta_zero) {
      const R* b = reinterpret_cast<const R*>(&beta);
      const R yr = y[0], yi = y[1];
      re += b[0] * yr - b[1] * yi;
      im += b[0] * yi + b[1] * yr;
    }
    y[0] = re;
    y[1] = im;
  } else if constexpr (ScalableElement<T>) {
    d = beta_zero ? T(alpha * v) : T(alpha * v + beta * d);
  } else {
    (void)alpha, (void)beta, (void)beta_zero, (void)conj;
    d = v;
  }
}

}  // namespace detail

/// d = alpha * op(v) + beta * d for one element (see the file comment); for an element
/// type without arithmetic (not ScalableElement) always plain, and a copy.
template <class T>
struct ElementOp {
  T alpha{}, beta{};      ///< read only when scaling (never for a type without arithmetic)
  bool conj = false;      ///< conjugate v (conj_transpose)
  bool beta_zero = true;  ///< beta == 0: d is written, never read
  bool scales = false;    ///< anything beyond d = v (else runners apply Assign)

  ElementOp() = default;
  /// The target side of `t`: its alpha, beta and conjugation.
  explicit ElementOp(const Transform<T>& t) : scales(t.scales()) {
    if constexpr (ScalableElement<T>) {
      alpha = t.alpha;
      beta = t.beta;
      conj = t.op == Op::conj_transpose;
      beta_zero = t.beta == T(0);
    }
  }

  /// Whether d = v (Assign) does the same.
  bool plain() const { return !scales; }

  KOKKOS_INLINE_FUNCTION void operator()(T& d, const T& v) const {
    detail::put_scaled(d, v, alpha, beta, beta_zero, conj);
  }
};

namespace detail {

/// ElementOp<T> with beta == 0 and the conjugation fixed at compile time, for host loops:
/// no test per element, and a contiguous run of a real type vectorises.
template <class T, bool BetaZero, bool Conj>
struct FixedElementOp {
  T alpha, beta;
  void operator()(T& d, const T& v) const { put_scaled(d, v, alpha, beta, BetaZero, Conj); }
};

/// f(FixedElementOp<T, op.beta_zero, op.conj>{op.alpha, op.beta}): the choice made once,
/// not per element. Real types are never conjugated.
template <class T, class F>
void with_fixed_op(const ElementOp<T>& op, F&& f) {
  const auto fixed = [&]<bool Z>(std::bool_constant<Z>) {
    if constexpr (is_complex<T>::value) {
      if (op.conj) {
        f(FixedElementOp<T, Z, true>{op.alpha, op.beta});
        return;
      }
    }
    f(FixedElementOp<T, Z, false>{op.alpha, op.beta});
  };
  if (op.beta_zero)
    fixed(std::true_type{});
  else
    fixed(std::false_type{});
}

}  // namespace detail

}  // namespace redist
