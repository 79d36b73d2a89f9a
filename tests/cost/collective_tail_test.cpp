// Tail latency of a collective: the maximum of its participants' finishing factors
// (cost/collective_tail.hpp).
#include "shardsim/cost/collective_tail.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shardsim {
namespace {

TEST(CollectiveTail, OneParticipantOrNoJitterHasNoTail) {
  EXPECT_DOUBLE_EQ(expected_max_lognormal(1, 0.1), 1.0);
  EXPECT_DOUBLE_EQ(expected_max_lognormal(1024, 0.0), 1.0);
  Rng rng(1);
  EXPECT_DOUBLE_EQ(sample_max_lognormal(1, 0.1, rng), 1.0);
}

TEST(CollectiveTail, TheExpectedMaximumGrowsWithScaleAsTheoryAndSamplingSay) {
  // n = 2: E[max(X1, X2)] = 1 + E|X1 − X2| / 2 = 2·Φ(σ/√2) for mean-1 lognormals.
  const double cv = 0.1;
  const double sigma = std::sqrt(std::log1p(cv * cv));
  EXPECT_NEAR(expected_max_lognormal(2, cv), std::erfc(-sigma / 2), 1e-9);
  double previous = 1;
  for (int n : {2, 16, 256, 4096}) {
    const double e = expected_max_lognormal(n, cv);
    EXPECT_GT(e, previous) << n;
    previous = e;
    // Monte Carlo: the mean of 4000 sampled maxima agrees within 4 standard errors.
    Rng rng(static_cast<std::uint64_t>(n));
    double sum = 0, sum2 = 0;
    constexpr int kDraws = 4000;
    for (int k = 0; k < kDraws; ++k) {
      const double m = sample_max_lognormal(n, cv, rng);
      sum += m;
      sum2 += m * m;
    }
    const double mean = sum / kDraws;
    const double se = std::sqrt((sum2 / kDraws - mean * mean) / kDraws);
    EXPECT_NEAR(mean, e, 4 * se + 1e-12) << n;
  }
}

}  // namespace
}  // namespace shardsim
