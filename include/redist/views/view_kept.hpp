#pragma once
/// @file views/view_kept.hpp
/// detail::view_kept: how the views (views/) take what a layout gives them. A view points at
/// what it views; where an accessor returns by value, the view keeps the copy alive.

#include <memory>
#include <type_traits>
#include <utility>

namespace redist::detail {

/// A view of what an expression gives: of the object itself when it is an lvalue (a
/// layout's shape, axes or distribution), else of a copy the view keeps.
template <class View, class X>
View view_kept(X&& x) {
  if constexpr (std::is_lvalue_reference_v<X>) {
    return View(x);
  } else {
    auto kept = std::make_shared<const std::remove_cvref_t<X>>(std::forward<X>(x));
    return View(*kept, kept);
  }
}

}  // namespace redist::detail
