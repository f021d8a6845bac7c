// Agreement before work (issue 10): ranks that pass different regions, layouts, storage
// kinds, element types or PlanOptions to one Redistributor all throw the same
// agreement_error, naming what differs and which ranks differ, before any transport is set
// up (so with the shared-memory window on or off); the communicator stays usable and the
// next, agreed redistribution is correct.
#include <functional>
#include <string>
#include <vector>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/detail/agreement.hpp>
#include <redist/redist.hpp>

#include <doctest/doctest.h>

#include "mpi_test_support.hpp"

namespace {

using namespace redist;
using namespace redist::test;

/// Runs f (collective); what() of the agreement_error it throws, "" if none, and the
/// name of any other exception (a failure).
template <class F>
std::string agreement_message(F&& f) {
  try {
    f();
  } catch (const agreement_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<other exception> ") + e.what();
  }
  return {};
}

/// "rank 2 differs from ranks 0,1": the last rank is the odd one out (on 2 ranks the tie
/// goes to rank 0).
std::string last_rank_differs(int n) {
  std::vector<int> rest;
  for (int r = 0; r + 1 < n; ++r) rest.push_back(r);
  return detail::rank_list({n - 1}) + " differs from " + detail::rank_list(rest);
}

/// Every rank threw agreement_error with the same message, which names `item` and the ranks
/// (and `extra`, if given); then the communicator works: an all-reduce, and a correct
/// redistribution with every rank agreeing.
void check_disagreement(const std::string& msg, const std::string& item,
                        const std::string& extra = {}) {
  const boost::mpi::communicator world;
  const int n = world.size();
  CAPTURE(world.rank());
  CAPTURE(msg);
  const std::string want = "redist: ranks disagree on " + item + ": " + last_rank_differs(n);
  CHECK(msg.rfind(want, 0) == 0);
  if (!extra.empty()) CHECK(msg.find(extra) != std::string::npos);
  std::string root = msg;
  boost::mpi::broadcast(world, root, 0);
  REDIST_CHECK_ALL_RANKS(root == msg);
  CHECK(boost::mpi::all_reduce(world, 1, std::plus<int>()) == n);
  const Region r{{13, 9}, {2, 1}, {0, 3}};
  const RunReport rep = check_redistribution<double>(
      world, Layout{uniform(20, 15, 4, 3), BlockCyclic(1, n)}, PackedTiles<>{},
      Layout{uniform(16, 14, 5, 5), BlockCyclic(n, 1)}, TilePerAllocation<>{}, r);
  REDIST_CHECK_ALL_RANKS(rep.ok);
  CHECK(rep.checked == 16 * 14);
}

/// Runs `body` with the shared-memory window off, then on (only off where every message
/// must go point to point). Its cases are plain blocks, not SUBCASEs: every rank runs all
/// of them, in order, in one pass.
template <class F>
void with_window_on_and_off(F&& body) {
  for (const char* window : window_settings()) {
    CAPTURE(window);
    const ScopedEnv env("REDIST_SHARED_WINDOW", window);
    body();
  }
}

using Matrix =
    TiledMatrix<double, Layout<Tiling<UniformAxis<>, UniformAxis<>>, BlockCyclic>, PackedTiles<>>;

}  // namespace

