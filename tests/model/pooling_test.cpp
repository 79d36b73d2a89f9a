#include "shardsim/model/pooling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim {
namespace {

using Kind = PoolingSpec::Kind;

PoolingSpec make(Kind kind) {
  PoolingSpec p;
  p.kind = kind;
  return p;
}

// Moments of K = round(clip(X, lo, hi)) by brute force over every integer k in [k0, k1]:
// P(K = k) = P(k - 1/2 <= clip(X) < k + 1/2), written independently of the library's code.
struct BruteMoments {
  double mean;
  double variance;
};
template <class Cdf>
BruteMoments brute(Cdf cdf_clipped, double k0, double k1) {
  double m0 = 0, m1 = 0, m2 = 0;
  for (double k = k0; k <= k1; k += 1) {
    const double pk = cdf_clipped(k + 0.5) - cdf_clipped(k - 0.5);
    m0 += pk;
    m1 += pk * k;
    m2 += pk * k * k;
  }
  const double mean = m1 / m0;
  return {mean, m2 / m0 - mean * mean};
}

double phi_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// P(clip(X, lo, hi) < t) for X with cdf F.
template <class F>
auto clipped(F cdf, double lo, double hi) {
  return [=](double t) {
    if (t <= lo) return 0.0;
    if (t > hi) return 1.0;
    return cdf(t);
  };
}

struct SampleStats {
  double mean;
  double variance;
  double fourth_central;
  double min;
  double max;
  bool all_integer;
};
SampleStats sample_stats(const PoolingSpec& p, int n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> xs(n);
  double s = 0, lo = 1e300, hi = -1e300;
  bool integer = true;
  for (auto& x : xs) {
    x = p.sample(rng);
    s += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    integer = integer && std::floor(x) == x && x >= 0;
  }
  const double mean = s / n;
  double m2 = 0, m4 = 0;
  for (double x : xs) {
    const double d2 = (x - mean) * (x - mean);
    m2 += d2;
    m4 += d2 * d2;
  }
  return {mean, m2 / n, m4 / n, lo, hi, integer};
}

// Sample mean within 5 standard errors; sample variance within 5 of its standard errors,
// sqrt((m4 - Var²) / n) with m4 the sample's fourth central moment.
void expect_moments_match_samples(const PoolingSpec& p, std::uint64_t seed) {
  constexpr int n = 200000;
  const auto st = sample_stats(p, n, seed);
  EXPECT_TRUE(st.all_integer);
  const double var = p.variance();
  const double se_mean = std::sqrt(var / n);
  EXPECT_NEAR(st.mean, p.expected(), 5 * se_mean + 1e-12);
  const double se_var = std::sqrt(std::max(0.0, st.fourth_central - var * var) / n);
  EXPECT_NEAR(st.variance, var, 5 * se_var + 1e-12);
}

TEST(Pooling, ThinningKeepsEachLookupWithItsProbability) {
  // Pruning's dropped lookups (docs/model.md "Pruning"): Binomial(N, keep) of the whole draw N.
  for (PoolingSpec p : {PoolingSpec::fixed_at(20), PoolingSpec::uniform_between(0, 200)}) {
    const double mean = p.expected();
    const double var = p.variance();
    p.keep = 0.7;
    EXPECT_NEAR(p.expected(), 0.7 * mean, 1e-12);
    EXPECT_NEAR(p.variance(), 0.49 * var + 0.21 * mean, 1e-9);
    Rng rng(7);
    const int n = 200000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double x = p.sample(rng);
      EXPECT_EQ(x, std::floor(x));
      s += x;
      s2 += x * x;
    }
    const double m = s / n;
    EXPECT_NEAR(m, p.expected(), 5 * std::sqrt(p.variance() / n));
    EXPECT_NEAR(s2 / n - m * m, p.variance(), 0.03 * p.variance());
  }
}

