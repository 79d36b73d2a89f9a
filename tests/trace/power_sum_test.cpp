#include "shardsim/trace/power_sum.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace shardsim {
namespace {

// Brute-force sum in long double, smallest terms first.
double brute_sum(double beta, double q, std::uint64_t first, std::uint64_t last) {
  long double s = 0;
  for (std::uint64_t k = last + 1; k-- > first;) s += std::pow(double(k) + q, -beta);
  return static_cast<double>(s);
}

TEST(PowerSum, HandValues) {
  // 1 + 1/2 + 1/3 + 1/4 = 25/12.
  EXPECT_NEAR(power_sum(1.0, 0.0, 1, 4), 25.0 / 12.0, 1e-15);
  // alpha = 0 counts the terms.
  EXPECT_EQ(power_sum(0.0, 3.0, 5, 1004), 1000.0);
  EXPECT_EQ(power_sum(1.0, 0.0, 5, 4), 0.0);
  // Σ_{k>=1} k^-2 = π²/6; the tail past 10^10 is ~1e-10.
  EXPECT_NEAR(power_sum(2.0, 0.0, 1, 10'000'000'000ULL),
              std::numbers::pi * std::numbers::pi / 6 - 1e-10, 1e-13);
}

TEST(PowerSum, HarmonicNumberForHugeN) {
  // H_N = ln N + γ + 1/(2N) - 1/(12N²) + ...
  const double n = 1e10;
  const double euler_gamma = 0.57721566490153286;
  EXPECT_NEAR(power_sum(1.0, 0.0, 1, 10'000'000'000ULL), std::log(n) + euler_gamma + 0.5 / n,
              1e-12);
}

TEST(PowerSum, MatchesBruteForceOnManyRanges) {
  for (double beta : {0.3, 0.5, 0.99, 1.0, 1.01, 1.05, 1.5, 2.5, 7.0}) {
    for (double q : {0.0, 0.5, 50.0}) {
      for (auto [a, b] : {std::pair<std::uint64_t, std::uint64_t>{1, 1000000},
                          {1, 65},
                          {7, 300},
                          {500, 200000},
                          {999'000, 1'000'000},
                          {123'456, 123'456}}) {
        const double want = brute_sum(beta, q, a, b);
        EXPECT_NEAR(power_sum(beta, q, a, b), want, 1e-12 * want)
            << "beta " << beta << " q " << q << " [" << a << ", " << b << "]";
      }
    }
  }
}

TEST(PowerSum, DeepRangesHaveNoCancellation) {
  // A short range far out: computed directly, not as a difference of two large sums.
  const std::uint64_t a = 5'000'000'000ULL;
  const double want = brute_sum(1.0, 0.0, a, a + 999);
  EXPECT_NEAR(power_sum(1.0, 0.0, a, a + 999), want, 1e-13 * want);
  const double want2 = brute_sum(1.05, 0.0, a, a + 10'000);
  EXPECT_NEAR(power_sum(1.05, 0.0, a, a + 10'000), want2, 1e-12 * want2);
}

TEST(PowerSum, IntegralIsStableNearOne) {
  // ∫_1^e y^-1 dy = 1; for beta = 1 ± 1e-12 the answer must stay continuous.
  EXPECT_NEAR(power_integral(1.0, 1.0, std::numbers::e), 1.0, 1e-15);
  EXPECT_NEAR(power_integral(1.0 + 1e-12, 1.0, std::numbers::e), 1.0, 1e-11);
  EXPECT_NEAR(power_integral(1.0 - 1e-12, 1.0, std::numbers::e), 1.0, 1e-11);
  // ∫_1^4 y^-2 dy = 3/4; ∫_0.5^2 y^0 dy = 1.5.
  EXPECT_NEAR(power_integral(2.0, 1.0, 4.0), 0.75, 1e-15);
  EXPECT_NEAR(power_integral(0.0, 0.5, 2.0), 1.5, 1e-15);
}

// PowerSumFrom caches power_sum's exact first terms: every value must be power_sum's, bit for
// bit, on both sides of the cached terms and of the short-range rule.
TEST(PowerSum, FromAFixedFirstIsBitIdentical) {
  for (double beta : {0.0, 0.5, 1.0, 1.05, 2.5, 40.0}) {
    for (double q : {0.0, 0.7, 100.0}) {
      for (std::uint64_t first :
           {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{70}, std::uint64_t{5000}}) {
        const PowerSumFrom from(beta, q, first);
        const std::uint64_t lasts[] = {first - 1,   first + 0,    first + 10,
                                       first + 62,  first + 63,   first + 64,
                                       first + 65,  first + 127,  first + 128,
                                       first + 129, first + 1000, std::uint64_t{1} << 30};
        for (std::uint64_t last : lasts) {
          EXPECT_EQ(from(last), power_sum(beta, q, first, last))
              << "beta " << beta << " q " << q << " first " << first << " last " << last;
        }
      }
    }
  }
}

}  // namespace
}  // namespace shardsim
