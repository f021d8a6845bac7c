// ScaLAPACK descriptors as redist layouts: owners agree with ScaLAPACK's INDXG2P and the
// BLACS grid numbering, and bad descriptors name the field.
#include <string>
#include <vector>

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
    //  dtype ctxt M   N   MB NB  RSRC CSRC LLD
    {{1,    0,   -1, 10, 2, 2,  0,   0,   10}, "M_ must not be negative: desc.m = -1"},
    {{1,    0,   10, -3, 2, 2,  0,   0,   10}, "N_ must not be negative: desc.n = -3"},
    {{1,    0,   10, 10, 0, 2,  0,   0,   10}, "MB_ must be positive: desc.mb = 0"},
    {{1,    0,   10, 10, 2, -1, 0,   0,   10}, "NB_ must be positive: desc.nb = -1"},
    {{1,    0,   10, 10, 2, 2,  2,   0,   10}, "RSRC_ must be in 0..1: desc.rsrc = 2"},
    {{1,    0,   10, 10, 2, 2,  0,   -1,  10}, "CSRC_ must be in 0..1: desc.csrc = -1"},
    // DTYPE_ is never read: the first entry p?gemr2d refuses is still named.
    {{7,    0,   10, 10, 0, 2,  0,   0,   10}, "MB_ must be positive: desc.mb = 0"},
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

TEST_CASE("scalapack: DTYPE_ is never read, as by ScaLAPACK's p?gemr2d") {
  // ScaLAPACK's REDIST testers leave DTYPE_ unset on one process: any value is a descriptor.
  const scalapack::Grid g{2, 3, true};
  const scalapack::Descriptor dense{1, 0, 50, 37, 4, 6, 1, 2, 50};
  for (const index_t dtype : {index_t{0}, index_t{2}, index_t{-1}, index_t{123456789}}) {
    CAPTURE(dtype);
    scalapack::Descriptor d = dense;
    d.dtype = dtype;
    CHECK(!scalapack::descriptor_fault(d, g));
    const auto layout = scalapack::make_layout(d, g), want = scalapack::make_layout(dense, g);
    CHECK(layout.shape() == want.shape());
    CHECK(layout.distribution() == want.distribution());
    for (int rank = 0; rank < 6; ++rank)
      CHECK(scalapack::local_extents(d, g, rank) == scalapack::local_extents(dense, g, rank));
    std::vector<double> local(static_cast<std::size_t>(50 * 37), 0.0);
    CHECK(scalapack::wrap(local.data(), d, g, 4).storage().element_count() ==
          scalapack::wrap(local.data(), dense, g, 4).storage().element_count());
    // The plan cache's key ignores it too: the same plan serves every DTYPE_.
    CHECK(scalapack::PlanKey::of<double>(d, g, dense, g, Region{{5, 5}, {0, 0}, {0, 0}}) ==
          scalapack::PlanKey::of<double>(dense, g, d, g, Region{{5, 5}, {0, 0}, {0, 0}}));
  }
}

TEST_CASE("scalapack::descriptor_fault names the first entry p?gemr2d refuses") {
  const scalapack::Grid g{2, 3, false};
  CHECK(!scalapack::descriptor_fault({1, 0, 0, 0, 1, 1, 1, 2, 1}, g));  // empty, last process
  // M_ < 0 and MB_ = 0 at once: M_ comes first in the descriptor.
  const auto f = scalapack::descriptor_fault({1, 0, -1, 5, 0, 1, 0, 0, 1}, g);
  REQUIRE(f);
  CHECK(std::string(f->entry) == "M");
  CHECK(std::string(f->member) == "m");
  CHECK(f->value == -1);
  const auto c = scalapack::descriptor_fault({1, 0, 5, 5, 1, 1, 0, 3, 1}, g);
  REQUIRE(c);
  CHECK(std::string(c->entry) == "CSRC");
  CHECK(c->rule == "must be in 0..2");
}

TEST_CASE("scalapack::numroc: the example of its comment, and its sum over processes") {
  static_assert(scalapack::numroc(10, 3, 0, 1, 2) == 4);
  static_assert(scalapack::numroc(10, 3, 1, 1, 2) == 6);
  for (index_t n = 0; n <= 30; ++n)
    for (index_t nb = 1; nb <= 7; ++nb)
      for (int procs = 1; procs <= 4; ++procs)
        for (index_t src = 0; src < procs; ++src) {
          index_t sum = 0;
          for (int p = 0; p < procs; ++p) sum += scalapack::numroc(n, nb, p, src, procs);
          REQUIRE(sum == n);
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
