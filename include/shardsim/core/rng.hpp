#pragma once
// Deterministic random numbers. Every random stream is keyed by (seed, purpose, ids...) so that
// results do not depend on thread count or on the order in which streams are consumed.
#include <cstdint>
#include <initializer_list>

namespace shardsim {

// SplitMix64 finaliser: a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Seed of a sub-stream: mixes the base seed with each key in order.
std::uint64_t stream_seed(std::uint64_t seed, std::initializer_list<std::uint64_t> keys);

// xoshiro256** (Blackman & Vigna), seeded through SplitMix64. Portable: the same sequence on
// every platform, unlike the std:: distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  // Inline: the samplers draw hundreds of millions of these a second.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi);
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n), unbiased; n > 0
  double normal();                       // standard normal (Box–Muller, no cached state)
  double lognormal(double mu, double sigma);

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace shardsim