TEST(Pooling, FixedIntegerHasNoVariance) {
  auto p = make(Kind::fixed);
  p.value = 3;
  EXPECT_DOUBLE_EQ(p.expected(), 3.0);
  EXPECT_DOUBLE_EQ(p.variance(), 0.0);
  Rng rng(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(p.sample(rng), 3.0);
}

TEST(Pooling, FixedFractionalRoundsAtRandomKeepingTheMean) {
  // 2.5 -> 2 or 3 with probability 1/2 each: mean 2.5, variance 0.25.
  auto p = make(Kind::fixed);
  p.value = 2.5;
  EXPECT_DOUBLE_EQ(p.expected(), 2.5);
  EXPECT_DOUBLE_EQ(p.variance(), 0.25);
  const auto st = sample_stats(p, 100000, 7);
  EXPECT_EQ(st.min, 2.0);
  EXPECT_EQ(st.max, 3.0);
  expect_moments_match_samples(p, 8);
}

TEST(Pooling, UniformByHand) {
  // Integers 1..40: mean 20.5, variance (40² - 1)/12 = 133.25.
  auto p = make(Kind::uniform);
  p.min = 1;
  p.max = 40;
  EXPECT_DOUBLE_EQ(p.expected(), 20.5);
  EXPECT_DOUBLE_EQ(p.variance(), 133.25);
  const auto st = sample_stats(p, 100000, 3);
  EXPECT_EQ(st.min, 1.0);
  EXPECT_EQ(st.max, 40.0);
  expect_moments_match_samples(p, 4);
}

TEST(Pooling, NormalFarFromZeroIsRoundedNormal) {
  // mean 100, sd 5: clipping at 0 is irrelevant; rounding adds Sheppard's 1/12 to the variance
  // and leaves the mean: 100, 25 + 1/12.
  auto p = make(Kind::normal);
  p.mean = 100;
  p.sigma = 5;
  EXPECT_NEAR(p.expected(), 100.0, 1e-9);
  EXPECT_NEAR(p.variance(), 25.0 + 1.0 / 12.0, 1e-6);
  expect_moments_match_samples(p, 11);
}

TEST(Pooling, NormalClippedAtZeroMatchesBruteForce) {
  // mean 1, sd 2: a third of the mass is clipped to 0.
  auto p = make(Kind::normal);
  p.mean = 1;
  p.sigma = 2;
  const auto cdf = clipped([](double x) { return phi_cdf((x - 1.0) / 2.0); }, 0.0, 1e300);
  const auto b = brute(cdf, 0, 60);
  EXPECT_NEAR(p.expected(), b.mean, 1e-9);
  EXPECT_NEAR(p.variance(), b.variance, 1e-9);
  EXPECT_GT(p.expected(), 1.0);  // clipping at 0 raises the mean
  expect_moments_match_samples(p, 12);
}

TEST(Pooling, NormalWithUpperClipAndWideSupportMatchesBruteForce) {
  // sd 200 gives > 1024 integers of support, exercising the continuous part with Sheppard's
  // correction; max 900 clips the upper tail into an atom.
  auto p = make(Kind::normal);
  p.mean = 500;
  p.sigma = 200;
  p.max = 900;
  const auto cdf = clipped([](double x) { return phi_cdf((x - 500.0) / 200.0); }, 0.0, 900.0);
  const auto b = brute(cdf, 0, 900);
  EXPECT_NEAR(p.expected(), b.mean, 1e-6 * b.mean);
  EXPECT_NEAR(p.variance(), b.variance, 1e-6 * b.variance);
  expect_moments_match_samples(p, 13);
}

TEST(Pooling, NormalWithZeroSigmaIsDeterministic) {
  auto p = make(Kind::normal);
  p.mean = 7.4;
  EXPECT_DOUBLE_EQ(p.expected(), 7.0);
  EXPECT_DOUBLE_EQ(p.variance(), 0.0);
  Rng rng(5);
  EXPECT_EQ(p.sample(rng), 7.0);
}

TEST(Pooling, LognormalClippedMatchesBruteForce) {
  // mean 15, sigma 1 -> mu = ln 15 - 1/2; clipped to [1, 100].
  auto p = make(Kind::lognormal);
  p.mean = 15;
  p.sigma = 1;
  p.min = 1;
  p.max = 100;
  const double mu = std::log(15.0) - 0.5;
  const auto cdf =
      clipped([mu](double x) { return x <= 0 ? 0.0 : phi_cdf(std::log(x) - mu); }, 1.0, 100.0);
  const auto b = brute(cdf, 1, 100);
  EXPECT_NEAR(p.expected(), b.mean, 1e-9);
  EXPECT_NEAR(p.variance(), b.variance, 1e-9);
  EXPECT_LT(p.expected(), 15.0);  // the upper clip removes more than the lower one adds
  expect_moments_match_samples(p, 21);
}

TEST(Pooling, LognormalUnclippedWideTailMatchesBruteForce) {
  // No upper clip: support reaches e^{mu + 12} ~ 1.2e6, so most of it is treated as continuous.
  // Brute force sums every integer up to 4e6. The un-rounded mean is exactly 15; rounding changes
  // it only through the values near 0.
  auto p = make(Kind::lognormal);
  p.mean = 15;
  p.sigma = 1;
  const double mu = std::log(15.0) - 0.5;
  const auto cdf = clipped([mu](double x) { return x <= 0 ? 0.0 : phi_cdf(std::log(x) - mu); }, 0.0,
                           std::numeric_limits<double>::infinity());
  const auto b = brute(cdf, 0, 4e6);
  EXPECT_NEAR(p.expected(), b.mean, 1e-6 * b.mean);
  EXPECT_NEAR(p.variance(), b.variance, 1e-6 * b.variance);
  EXPECT_NEAR(p.expected(), 15.0, 0.05);
  // Var of the lognormal: mean² (e^{sigma²} - 1) = 225 (e - 1) = 386.6, plus ~1/12.
  EXPECT_NEAR(p.variance(), 225.0 * (std::exp(1.0) - 1.0), 0.5);
  expect_moments_match_samples(p, 22);
}

TEST(Pooling, HistogramByHand) {
  // Values 1, 2.5, 10 with weights 1, 1, 2 (2.5 is rounded to 2 or 3 at random).
  // mean = (1 + 2.5 + 20) / 4 = 5.875;
  // E[K²] = (1 + (6.25 + 0.25) + 2·100) / 4 = 51.875; variance = 51.875 - 5.875² = 17.359375.
  auto p = make(Kind::histogram);
  p.histogram = {{1, 1}, {2.5, 1}, {10, 2}};
  EXPECT_DOUBLE_EQ(p.expected(), 5.875);
  EXPECT_NEAR(p.variance(), 17.359375, 1e-12);
  expect_moments_match_samples(p, 31);
}

TEST(Pooling, SamplingIsDeterministicPerSeed) {
  auto p = make(Kind::lognormal);
  p.mean = 20;
  p.sigma = 0.7;
  Rng a(99), b(99), c(100);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const double x = p.sample(a);
    EXPECT_EQ(x, p.sample(b));
    differs = differs || x != p.sample(c);
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace shardsim
