// A user's first program: include the umbrella header and use it.
#include <cstdio>
#include <cstring>
#include <vector>

#include <redist/redist.hpp>
#include <redist/relabel.hpp>  // opt-in; LEMON through the package's dependencies

int main() {
  std::printf("redist %s\n", redist::version_string);
  // The header's version must be the one the package was found with.
  if (std::strstr(redist::version_string, REDIST_EXPECTED_VERSION) == nullptr) {
    std::printf("expected version %s\n", REDIST_EXPECTED_VERSION);
    return 1;
  }
  // Rank 1 holds role 0's data, rank 0 role 1's: the best relabeling swaps them.
  if (redist::best_relabeling({0, 5, 7, 0}, 2) != std::vector<int>{1, 0}) return 1;
  return 0;
}