TEST_SUITE("agreement") {
  TEST_CASE("agreement: ranks passing different regions all throw the same error") {
    const boost::mpi::communicator world;
    const int n = world.size(), me = world.rank();
    if (n < 2) return;  // one rank always agrees with itself
    const bool odd = me == n - 1;
    Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
    Matrix b(Layout{uniform(30, 30, 7, 3), BlockCyclic(n, 1)}, {}, me);
    with_window_on_and_off([&] {
      {
        INFO("source origin shifted on one rank");
        const Region r = odd ? Region{{10, 10}, {1, 0}, {0, 0}} : Region{{10, 10}, {0, 0}, {0, 0}};
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the region");
      }
      {
        INFO("target origin shifted on one rank");
        const Region r = odd ? Region{{10, 10}, {0, 0}, {0, 5}} : Region{{10, 10}, {0, 0}, {0, 0}};
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the region");
      }
      {
        INFO("longer region on one rank");
        const Region r = odd ? Region{{12, 10}, {0, 0}, {0, 0}} : Region{{10, 10}, {0, 0}, {0, 0}};
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the region");
      }
      {
        INFO("empty region on one rank only");
        const Region r = odd ? Region{{0, 10}, {0, 0}, {0, 0}} : Region{{10, 10}, {0, 0}, {0, 0}};
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the region");
      }
      {
        INFO("the same region everywhere is fine, empty included");
        for (const Region r : {Region{{10, 10}, {1, 2}, {3, 4}}, Region{{0, 10}, {0, 0}, {0, 0}}})
          CHECK(agreement_message([&] { Redistributor R(a, b, world, r); }).empty());
      }
    });
  }

  TEST_CASE("agreement: ranks passing different layouts all throw the same error") {
    const boost::mpi::communicator world;
    const int n = world.size(), me = world.rank();
    if (n < 2) return;
    const bool odd = me == n - 1;
    const Region r{{20, 20}, {0, 0}, {0, 0}};
    with_window_on_and_off([&] {
      {
        INFO("target tiling");
        Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
        Matrix b(Layout{uniform(30, 30, odd ? 6 : 5, 5), BlockCyclic(n, 1)}, {}, me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the target tiling");
      }
      {
        INFO("target extent");
        Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
        Matrix b(Layout{uniform(30, odd ? 31 : 30, 5, 5), BlockCyclic(n, 1)}, {}, me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the target tiling");
      }
      {
        INFO("target distribution");
        Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
        Matrix b(Layout{uniform(30, 30, 5, 5), odd ? BlockCyclic(1, n) : BlockCyclic(n, 1)}, {},
                 me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the target distribution");
      }
      {
        INFO("target distribution: super-tiles only");
        Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
        Matrix b(Layout{uniform(30, 30, 5, 5), BlockCyclic(n, 1, odd ? 2 : 1, 1)}, {}, me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the target distribution");
      }
      {
        INFO("source tiling and distribution: the first is named, the other listed");
        Matrix a(
            Layout{uniform(30, 30, odd ? 3 : 4, 4), odd ? BlockCyclic(n, 1) : BlockCyclic(1, n)},
            {}, me);
        Matrix b(Layout{uniform(30, 30, 5, 5), BlockCyclic(n, 1)}, {}, me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the source tiling", "(also differ: the source distribution)");
      }
      {
        INFO("a random target distribution with another seed");
        using L = Layout<Tiling<UniformAxis<>, UniformAxis<>>, RandomDistribution>;
        Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
        TiledMatrix<double, L, PackedTiles<>> b(
            L{uniform(30, 30, 3, 3), RandomDistribution(n, odd ? 8 : 7)}, {}, me);
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r); }),
                           "the target distribution");
      }
    });
  }

  TEST_CASE("agreement: ranks passing different PlanOptions all throw the same error") {
    const boost::mpi::communicator world;
    const int n = world.size(), me = world.rank();
    if (n < 2) return;
    const bool odd = me == n - 1;
    Matrix a(Layout{uniform(30, 30, 4, 4), BlockCyclic(1, n)}, {}, me);
    Matrix b(Layout{uniform(30, 30, 7, 3), BlockCyclic(n, 1)}, {}, me);
    const Region r{{25, 25}, {1, 1}, {2, 2}};
    with_window_on_and_off([&] {
      {
        INFO("batch");
        PlanOptions o;
        o.batch = odd ? 2 : 0;
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r, o); }),
                           "PlanOptions::batch", "(PlanOptions::batch = 2 on rank");
      }
      {
        INFO("max_buffer_bytes");
        PlanOptions o;
        o.max_buffer_bytes = odd ? 4096 : 1 << 20;
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r, o); }),
                           "PlanOptions::max_buffer_bytes",
                           "(PlanOptions::max_buffer_bytes = 4096 on rank");
      }
      {
        INFO("max_message_bytes");
        ExecutionOptions x;
        x.max_message_bytes = odd ? 64 : 1000;
        check_disagreement(agreement_message([&] { Redistributor R(a, b, world, r, {}, x); }),
                           "ExecutionOptions::max_message_bytes",
                           "(ExecutionOptions::max_message_bytes = 64 on rank");
      }
    });
  }

  TEST_CASE("agreement: ranks with different element types or storage kinds all throw") {
    const boost::mpi::communicator world;
    const int n = world.size(), me = world.rank();
    if (n < 2) return;
    const bool odd = me == n - 1;
    const Layout src{uniform(12, 12, 4, 4), BlockCyclic(1, n)};
    const Layout dst{uniform(12, 12, 3, 3), BlockCyclic(n, 1)};
    // Each branch instantiates another Redistributor: what the caller of a templated
    // program may do by mistake.
    const auto run = [&](auto value, auto src_placement) {
      using T = decltype(value);
      TiledMatrix<T, decltype(src), decltype(src_placement)> a(src, src_placement, me);
      TiledMatrix<T, decltype(dst), PackedTiles<>> b(dst, {}, me);
      return agreement_message([&] { Redistributor R(a, b, world); });
    };
    with_window_on_and_off([&] {
      {
        INFO("element size");
        const std::string msg =
            odd ? run(float{}, PackedTiles<>{}) : run(double{}, PackedTiles<>{});
        check_disagreement(msg, "the element size",
                           "(the element size = 4 on rank " + std::to_string(n - 1));
      }
      {
        INFO("element type of the same size");
        const std::string msg = odd ? run(int{}, PackedTiles<>{}) : run(float{}, PackedTiles<>{});
        check_disagreement(msg, "the element type");
      }
      {
        INFO("source storage kind");
        const std::string msg =
            odd ? run(double{}, TilePerAllocation<>{}) : run(double{}, PackedTiles<>{});
        check_disagreement(msg, "the source storage");
      }
    });
  }

  TEST_CASE("agreement: detail::agree on its own") {
    const boost::mpi::communicator world;
    const int n = world.size(), me = world.rank();
    // Same items everywhere: nothing thrown, at any rank count.
    CHECK_NOTHROW(detail::agree(world, {{"a", 1}, value_item("b", -3)}));
    CHECK_NOTHROW(detail::agree(world, {}));
    if (n < 2) return;
    const bool odd = me == n - 1;
    // Item lists of different lengths are caught before comparing values (no mismatched
    // collective).
    std::vector<AgreementItem> items{{"a", 1}};
    if (odd) items.push_back({"b", 2});
    check_disagreement(agreement_message([&] { detail::agree(world, items); }), "what to agree on");
    // Several items differ: the first is named with its ranks, the others listed.
    check_disagreement(
        agreement_message([&] {
          detail::agree(world, {{"x", 1}, {"y", odd ? 2u : 3u}, {"z", odd ? 4u : 5u}});
        }),
        "y", "(also differ: z)");
  }
}
