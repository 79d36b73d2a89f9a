// The embedding kernels' HBM efficiency (cost/kernel_efficiency.hpp): each factor against a hand
// calculation, the neutral defaults, and how the factors enter the fused kernels' time.
#include "cost/kernel_efficiency.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "round_presets.hpp"

namespace shardsim {
namespace {

using test::round_gpu;

// L = 1e6 lookups, D = 4e5 distinct rows (0.4 per lookup), O = 1e5 bags (pooling 10), 64 fp32
// columns (the work of embedding_cost_test.cpp: 175.2e6 forward bytes with the defaults).
EmbeddingWork efficiency_work() {
  EmbeddingWork w;
  w.lookups = 1e6;
  w.distinct_rows = 4e5;
  w.pooled_outputs = 1e5;
  w.cols = 64;
  w.precision = Precision::fp32;
  w.rows = 1e8;
  return w;
}

TEST(KernelEfficiency, DefaultsAreNeutral) {
  const CostParams p = default_cost_params();
  EXPECT_EQ(p.kernel_hbm_efficiency, 1.0);
  EXPECT_EQ(p.kernel_dim_half_cols, 0.0);
  EXPECT_EQ(p.kernel_pooling_half, 0.0);
  EXPECT_EQ(p.kernel_distinct_penalty, 0.0);
  EXPECT_EQ(p.kernel_tables_half, 0.0);
  EXPECT_EQ(embedding_shard_efficiency(efficiency_work(), p), 1.0);
  EXPECT_EQ(embedding_fusion_efficiency(7, p), 1.0);
  // Exactly today's roofline: 175.2e6 B / 1e12 B/s + 5 us, for one shard and for three fused.
  EXPECT_EQ(embedding_forward_s(round_gpu(), efficiency_work(), p),
            embedding_forward_bytes(efficiency_work(), p) / 1e12 + 5e-6);
  const std::vector<EmbeddingWork> three(3, efficiency_work());
  EXPECT_EQ(embedding_forward_s(round_gpu(), three, p),
            3 * embedding_forward_bytes(efficiency_work(), p) / 1e12 + 5e-6);
}

TEST(KernelEfficiency, EachFactorMatchesHandCalculation) {
  CostParams p = default_cost_params();
  p.kernel_dim_half_cols = 16;  // 64 / (64 + 16) = 0.8
  EXPECT_DOUBLE_EQ(embedding_shard_efficiency(efficiency_work(), p), 0.8);
  p = default_cost_params();
  p.kernel_pooling_half = 2.5;  // P = 1e6 / 1e5 = 10: 10 / 12.5 = 0.8
  EXPECT_DOUBLE_EQ(embedding_shard_efficiency(efficiency_work(), p), 0.8);
  p = default_cost_params();
  p.kernel_distinct_penalty = 0.5;  // 1 / (1 + 0.5 x 0.4) = 1 / 1.2
  EXPECT_DOUBLE_EQ(embedding_shard_efficiency(efficiency_work(), p), 1 / 1.2);
  p = default_cost_params();
  p.kernel_tables_half = 3;  // T = 1: 1/4; T = 9: 9/12
  EXPECT_DOUBLE_EQ(embedding_fusion_efficiency(1, p), 0.25);
  EXPECT_DOUBLE_EQ(embedding_fusion_efficiency(9, p), 0.75);
  EXPECT_EQ(embedding_fusion_efficiency(0, p), 1.0);
  // All together: 0.9 x 0.8 x 0.8 x (1 / 1.2) = 0.48.
  p.kernel_hbm_efficiency = 0.9;
  p.kernel_dim_half_cols = 16;
  p.kernel_pooling_half = 2.5;
  p.kernel_distinct_penalty = 0.5;
  EXPECT_DOUBLE_EQ(embedding_shard_efficiency(efficiency_work(), p), 0.48);
}

TEST(KernelEfficiency, UndefinedQuantitiesLeaveTheirFactorAtOne) {
  CostParams p = default_cost_params();
  p.kernel_pooling_half = 2;
  p.kernel_distinct_penalty = 1;
  EmbeddingWork w = efficiency_work();
  w.pooled_outputs = 0;  // no bags: no pooling factor
  w.lookups = 0;         // no lookups: no distinct fraction
  EXPECT_EQ(embedding_shard_efficiency(w, p), 1.0);
}

TEST(KernelEfficiency, EntersTheFusedKernelsTime) {
  CostParams p = default_cost_params();
  p.kernel_dim_half_cols = 16;  // η_shard = 0.8
  p.kernel_tables_half = 1;     // one table: 1/2; two tables: 2/3
  const double bytes = embedding_forward_bytes(efficiency_work(), p);  // 175.2e6
  // One shard: 175.2e6 / 0.8 / (1e12 x 0.5) + 5 us = 438 us + 5 us.
  EXPECT_NEAR(embedding_forward_s(round_gpu(), efficiency_work(), p), 443e-6, 1e-12);
  // Two shards fused: 2 x 175.2e6 / 0.8 / (1e12 x 2/3) + 5 us = 657 us + 5 us: less than the
  // two kernels alone (2 x 443 us), NeuroShard's Obs. 2.
  const std::vector<EmbeddingWork> two(2, efficiency_work());
  EXPECT_NEAR(embedding_forward_s(round_gpu(), two, p), 2 * bytes / 0.8 / (1e12 * 2 / 3) + 5e-6,
              1e-12);
  EXPECT_LT(embedding_forward_s(round_gpu(), two, p),
            2 * embedding_forward_s(round_gpu(), efficiency_work(), p));
  // A shard with no work neither costs nor counts as a table.
  std::vector<EmbeddingWork> with_empty = {efficiency_work(), EmbeddingWork{}};
  with_empty[1].cols = 64;
  EXPECT_DOUBLE_EQ(embedding_forward_s(round_gpu(), with_empty, p),
                   embedding_forward_s(round_gpu(), efficiency_work(), p));
  // The backward uses the same efficiency: its bytes / 0.8 / 0.5 + 20 launches.
  const double bwd =
      embedding_backward_bytes(efficiency_work(), OptimizerKind::rowwise_adagrad, p, 1e8);
  EXPECT_NEAR(
      embedding_backward_s(round_gpu(), efficiency_work(), OptimizerKind::rowwise_adagrad, p),
      bwd / 0.8 / 0.5e12 + 100e-6, 1e-12);
}

}  // namespace
}  // namespace shardsim
