// EXPECT: alpha and beta need an element type with T\(0\), T\(1\), \* and \+
// A record moves, transposed or masked, but cannot be scaled: alpha and beta on a type
// without arithmetic stop at compile time, with one message naming the requirement.
#include <cstdint>

#include <redist/transform.hpp>

struct Particle {
  float x, y, z;
  std::int32_t id;
};

int main() {
  const redist::Transform<Particle> t{redist::Op::none, Particle{2, 2, 2, 0}, Particle{}};
  return static_cast<int>(t.op);
}
