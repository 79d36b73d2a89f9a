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
  std::uint64_t next_u64();
  double uniform01();  // in [0, 1), 53 random bits
  double uniform(double lo, double hi);
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n), unbiased; n > 0
  double normal();                       // standard normal (Box–Muller, no cached state)
  double lognormal(double mu, double sigma);

 private:
  std::uint64_t s_[4];
};

}  // namespace shardsim
