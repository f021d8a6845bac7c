#pragma once
// The matrices' values (every run; --verify checks them): distinct per element and exact in
// every type, and the target's values before the move, unlike any of them.
#include <complex>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace redist_run {

template <class T>
struct Values;
template <>
struct Values<double> {
  static double at(std::uint64_t k) {
    return static_cast<double>(k & ((std::uint64_t{1} << 53) - 1));
  }
  static double sentinel() { return -1.0; }
};
template <>
struct Values<float> {  // distinct for up to 2^24 elements
  static float at(std::uint64_t k) { return static_cast<float>(k & ((1u << 24) - 1)); }
  static float sentinel() { return -1.0f; }
};
template <>
struct Values<int> {  // distinct for up to 2^31 elements
  static int at(std::uint64_t k) { return static_cast<int>(k & 0x7fffffffu); }
  static int sentinel() { return -1; }
};
template <>
struct Values<std::complex<double>> {
  static std::complex<double> at(std::uint64_t k) {
    return {Values<double>::at(k), -Values<double>::at(k >> 53) - 2.0};
  }
  static std::complex<double> sentinel() { return {-1.0, -1.0}; }
};
template <>
struct Values<std::complex<float>> {  // distinct for up to 2^48 elements
  static std::complex<float> at(std::uint64_t k) {
    return {Values<float>::at(k), Values<float>::at(k >> 24)};
  }
  static std::complex<float> sentinel() { return {-1.0f, -1.0f}; }
};

/// The target's value before the move: unlike any source value, so that an
/// element written by mistake, or not written, shows.
template <class T>
T initial_value(std::uint64_t k) {
  if constexpr (std::is_same_v<T, int>)
    return -static_cast<int>(k & 0x3fffffffu) - 2;
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return -Values<T>::at(k) - T(2);
  else
    return T(-Values<typename T::value_type>::at(k) - 2, Values<typename T::value_type>::at(k));
}

template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace redist_run
