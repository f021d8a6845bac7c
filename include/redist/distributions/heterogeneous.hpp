#pragma once
/// @file distributions/heterogeneous.hpp
/// Heterogeneous distributions from per-rank powers (Nesi et al. 2023, sections 3 and 4.4):
/// nodes of different speeds get tiles in proportion to their relative power, spread
/// smoothly so that every prefix of tile rows (columns) is balanced, as the factorization
/// eats the matrix from the top left.
///
/// | type              | owner of tile (m, n)                       | models                |
/// |-------------------|--------------------------------------------|-----------------------|
/// | PowerSequence     | (one axis) position k -> part seq(k)       | (building block)      |
/// | Heterogeneous1D   | rows: seq(m); columns: seq(n) (Diodon's 1D | Distribution, Grid-,  |
/// |                   | heterogeneous distribution)                | Bounded-, Enumerates- |
/// | HeterogeneousGrid | q = cols(n), p = rows_q(m), rank_of(p, q)  | Distribution,         |
/// |                   | (1D-1D, Nesi et al. 2023, Fig. 3)          | Bounded-, Enumerates- |
///
/// Both deal each axis by PowerSequence (distributions/power_sequence.hpp: the smooth rule,
/// the constrained tail, their guarantees); each is in its own header
/// (distributions/heterogeneous_1d.hpp, distributions/heterogeneous_grid.hpp), which this
/// one includes. Memory: HeterogeneousGrid holds one column sequence and one row sequence
/// per grid column: O(P Q + Q * tile rows + tile columns).

#include <redist/distributions/heterogeneous_1d.hpp>
#include <redist/distributions/heterogeneous_grid.hpp>
#include <redist/distributions/power_sequence.hpp>
