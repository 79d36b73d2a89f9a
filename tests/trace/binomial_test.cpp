#include "trace/binomial.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim {
namespace {

struct Stats {
  double mean;
  double variance;
};
Stats binomial_stats(std::uint64_t n, double p, int draws, std::uint64_t seed) {
  // Sums of x - n·p, so that huge n do not lose the variance to rounding.
  Rng rng(seed);
  const double center = static_cast<double>(n) * p;
  double s = 0, s2 = 0;
  for (int i = 0; i < draws; ++i) {
    const auto x = sample_binomial(rng, n, p);
    EXPECT_LE(x, n);
    const double d = static_cast<double>(x) - center;
    s += d;
    s2 += d * d;
  }
  const double mean = s / draws;
  return {center + mean, s2 / draws - mean * mean};
}

TEST(Binomial, EdgeCases) {
  Rng rng(1);
  EXPECT_EQ(sample_binomial(rng, 0, 0.5), 0u);
  EXPECT_EQ(sample_binomial(rng, 100, 0.0), 0u);
  EXPECT_EQ(sample_binomial(rng, 100, -1.0), 0u);
  EXPECT_EQ(sample_binomial(rng, 100, 1.0), 100u);
  EXPECT_EQ(sample_binomial(rng, 100, 1.5), 100u);
}

TEST(Binomial, MomentsInBothRegimes) {
  // Mean n·p within 5 standard errors, variance n·p·(1-p) within 5%.
  struct Case {
    std::uint64_t n;
    double p;
  };
  for (const Case c : {Case{10, 0.3}, Case{100, 0.9}, Case{1'000'000'000, 1e-8},
                       Case{1'000'000, 0.3}, Case{5'000, 0.02}, Case{1ULL << 40, 0.5}}) {
    const int draws = 100000;
    const auto st = binomial_stats(c.n, c.p, draws, c.n + 7);
    const double mean = static_cast<double>(c.n) * c.p;
    const double var = mean * (1 - c.p);
    EXPECT_NEAR(st.mean, mean, 5 * std::sqrt(var / draws)) << c.n << " " << c.p;
    EXPECT_NEAR(st.variance, var, 0.05 * var) << c.n << " " << c.p;
  }
}

TEST(Binomial, SmallCaseMatchesThePmf) {
  // Binomial(10, 0.3) by inversion: each value's frequency within 5 standard errors of the pmf.
  const int draws = 200000;
  std::vector<int> counts(11, 0);
  Rng rng(5);
  for (int i = 0; i < draws; ++i) ++counts[sample_binomial(rng, 10, 0.3)];
  double pk = std::pow(0.7, 10);
  for (int k = 0; k <= 10; ++k) {
    const double se = std::sqrt(pk * (1 - pk) / draws);
    EXPECT_NEAR(counts[k] / double(draws), pk, 5 * se + 1e-6) << "k = " << k;
    pk *= (10.0 - k) / (k + 1.0) * 0.3 / 0.7;
  }
}

TEST(Multinomial, ConservesTheTotalExactly) {
  Rng weights_rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t k = 1 + weights_rng.below(40);
    std::vector<double> w(k);
    for (auto& x : w) x = weights_rng.uniform01() < 0.2 ? 0.0 : weights_rng.uniform01();
    w[weights_rng.below(k)] = 0.5;  // at least one positive weight
    const std::uint64_t n = weights_rng.below(10'000'000);
    std::vector<std::uint64_t> counts(k);
    Rng rng(trial);
    sample_multinomial(rng, n, w, counts);
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), n);
    for (std::size_t i = 0; i < k; ++i)
      if (w[i] == 0.0) {
        EXPECT_EQ(counts[i], 0u) << "zero weight got draws";
      }
  }
}

TEST(Multinomial, SharesFollowTheWeights) {
  // 1e6 draws over weights 1:2:7; each count within 5σ of n·w/Σw.
  const std::vector<double> w = {1, 2, 7};
  std::vector<std::uint64_t> counts(3);
  Rng rng(11);
  const std::uint64_t n = 1'000'000;
  sample_multinomial(rng, n, w, counts);
  for (int i = 0; i < 3; ++i) {
    const double p = w[i] / 10.0;
    EXPECT_NEAR(double(counts[i]), n * p, 5 * std::sqrt(n * p * (1 - p)));
  }
}

TEST(Multinomial, DeterministicAndRejectsBadInput) {
  const std::vector<double> w = {0.2, 0.3, 0.5};
  std::vector<std::uint64_t> a(3), b(3);
  Rng r1(9), r2(9);
  sample_multinomial(r1, 12345, w, a);
  sample_multinomial(r2, 12345, w, b);
  EXPECT_EQ(a, b);
  Rng rng(1);
  std::vector<std::uint64_t> two(2);
  EXPECT_THROW(sample_multinomial(rng, 10, w, two), std::invalid_argument);
  const std::vector<double> zeros = {0, 0, 0};
  EXPECT_THROW(sample_multinomial(rng, 10, zeros, a), std::invalid_argument);
  const std::vector<double> negative = {0.5, -0.1, 0.6};
  EXPECT_THROW(sample_multinomial(rng, 10, negative, a), std::invalid_argument);
  sample_multinomial(rng, 0, zeros, a);  // nothing to split: fine
  EXPECT_EQ(a, (std::vector<std::uint64_t>{0, 0, 0}));
}

}  // namespace
}  // namespace shardsim
