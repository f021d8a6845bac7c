#pragma once
// Checks shared by the plan tests: two plans' statistics (plan/plan_header.hpp) agree
// field by field, so that a failure names the field.
#include <redist/plan/plan_header.hpp>

#include <doctest/doctest.h>

namespace redist::test {

inline void check_stats(const PlanStats& got, const PlanStats& want) {
  CHECK(got.elements_sent == want.elements_sent);
  CHECK(got.elements_received == want.elements_received);
  CHECK(got.elements_local == want.elements_local);
  CHECK(got.messages_sent == want.messages_sent);
  CHECK(got.messages_received == want.messages_received);
  CHECK(got.segments_sent == want.segments_sent);
  CHECK(got.segments_received == want.segments_received);
  CHECK(got.segments_local == want.segments_local);
  CHECK(got.dst_tiles == want.dst_tiles);
  CHECK(got.categories == want.categories);
  CHECK(got.buffer_elements == want.buffer_elements);
}

}  // namespace redist::test
