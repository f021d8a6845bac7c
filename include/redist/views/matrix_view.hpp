#pragma once
/// @file views/matrix_view.hpp
/// MatrixView<T, MemorySpace>: one rank's tiles of any TiledMatrix (or a matrix type
/// with the same members) as the engine binds them: its tiling (views/axis_view.hpp), its
/// storage map (placement.hpp), the start of each of its allocations, and whether its
/// placement always stores a local matrix (stores_local_matrix). The executor wires
/// through views (engine/wired.hpp), so it is compiled once per element type and memory
/// space, not once per pair of matrix types.
///
/// A view refers to its matrix: the matrix must outlive it, its storage must not move.

#include <cstddef>
#include <type_traits>
#include <vector>

#include <redist/index.hpp>
#include <redist/placement.hpp>
#include <redist/views/axis_view.hpp>

namespace redist {

template <class T, class MemorySpace>
class MatrixView {
 public:
  using value_type = T;
  using memory_space = MemorySpace;

  /// Views matrix m (a TiledMatrix of T in MemorySpace). @pre m outlives the view.
  template <class Matrix>
  explicit MatrixView(const Matrix& m)
      : shape_(shape_view(m.layout().shape())),
        storage_(&m.storage()),
        local_matrix_(stores_local_matrix<typename Matrix::placement_type>) {
    static_assert(std::is_same_v<typename Matrix::value_type, T>,
                  "redist: a matrix viewed with another element type");
    static_assert(std::is_same_v<typename Matrix::memory_space, MemorySpace>,
                  "redist: a matrix viewed in another memory space");
    starts_.reserve(m.allocations().size());
    for (const auto& a : m.allocations()) starts_.push_back(a.data());
  }

  /// The matrix's tiling (not transposed).
  const ShapeView& shape() const { return shape_; }
  const StorageMap& storage() const { return *storage_; }
  /// The first element of allocation a. @pre a < storage().allocation_sizes().size().
  T* allocation(index_t a) const { return starts_[static_cast<std::size_t>(a)]; }
  bool has_allocations() const { return !starts_.empty(); }
  /// Whether the matrix's placement always stores one local matrix (a type property, so
  /// every rank knows it of every rank).
  bool placement_stores_local_matrix() const { return local_matrix_; }

 private:
  ShapeView shape_;
  const StorageMap* storage_;
  std::vector<T*> starts_;
  bool local_matrix_;
};

/// The views of a list of matrices, in order.
template <class T, class MemorySpace, class Matrix>
std::vector<MatrixView<T, MemorySpace>> matrix_views(const std::vector<Matrix*>& matrices) {
  std::vector<MatrixView<T, MemorySpace>> views;
  views.reserve(matrices.size());
  for (const Matrix* m : matrices) views.emplace_back(*m);
  return views;
}

}  // namespace redist
