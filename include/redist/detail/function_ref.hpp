#pragma once
/// @file detail/function_ref.hpp
/// FunctionRef<R(A...)>: a non-owning reference to a callable, two words, called through
/// one function pointer. What the run-time views (views/) hand a visitor through, so
/// that code compiled once can call back into code of any type.

#include <memory>
#include <type_traits>
#include <utility>

namespace redist::detail {

template <class Signature>
class FunctionRef;

template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  /// Refers to f, which must outlive every call.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, A...>)
      FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): a parameter type, as std::function
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...);
        }) {}

  R operator()(A... a) const { return call_(object_, std::forward<A>(a)...); }

 private:
  void* object_;
  R (*call_)(void*, A...);
};

}  // namespace redist::detail
