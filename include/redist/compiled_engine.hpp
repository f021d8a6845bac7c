#pragma once
/// @file compiled_engine.hpp
/// The compiled engine (opt-in, docs/build-speed.md): the planner on layout views and the
/// executor of every element type below in host memory, compiled once into the
/// `redist::engine` library (compiled/). A program that links it is compiled with
/// REDIST_COMPILED_ENGINE (the target says so), and the headers then declare those
/// instantiations `extern` where they are defined (executor.hpp, plan.hpp,
/// plan/triangle_mask.hpp). The program's own units compile none of them.
/// Without the macro, redist stays header-only and every unit compiles what it uses.
///
/// Element types with their own instantiations: float, double, std::complex<float>,
/// std::complex<double>, int. Others, and device memory, are compiled where they are used,
/// as header-only.

#include <complex>  // for the list's element types

/// The planning front end's non-template functions that every program would otherwise
/// compile (merge_parts, append_message, find_part_overlap): declared REDIST_COMPILED_INLINE
/// in their headers and defined in the matching *_definitions.hpp, which the header includes
/// when header-only (then they are inline) and redist::engine compiles once otherwise
/// (compiled/front.cpp), as {fmt}'s header-only and compiled modes do.
#if defined(REDIST_COMPILED_ENGINE)
#define REDIST_COMPILED_INLINE
#else
#define REDIST_COMPILED_INLINE inline
#endif

/// Calls X(T) for every element type the compiled engine holds.
#define REDIST_COMPILED_ELEMENT_TYPES(X) \
  X(float) X(double) X(std::complex<float>) X(std::complex<double>) X(int)

/// The engine's instantiations for element type T in host memory: declared with
/// `prefix` = extern (executor.hpp), defined with an empty one (compiled/engine.cpp.in).
/// Inside namespace redist.
#define REDIST_ENGINE_INSTANCES(prefix, T)                           \
  prefix template class engine::Wired<T, Kokkos::HostSpace>;         \
  prefix template class engine::ExecutionLoop<T, Kokkos::HostSpace>; \
  prefix template class Executor<T, Kokkos::HostSpace>;
