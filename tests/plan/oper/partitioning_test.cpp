// OPER §4.1 (partitioning) and §4.2 (balanced model parallelism, threshold back-off), by hand.
#include <gtest/gtest.h>

#include "plan/oper/model_parallel.hpp"
#include "plan/oper/oper_fixture.hpp"
#include "plan/oper/partitioning.hpp"
#include "plan/packing.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim::oper {
namespace {

using testing::OperFixture;

// Fig. 2's three tables: access counts per GPU batch of 16 lookups each (pooling 1, batch 16:
// A = 16 · p), rows of 16 B (inference: no optimizer state).
OperFixture fig2(int gpus = 2) {
  return OperFixture(gpus, 1, {{8, 4, 2, 2}, {6, 6, 2, 2}, {4, 4, 4, 4}}, 16);
}

TEST(OperPartitioning, ByAccessAndFootprint) {
  const OperFixture f = fig2();
  const auto ctx = f.ctx();
  const PartitionTotals totals = partition_totals(ctx);
  EXPECT_DOUBLE_EQ(totals.access, 48);      // 3 tables x 16 lookups per GPU batch
  EXPECT_DOUBLE_EQ(totals.bytes, 12 * 16);  // 12 rows of 16 B
  // Threshold 25%: at most 12 accesses and 48 B (3 rows) per partition.
  const std::vector<Partition> parts = partition_tables(ctx, 0.25);
  ASSERT_EQ(parts.size(), 6u);
  // A: [0, 2) reaches 12 accesses exactly (access-bound); [2, 4) holds the rest, 4 accesses in
  // 32 B: 4/12 < 32/48, memory-bound.
  EXPECT_EQ(parts[0].ranks, (RowRange{0, 2}));
  EXPECT_DOUBLE_EQ(parts[0].access, 12);
  EXPECT_DOUBLE_EQ(parts[0].bytes, 32);
  EXPECT_TRUE(parts[0].access_bound);
  EXPECT_EQ(parts[1].ranks, (RowRange{2, 4}));
  EXPECT_DOUBLE_EQ(parts[1].access, 4);
  EXPECT_FALSE(parts[1].access_bound);
  // B: the same shape (6 + 6 = 12).
  EXPECT_EQ(parts[2].ranks, (RowRange{0, 2}));
  EXPECT_TRUE(parts[2].access_bound);
  EXPECT_EQ(parts[3].ranks, (RowRange{2, 4}));
  // C (uniform): three rows reach both 12 accesses and 48 B: [0, 3), then [3, 4).
  EXPECT_EQ(parts[4].ranks, (RowRange{0, 3}));
  EXPECT_DOUBLE_EQ(parts[4].access, 12);
  EXPECT_DOUBLE_EQ(parts[4].bytes, 48);
  EXPECT_EQ(parts[5].ranks, (RowRange{3, 4}));
  EXPECT_DOUBLE_EQ(parts[5].row_bytes, 16);
  // Threshold 10%: at most 4.8 accesses and 19.2 B (1 row): every row alone; a row hotter than
  // the threshold (A's first, 8 accesses) is a partition of its own.
  const std::vector<Partition> fine = partition_tables(ctx, 0.1);
  EXPECT_EQ(fine.size(), 12u);
  EXPECT_DOUBLE_EQ(fine[0].access, 8);
  EXPECT_TRUE(fine[0].access_bound);
  // Threshold 1: one partition per table.
  EXPECT_EQ(partition_tables(ctx, 1.0).size(), 3u);
}

TEST(OperModelParallel, AccessBoundByWorkloadThenMemoryBoundByMemory) {
  const OperFixture f = fig2();
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  const std::vector<Partition> parts = partition_tables(ctx, 0.25);
  MemoryBudget budget(ctx, 0);
  const ModelParallel mp = balanced_model_parallel(ctx, parts, L, budget, 0);
  // Access-bound, largest access first (ties by table): A[0,2) 12 -> GPU 0; B[0,2) 12 -> GPU 1;
  // C[0,3) 12 -> tie -> GPU 0; C[3,4) 4 (access-bound: 4/12 = 16/48) -> GPU 1.
  EXPECT_EQ(mp.owner[0], 0);
  EXPECT_EQ(mp.owner[2], 1);
  EXPECT_EQ(mp.owner[4], 0);
  EXPECT_EQ(mp.owner[5], 1);
  // Memory-bound, largest first: M = 32 + 48 = 80 B on GPU 0, 32 + 16 = 48 B on GPU 1:
  // A[2,4) (32 B) -> GPU 1 (80 | 80), then B[2,4) -> the tie -> GPU 0 (112 | 80).
  EXPECT_EQ(mp.owner[1], 1);
  EXPECT_EQ(mp.owner[3], 0);
  EXPECT_DOUBLE_EQ(mp.memory_bytes[0], 112);
  EXPECT_DOUBLE_EQ(mp.memory_bytes[1], 80);
  // E (Eq. 2, both GPUs fetch everything): GPU 0 serves 12 + 12 + 4 = 28 accesses, GPU 1
  // 12 + 4 + 4 = 20: E = accesses x 2 x 24 ps.
  EXPECT_NEAR(mp.lookup_s[0], 28 * 2 * 24e-12, 1e-22);
  EXPECT_NEAR(mp.lookup_s[1], 20 * 2 * 24e-12, 1e-22);
  EXPECT_DOUBLE_EQ(mp.balance(), std::min(20.0 / 28.0, 80.0 / 112.0));
}

TEST(OperModelParallel, ThresholdBackOff) {
  // One uniform table of 8 rows on 2 GPUs. Threshold 1: a single partition, all on one GPU
  // (balance 0); halved to 0.5: two halves, one per GPU (balance 1).
  const OperFixture f(2, 1, {std::vector<double>(8, 1.0)}, 16);
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  const MemoryBudget budget(ctx, 0);
  const BackoffResult r = model_parallel_with_backoff(ctx, L, 1.0, 0.9, budget, 0);
  EXPECT_TRUE(r.reached);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_DOUBLE_EQ(r.threshold, 0.5);
  EXPECT_EQ(r.partitions.size(), 2u);
  EXPECT_DOUBLE_EQ(r.placement.balance(), 1.0);
  ASSERT_TRUE(r.budget.has_value());
  // No target: the first partitioning is kept.
  const BackoffResult once = model_parallel_with_backoff(ctx, L, 1.0, 0.0, budget, 0);
  EXPECT_EQ(once.attempts, 1);
  EXPECT_DOUBLE_EQ(once.threshold, 1.0);
  // A target no partitioning can reach (3 equal rows on 2 GPUs: always 2 | 1): every back-off
  // is tried and the most balanced attempt (the earliest with 1/2) is returned.
  const OperFixture g(2, 1, {std::vector<double>(3, 1.0)}, 16);
  const auto gctx = g.ctx();
  const MemoryBudget gbudget(gctx, 0);
  const BackoffResult never = model_parallel_with_backoff(gctx, L, 1.0, 0.99, gbudget, 0);
  EXPECT_FALSE(never.reached);
  EXPECT_EQ(never.attempts, kMaxBackoffs + 1);
  EXPECT_DOUBLE_EQ(never.placement.balance(), 0.5);
  EXPECT_DOUBLE_EQ(never.threshold, 0.5);  // threshold 1 gives 0; 0.5 gives rows 2 | 1
}

TEST(OperModelParallel, AHotRowLowersAnUnreachableTarget) {
  // One table of rows weighted 9, 1, 1, 1 on 4 GPUs: the hottest row is a partition at every
  // threshold, so some GPU carries 9 of the 12 units and the least loaded at most (12 − 9) / 3:
  // no placement balances better than 1/9. The 0.9 target becomes 0.9 / 9 = 0.1, reached when
  // every row is a partition (threshold 1/4, whose footprint cap is one row: loads 9, 1, 1, 1);
  // without the bound all eleven partitionings would be tried.
  const OperFixture f(4, 1, {{9, 1, 1, 1}}, 16);
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  EXPECT_NEAR(lookup_balance_bound(ctx, L), 1.0 / 9, 1e-12);
  const MemoryBudget budget(ctx, 0);
  const BackoffResult r = model_parallel_with_backoff(ctx, L, 1.0, 0.9, budget, 0);
  EXPECT_TRUE(r.reached);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_DOUBLE_EQ(r.threshold, 0.25);
  EXPECT_NEAR(r.placement.balance(), 1.0 / 9, 1e-12);
  // A target the bound allows is kept as given: the uniform table of the test above.
  const OperFixture u(2, 1, {std::vector<double>(8, 1.0)}, 16);
  EXPECT_DOUBLE_EQ(lookup_balance_bound(u.ctx(), CostMatrix(u.cluster, u.cost)), 1.0);
}

TEST(OperModelParallel, FailsCleanlyWhenAPartitionFitsNowhere) {
  OperFixture f = fig2();
  f.cluster = Cluster(
      [] {
        HardwarePreset p = testing::hand_preset(2);
        p.gpu.hbm_capacity_bytes = 1;  // less than the base memory alone
        return p;
      }(),
      1);
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  MemoryBudget budget(ctx, 0);
  EXPECT_THROW(balanced_model_parallel(ctx, partition_tables(ctx, 0.25), L, budget, 0),
               DoesNotFitError);
}

}  // namespace
}  // namespace shardsim::oper
