// ScaLAPACK descriptors as redist layouts: owners agree with ScaLAPACK's INDXG2P and the
// BLACS grid numbering, and bad descriptors name the field.
#include <string>

#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

#include "unit_test_support.hpp"

using namespace redist;

namespace {
// ScaLAPACK's INDXG2P (0-based): the process coordinate holding global index g.
int indxg2p(index_t g, index_t nb, index_t src, int nprocs) {
  return static_cast<int>((src + g / nb) % nprocs);
}
}  // namespace

TEST_CASE("scalapack::make_layout owners follow INDXG2P and the BLACS grid order") {
  // clang-format off
  struct Case { scalapack::Descriptor d; scalapack::Grid g; };
  const Case cases[] = {
    //  dtype ctxt  M    N   MB  NB  RSRC CSRC LLD     P  Q  column-major
    {{1,    0,    50,  37,  4,  6,  1,   2,   50},   {3, 4, false}},
    {{1,    0,    50,  37,  4,  6,  1,   2,   50},   {3, 4, true}},
    {{1,    0,    9,   100, 9,  1,  0,   0,   9},    {1, 5, true}},
    {{1,    0,    64,  64,  64, 64, 0,   0,   64},   {2, 2, false}},
  };
  // clang-format on
  for (const Case& c : cases) {
    const auto layout = scalapack::make_layout(c.d, c.g);
    for (index_t i = 0; i < c.d.m; ++i)
      for (index_t j = 0; j < c.d.n; ++j) {
        const int p = indxg2p(i, c.d.mb, c.d.rsrc, c.g.nprow);
        const int q = indxg2p(j, c.d.nb, c.d.csrc, c.g.npcol);
        const int rank = c.g.column_major ? q * c.g.nprow + p : p * c.g.npcol + q;
        REQUIRE(layout.owner(tile_of(layout.shape(), ElementIndex{i, j})) == rank);
      }
  }
}

TEST_CASE("scalapack::make_layout names the bad descriptor field") {
  const scalapack::Grid g{2, 2, false};
  // clang-format off
  struct Case { scalapack::Descriptor d; const char* names; };
  const Case cases[] = {
    {{2, 0, 10, 10, 2, 2, 0, 0, 10},  "desc.dtype = 2"},
    {{1, 0, 10, 10, 0, 2, 0, 0, 10},  "desc.mb = 0"},
    {{1, 0, 10, 10, 2, -1, 0, 0, 10}, "desc.nb = -1"},
    {{1, 0, 10, 10, 2, 2, 2, 0, 10},  "desc.rsrc = 2"},
    {{1, 0, 10, 10, 2, 2, 0, -1, 10}, "desc.csrc = -1"},
  };
  // clang-format on
  for (const Case& c : cases) {
    CAPTURE(c.names);
    try {
      (void)scalapack::make_layout(c.d, g);
      FAIL("no exception");
    } catch (const invalid_argument& e) {
      CHECK(std::string(e.what()).find(c.names) != std::string::npos);
    }
  }
}

TEST_CASE("scalapack::wrap refuses a null array where elements are stored") {
  const scalapack::Descriptor d{1, 0, 10, 10, 2, 2, 0, 0, 10};
  CHECK_THROWS_AS((void)scalapack::wrap<double>(nullptr, d, {1, 1, false}, 0), storage_error);
}

TEST_CASE("scalapack::wrap accepts a null array on a rank with LOCr = 0 or LOCc = 0") {
  // 4 rows in blocks of 4 over 2 process rows: grid row 1 owns no block (LOCr = 0), yet
  // LOCc = 10 and LLD >= 1. ScaLAPACK's redistribution drivers pass null there.
  const scalapack::Descriptor d{1, 0, 4, 10, 4, 2, 0, 0, 1};
  const scalapack::Grid g{2, 1, false};
  const auto m = scalapack::wrap<double>(nullptr, d, g, 1);
  CHECK(m.storage().tiles().empty());
  CHECK(m.storage().element_count() == 0);
  // Columns likewise: 2 columns in one block over 2 process columns, rank 1 has LOCc = 0.
  const scalapack::Descriptor e{1, 0, 6, 2, 3, 2, 0, 0, 6};
  CHECK(scalapack::wrap<double>(nullptr, e, {1, 2, false}, 1).storage().element_count() == 0);
  // Rank 0 stores elements: null is still refused there, naming what it needs.
  scalapack::Descriptor d0 = d;
  d0.lld = 4;  // LLD is per rank: >= LOCr = 4 on rank 0
  const std::string msg = redist::test::message_of<storage_error>(
      [&] { (void)scalapack::wrap<double>(nullptr, d0, g, 0); });
  CHECK(msg ==
        "redist: null local array for a rank that stores elements: local elements "
        "needed = 40");
}
