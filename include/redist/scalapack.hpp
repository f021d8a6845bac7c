#pragma once
/// @file scalapack.hpp
/// ScaLAPACK interop, the umbrella of redist/scalapack/:
///
/// | header                   | what                                                   |
/// |--------------------------|--------------------------------------------------------|
/// | scalapack/descriptor.hpp | Descriptor, Grid, numroc, descriptor_fault             |
/// | scalapack/layout.hpp     | BlacsCyclic, make_layout, local_extents, Matrix, wrap  |
/// | scalapack/plan_cache.hpp | PlanKey, PlanCache, default_plan_cache                 |
/// | scalapack/gemr2d.hpp     | gemr2d, the pxgemr2d-compatible entry point            |
/// | scalapack/transform.hpp  | trmr2d (pxtrmr2d), tran (pxtran, pxtranc),             |
/// |                          | operation_of (the PlanKey::operation of a transform)   |
///
/// The ABI library libredist_scalapack (scalapack_abi/, docs/scalapack.md) exports
/// ScaLAPACK's own Cp?gemr2d, p?gemr2d_, Cp?trmr2d and p?trmr2d_ on top of these.

#include <redist/scalapack/descriptor.hpp>
#include <redist/scalapack/gemr2d.hpp>
#include <redist/scalapack/layout.hpp>
#include <redist/scalapack/plan_cache.hpp>
#include <redist/scalapack/transform.hpp>
