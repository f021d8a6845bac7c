// The planning front end's non-template functions (REDIST_COMPILED_INLINE,
// compiled_engine.hpp): compiled once here instead of in every unit of the program.
#include <redist/plan/block_family_definitions.hpp>
#include <redist/plan/part_overlaps_definitions.hpp>
#include <redist/plan/plan_parts_definitions.hpp>
