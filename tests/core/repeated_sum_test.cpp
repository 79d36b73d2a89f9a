#include "shardsim/core/repeated_sum.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

namespace shardsim {
namespace {

double loop_sum(double acc, double v, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) acc += v;
  return acc;
}

TEST(RepeatedSum, MatchesTheLoopBitForBit) {
  std::mt19937_64 rng(59);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::uniform_int_distribution<std::uint64_t> count(0, 40000);
  for (int trial = 0; trial < 3000; ++trial) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    const double acc = trial % 3 == 0 ? 0.0 : std::ldexp(mantissa(rng), exponent(rng));
    const std::uint64_t n = count(rng);
    ASSERT_EQ(repeated_sum(acc, v, n), loop_sum(acc, v, n))
        << "acc " << acc << " v " << v << " n " << n;
  }
}

TEST(RepeatedSum, ValuesOfTheDraws) {
  // What a GPU's batch sends to a block: B x E[pooling] x share, summed over 16,384 GPUs.
  for (double v : {512.0 * 20 / 3, 1.0 / 3, 0.1, 1e-3 / 7, 12345.678, 0.0, 1.0}) {
    for (std::uint64_t n : {1ULL, 7ULL, 4096ULL, 16384ULL, 65536ULL}) {
      EXPECT_EQ(repeated_sum(0.0, v, n), loop_sum(0.0, v, n)) << v << " x " << n;
      EXPECT_EQ(repeated_sum(3.5, v, n), loop_sum(3.5, v, n)) << v << " x " << n;
    }
  }
}

TEST(RepeatedSum, TiesAndTinyAddends) {
  // v exactly half an ulp of acc (ties to even), and far below it (no change).
  const double acc = 0x1p52;  // ulp 1
  EXPECT_EQ(repeated_sum(acc, 0.5, 1000), loop_sum(acc, 0.5, 1000));
  EXPECT_EQ(repeated_sum(acc + 1, 0.5, 1000), loop_sum(acc + 1, 0.5, 1000));
  EXPECT_EQ(repeated_sum(acc, 1.5, 1000), loop_sum(acc, 1.5, 1000));
  EXPECT_EQ(repeated_sum(acc, 0.25, 1000), acc);
  EXPECT_EQ(repeated_sum(1.0, 0x1p-60, 5), 1.0);
}

TEST(RepeatedSum, NonPositiveAndSpecialValues) {
  EXPECT_EQ(repeated_sum(10.0, -0.3, 17), loop_sum(10.0, -0.3, 17));
  EXPECT_EQ(repeated_sum(-5.0, 0.3, 100), loop_sum(-5.0, 0.3, 100));
  EXPECT_EQ(repeated_sum(1.0, 2.0, 0), 1.0);
  const double denorm = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(repeated_sum(0.0, denorm, 1000), loop_sum(0.0, denorm, 1000));
  EXPECT_TRUE(std::isnan(repeated_sum(1.0, std::numeric_limits<double>::quiet_NaN(), 3)));
  EXPECT_EQ(repeated_sum(1.0, std::numeric_limits<double>::infinity(), 3),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(repeated_sum(std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), 2),
            loop_sum(std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), 2));
}

}  // namespace
}  // namespace shardsim
