// doctest runner for the single-process unit tests: Kokkos lives for the whole run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <Kokkos_Core.hpp>

#include <doctest/doctest.h>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // consumes --kokkos-* arguments
  doctest::Context context(argc, argv);
  return context.run();
}
