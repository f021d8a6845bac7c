// A user's first program: include the umbrella header and use it.
#include <cstdio>
#include <cstring>

#include <redist/redist.hpp>

int main() {
  std::printf("redist %s\n", redist::version_string);
  // The header's version must be the one the package was found with.
  if (std::strstr(redist::version_string, REDIST_EXPECTED_VERSION) == nullptr) {
    std::printf("expected version %s\n", REDIST_EXPECTED_VERSION);
    return 1;
  }
  return 0;
}
