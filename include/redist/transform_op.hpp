#pragma once
/// @file transform_op.hpp
/// What a move computes per element: target = alpha * op(source) + beta * target, with
/// op = none, transpose or conj_transpose (as BLAS and ScaLAPACK's pxtran / pxtranc;
/// beta = 0 overwrites without reading the target), in a region or its triangle.
///
/// The vocabulary only: the copy kernels (copy/element_op.hpp) include this header, not
/// the layout planning of a transposed move (transform.hpp).

#include <complex>
#include <concepts>
#include <cstdint>
#include <type_traits>

#include <redist/triangle.hpp>

namespace redist {

/// What is applied to the source region: nothing, its transpose, or its conjugate
/// transpose (the conjugation is the identity for real and integer types).
enum class Op : std::uint8_t { none, transpose, conj_transpose };

/// An element type that alpha and beta can scale: T(0), T(1), products, sums and equality
/// (every arithmetic type and std::complex). A plain move or a transpose needs none of
/// it: any trivially copyable element type moves (a user's record, say).
template <class T>
concept ScalableElement = requires(const T& a, const T& b) {
  T(0);
  T(1);
  { a* b } -> std::convertible_to<T>;
  { a + b } -> std::convertible_to<T>;
  { a == b } -> std::convertible_to<bool>;
};

/// target = alpha * op(source) + beta * target, in the region (or its triangle). The
/// default is a copy.
template <class T>
struct Transform {
  Op op = Op::none;
  T alpha = T(1);
  T beta = T(0);
  /// The part of the target rectangle written (triangle.hpp); the rest is untouched.
  Triangle triangle{};

  bool transposes() const { return op != Op::none; }
  /// Whether the target copies compute anything beyond a plain copy.
  bool scales() const { return !(alpha == T(1)) || !(beta == T(0)) || op == Op::conj_transpose; }
};

namespace detail {
template <class>
inline constexpr bool always_false = false;

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};
}  // namespace detail

/// The transform of an element type without arithmetic (not ScalableElement): op and
/// triangle only. The conjugation is the identity, so op c is op t. Giving it alpha or
/// beta does not compile, with one message naming the requirement.
template <class T>
requires(!ScalableElement<T>) struct Transform<T> {
  Op op = Op::none;
  /// The part of the target rectangle written (triangle.hpp); the rest is untouched.
  Triangle triangle{};

  constexpr Transform() = default;
  constexpr Transform(Op o, Triangle t = {}) : op(o), triangle(t) {}
  template <class A, class... More>
  requires(!std::is_same_v<std::remove_cvref_t<A>, Triangle>) Transform(Op, A&&, More&&...) {
    static_assert(detail::always_false<A>,
                  "redist: Transform's alpha and beta need an element type with T(0), T(1), "
                  "* and + (redist::ScalableElement); a plain move, op t and triangles need "
                  "none");
  }

  bool transposes() const { return op != Op::none; }
  static constexpr bool scales() { return false; }
};

}  // namespace redist
