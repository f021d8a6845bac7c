// A user's first program: include the umbrella header and use it.
#include <cstdio>
#include <cstring>
#include <vector>

#include <redist/redist.hpp>
#include <redist/relabel.hpp>  // opt-in; LEMON through the package's dependencies

#if defined(REDIST_CONSUMER_EXPECTS_ENGINE) && !defined(REDIST_COMPILED_ENGINE)
#error "redist::engine did not define REDIST_COMPILED_ENGINE"
#endif

int main() {
  std::printf("redist %s\n", redist::version_string);
  // The header's version must be the one the package was found with.
  if (std::strstr(redist::version_string, REDIST_EXPECTED_VERSION) == nullptr) {
    std::printf("expected version %s\n", REDIST_EXPECTED_VERSION);
    return 1;
  }
  // A plan (pure, no MPI): with redist::engine the planner is the library's, and this
  // links only if the library holds it.
  using namespace redist;
  const Layout src{Tiling{UniformAxis<>(100, 10), UniformAxis<>(100, 10)}, BlockCyclic(1, 2)};
  const Layout dst{Tiling{UniformAxis<>(100, 7), UniformAxis<>(100, 7)}, BlockCyclic(2, 1)};
  const Plan plan = make_plan(src, dst, Region::whole({100, 100}), 0, 2);
  const index_t moved = plan.stats.elements_sent + plan.stats.elements_local;
  std::printf("rank 0 of 2 sends or keeps %lld of its 5000 elements%s\n",
              static_cast<long long>(moved),
#if defined(REDIST_COMPILED_ENGINE)
              " (planner from redist::engine)"
#else
              ""
#endif
  );
  if (moved != 5000) return 1;
  // Rank 1 holds role 0's data, rank 0 role 1's: the best relabeling swaps them.
  if (redist::best_relabeling({0, 5, 7, 0}, 2) != std::vector<int>{1, 0}) return 1;
  return 0;
}
