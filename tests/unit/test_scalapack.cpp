// ScaLAPACK descriptors as redist layouts: owners agree with ScaLAPACK's INDXG2P and the
// BLACS grid numbering, and bad descriptors name the field.
#include <string>

#include <redist/scalapack.hpp>

#include <doctest/doctest.h>

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
