// Frequency pruning (trace/table_pruning.hpp): the pruned table is the original law restricted to
// its hottest ranks, checked against hand calculations.
#include "shardsim/trace/table_pruning.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "shardsim/model/table_memory.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "support/power_law_table.hpp"

namespace shardsim {
namespace {

double harmonic_sum(int n, double alpha) {
  double h = 0;
  for (int k = 1; k <= n; ++k) h += std::pow(static_cast<double>(k), -alpha);
  return h;
}

TEST(TablePruning, RowsKept) {
  EXPECT_EQ(rows_kept_after_pruning(100, 0.35), 65u);  // 0.35·100 is 35 up to rounding
  EXPECT_EQ(rows_kept_after_pruning(100, 0.0), 100u);
  EXPECT_EQ(rows_kept_after_pruning(7, 0.5), 4u);  // 3.5 rows: 3 pruned
  EXPECT_EQ(rows_kept_after_pruning(10, 0.999), 1u);
  EXPECT_EQ(rows_kept_after_pruning(1, 0.9), 1u);  // a table keeps one row
  EXPECT_EQ(rows_kept_after_pruning(10'000'000'000'000ULL, 0.6), 4'000'000'000'000ULL);
  EXPECT_THROW((void)rows_kept_after_pruning(10, 1.0), std::invalid_argument);
  EXPECT_THROW((void)rows_kept_after_pruning(10, -0.1), std::invalid_argument);
  EXPECT_THROW((void)rows_kept_after_pruning(10, std::nan("")), std::invalid_argument);
}

TEST(TablePruning, SurvivingMassOfATruncatedZipfIsHKOverHN) {
  for (double alpha : {0.0, 0.8, 1.0, 1.2}) {
    SCOPED_TRACE(alpha);
    const EmbeddingTable t = testing::power_law_table(1000, alpha, PoolingSpec::fixed_at(20));
    const EmbeddingTable p = prune_coldest_rows(t, 0.4);
    const double s = harmonic_sum(600, alpha) / harmonic_sum(1000, alpha);
    EXPECT_EQ(p.rows, 600u);
    EXPECT_EQ(p.pruning.original_rows, 1000u);
    EXPECT_NEAR(p.pruning.lookup_survival, s, 1e-6 * s);
    EXPECT_NEAR(p.pooling.expected(), 20 * s, 1e-5);
    // Binomial thinning of a fixed bag of 20.
    EXPECT_NEAR(p.pooling.variance(), 20 * s * (1 - s), 1e-5);
    // The pruned law is Zipf on the kept ranks: p'_k = p_k / s.
    const PowerLawProfile before(t, HotRowLayout::clustered, 0);
    const PowerLawProfile after(p, HotRowLayout::clustered, 0);
    for (std::uint64_t r : {0ull, 1ull, 17ull, 599ull}) {
      EXPECT_NEAR(after.probability(r), before.probability(r) / s, 1e-9);
    }
  }
}

TEST(TablePruning, MemoryShrinksByTheFraction) {
  const EmbeddingTable t = testing::power_law_table(1'000'000, 1.05, PoolingSpec::fixed_at(5));
  for (double f : {0.35, 0.45, 0.6}) {
    const EmbeddingTable p = prune_coldest_rows(t, f);
    EXPECT_NEAR(table_weight_bytes(p, Precision::fp32),
                (1 - f) * table_weight_bytes(t, Precision::fp32),
                1e-9 * table_weight_bytes(t, Precision::fp32));
    EXPECT_NEAR(table_optimizer_state_bytes(p, OptimizerKind::rowwise_adagrad),
                (1 - f) * table_optimizer_state_bytes(t, OptimizerKind::rowwise_adagrad), 1.0);
    // Power laws concentrate lookups on the hottest rows: pruning 35-60% of the rows drops only
    // a few percent of the lookups (alpha 1.05, 1e6 rows).
    EXPECT_GT(p.pruning.lookup_survival, 0.9);
    EXPECT_LT(p.pruning.lookup_survival, 1.0);
  }
}

TEST(TablePruning, HeavyHittersAreRenormalised) {
  EmbeddingTable t = testing::power_law_table(100, 1.0, PoolingSpec::fixed_at(4));
  t.q = 2;
  t.heavy_hitters = {0.3, 0.2};
  const PowerLawProfile before(t, HotRowLayout::clustered, 0);
  const EmbeddingTable p = prune_coldest_rows(t, 0.5);
  ASSERT_EQ(p.rows, 50u);
  const double s = before.mass(RowRange{0, 50}, RowSpace::rank);
  EXPECT_NEAR(p.pruning.lookup_survival, s, 1e-12);
  ASSERT_EQ(p.heavy_hitters.size(), 2u);
  EXPECT_NEAR(p.heavy_hitters[0], 0.3 / s, 1e-12);
  const PowerLawProfile after(p, HotRowLayout::clustered, 0);
  for (std::uint64_t r : {0ull, 1ull, 2ull, 30ull, 49ull}) {
    EXPECT_NEAR(after.probability(r), before.probability(r) / s, 1e-9);
  }
  // Fewer rows kept than heavy hitters: the kept heavy hitters sum to 1.
  const EmbeddingTable one = prune_coldest_rows(t, 0.99);
  EXPECT_EQ(one.rows, 1u);
  ASSERT_EQ(one.heavy_hitters.size(), 1u);
  EXPECT_DOUBLE_EQ(one.heavy_hitters[0], 1.0);
  EXPECT_DOUBLE_EQ(one.pruning.lookup_survival, 0.3);
}

TEST(TablePruning, ZeroIsTheIdentityAndPruningTwiceIsRefused) {
  const EmbeddingTable t = testing::power_law_table(1000, 1.0, PoolingSpec::fixed_at(3));
  const EmbeddingTable same = prune_coldest_rows(t, 0.0);
  EXPECT_EQ(same.rows, t.rows);
  EXPECT_EQ(same.pooling.keep, 1.0);
  EXPECT_EQ(same.pruning.original_rows, 0u);
  const EmbeddingTable p = prune_coldest_rows(t, 0.5);
  EXPECT_THROW((void)prune_coldest_rows(p, 0.5), std::invalid_argument);
  EXPECT_THROW((void)prune_coldest_rows(t, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
