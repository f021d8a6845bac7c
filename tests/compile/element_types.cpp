// Element types: what moves and what scales (transform_op.hpp's ScalableElement), as static
// checks. A record without arithmetic has a Transform of op and triangle only.
#include <complex>
#include <cstdint>

#include <redist/transform.hpp>

namespace {

struct Particle {
  float x, y, z;
  std::int32_t id;
};

static_assert(redist::ScalableElement<double>);
static_assert(redist::ScalableElement<float>);
static_assert(redist::ScalableElement<int>);
static_assert(redist::ScalableElement<std::complex<float>>);
static_assert(redist::ScalableElement<std::complex<double>>);
static_assert(!redist::ScalableElement<Particle>);

constexpr redist::Transform<Particle> transposed{redist::Op::transpose,
                                                 redist::Triangle{redist::Uplo::lower}};
static_assert(transposed.op == redist::Op::transpose);
static_assert(!redist::Transform<Particle>::scales());
template <class X>
concept has_alpha = requires(X x) {
  x.alpha;
};
static_assert(has_alpha<redist::Transform<double>>);
static_assert(!has_alpha<redist::Transform<Particle>>);

}  // namespace
