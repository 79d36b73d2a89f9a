// OPER §4.3: Algorithm 1 step by step, the extra-memory budget, and Eq. 4-5 at its boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "plan/oper/data_parallel.hpp"
#include "plan/oper/oper_fixture.hpp"
#include "plan/oper/partitioning.hpp"

namespace shardsim::oper {
namespace {

using testing::OperFixture;

// 2 nodes x 2 GPUs, rows of 16 B: L = 24 ps local, 160 ps in the node, 1600 ps across.
constexpr double l0 = 24e-12, l1 = 160e-12, l2 = 1600e-12;

Partition part(double access, double bytes) {
  Partition p;
  p.ranks = {0, 1};  // one row: density = access
  p.access = access;
  p.bytes = bytes;
  p.row_bytes = 16;
  return p;
}

TEST(OperAlgorithm1, StepByStep) {
  const OperFixture f(2, 2, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  // P0..P3 on GPUs 0..3 with accesses 10, 6, 4, 2 per GPU batch, 100 B each; available memory
  // 150, 150, 250, 50 B.
  const std::vector<Partition> parts = {part(10, 100), part(6, 100), part(4, 100), part(2, 100)};
  const std::vector<int> owner = {0, 1, 2, 3};
  const InferenceDataParallel dp = inference_data_parallel(parts, owner, L, {150, 150, 250, 50});
  // CL before: GPU 0 pays 6·l1 = 960 ps to GPU 1, 4·l2 = 6400 ps to GPU 2, 2·l2 = 3200 ps to
  // GPU 3; GPU 1 pays 10·l1 = 1600, 6400, 3200; GPU 2 pays 16000, 9600, -, 2·l1 = 320;
  // GPU 3 pays 16000, 9600, 4·l1 = 640.
  // Round 1:
  //  GPU 0: max is GPU 2 (6400): copies P2 (100 < 150). GPU 1 (fetching P2 from GPU 2 at l2)
  //         now fetches it from GPU 0 at l1: CL[1][0] = 1600 + 640 = 2240, CL[1][2] = 0.
  //  GPU 1: max is GPU 3 (3200): copies P3; GPU 0 switches P3 to GPU 1: CL[0][1] = 960 + 320.
  //  GPU 2: max is GPU 0 (16000): copies P0 (100 < 250); GPU 3 switches P0 to GPU 2:
  //         CL[3][0] = 0, CL[3][2] = 640 + 1600 = 2240.
  //  GPU 3: max is GPU 1 (9600): P1 (100) does not fit in 50 B: GPU 3 stops.
  // Round 2:
  //  GPU 0: max is GPU 1 (1280): P1 and P3 (100 B each) do not fit its 50 B: stops.
  //  GPU 1: max is GPU 0 (2240): P0, P2 do not fit: stops.
  //  GPU 2: max is GPU 1 (9600): copies P1 (100 < 150); GPU 3 switches P1 to GPU 2.
  // Round 3:
  //  GPU 2: max is GPU 3 (320): P3 does not fit 50 B: stops.
  ASSERT_EQ(dp.steps.size(), 4u);
  const std::vector<std::array<std::size_t, 3>> expected = {
      {0, 2, 2}, {1, 3, 3}, {2, 0, 0}, {2, 1, 1}};
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(static_cast<std::size_t>(dp.steps[k].gpu), expected[k][0]);
    EXPECT_EQ(static_cast<std::size_t>(dp.steps[k].target), expected[k][1]);
    EXPECT_EQ(dp.steps[k].partition, expected[k][2]);
  }
  // Fetch paths (P_k): a copy on a node serves that node.
  EXPECT_EQ(dp.placement.fetch[0], (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(dp.placement.fetch[1], (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(dp.placement.fetch[2], (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(dp.placement.fetch[3], (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(dp.available, (std::vector<double>{50, 50, 50, 50}));
  // The final CL is Eq. 3 of the final placement.
  const ModelTotals t = evaluate(parts, dp.placement, L);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(dp.comm_s[i * 4 + j], t.comm(i, j), 1e-21) << i << "," << j;
    }
  }
  // GPU 3 now fetches everything from its node neighbour: 10 + 6 + 4 accesses at l1.
  EXPECT_NEAR(t.fetch_s(3), 20 * l1, 1e-21);
  EXPECT_NEAR(t.comm(3, 3), 2 * l0, 1e-21);
  EXPECT_NEAR(t.fetch_s(0), (6 + 2) * l1, 1e-21);
  (void)l2;
}

TEST(OperAlgorithm1, NoBudgetNoCopies) {
  const OperFixture f(2, 2, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  const std::vector<Partition> parts = {part(10, 100), part(6, 100)};
  const InferenceDataParallel dp =
      inference_data_parallel(parts, std::vector<int>{0, 1}, L, {0, 0, 0, 0});
  EXPECT_TRUE(dp.steps.empty());
  EXPECT_EQ(dp.placement.fetch[0], (std::vector<int>{0, 0, 0, 0}));
  // Line 7 is strict: a partition exactly the size of the free memory is not copied.
  const InferenceDataParallel eq =
      inference_data_parallel(parts, std::vector<int>{0, 1}, L, {100, 100, 100, 100});
  EXPECT_TRUE(eq.steps.empty());
}

TEST(OperAvailableMemory, ExtraBudgetShareCappedByFreeMemory) {
  // (1 + 5%) x 1000 B / 2 GPUs = 525 B per GPU, of which 25 B extra. GPU 0 holds 500 B (25 B
  // left), GPU 1 holds 510 B (15 B left); GPU 0's HBM has only 10 B free.
  const std::vector<double> mem = {500, 510}, free = {10, 1e9};
  const std::vector<double> a = available_memory(mem, 1000, 0.05, free);
  EXPECT_DOUBLE_EQ(a[0], 10);
  EXPECT_DOUBLE_EQ(a[1], 15);
  // A GPU left light by model parallelism (400 B) may still take only its 25 B of extra; one
  // over its share (530 B) takes nothing; no ratio, no copies.
  const std::vector<double> roomy = {1e9, 1e9};
  const std::vector<double> uneven = {400, 530};
  const std::vector<double> b = available_memory(uneven, 1000, 0.05, roomy);
  EXPECT_DOUBLE_EQ(b[0], 25);
  EXPECT_DOUBLE_EQ(b[1], 0);
  EXPECT_EQ(available_memory(uneven, 1000, 0.0, roomy), (std::vector<double>{0, 0}));
}

TEST(OperTrainingRule, ThresholdIsBwP2PoverBwAR) {
  // Hand preset, 2 GPUs in one node, no losses or latencies: a row of S bytes costs
  // t_P2P = S / 100 GB/s; the ring AllReduce of X bytes over 2 GPUs takes 2·(1/2)·X / 100 GB/s,
  // so BW_AR = 2·(1/2)·X / that = 100 GB/s: duplicate when A > S / (BW_AR · t_P2P) = 1.
  const OperFixture f(2, 1, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  EXPECT_NEAR(duplication_threshold(f.cluster, L, 16, 1e6, f.cost), 1.0, 1e-12);
  // With a 0.16 ns per-row overhead the fetch costs twice as much: threshold 1/2.
  CostParams c = f.cost;
  c.one_sided_scale_up_overhead_s = 0.16e-9;
  const CostMatrix M(f.cluster, c);
  EXPECT_NEAR(duplication_threshold(f.cluster, M, 16, 1e6, c), 0.5, 1e-12);
  // No sync buffer (no extra memory) or one GPU: never duplicate.
  EXPECT_TRUE(std::isinf(duplication_threshold(f.cluster, L, 16, 0, f.cost)));
}

// 1000 rows' weights: rows 0-2 accessed 1.01, 1 + 1e-9 and 1 - 1e-9 times per batch of 1000,
// the other 997 sharing the rest.
std::vector<double> three_rows_near_one() {
  std::vector<double> w = {1.01, 1 + 1e-9, 1 - 1e-9};
  w.resize(1000, (1000 - (1.01 + 1 + 1e-9 + 1 - 1e-9)) / 997);
  return w;
}

TEST(OperTrainingRule, DuplicatesOnlyRowsAboveTheThreshold) {
  // One table, batch 1000, pooling 1, threshold 1 access per GPU batch (see above). Rows 0-2
  // are accessed 1.01, 1 + 1e-9 and 1 - 1e-9 times per batch; the other 997 share the rest.
  const OperFixture f(2, 1, {three_rows_near_one()}, 1000, Mode::training);
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  Partition p;
  p.table = 0;
  p.ranks = {0, 1000};
  p.access = 1000;
  p.bytes = 1000 * row_footprint_bytes(ctx, 0);
  p.row_bytes = 16;
  const TrainingDataParallel dp =
      training_data_parallel(ctx, std::vector<Partition>{p}, std::vector<int>{0}, L, {1e9, 1e9},
                             1e6, DuplicationUnit::hot_rows);
  // The partition is cut after the two rows above 1: [0, 2) duplicated, [2, 1000) not.
  ASSERT_EQ(dp.partitions.size(), 2u);
  EXPECT_EQ(dp.partitions[0].ranks, (RowRange{0, 2}));
  EXPECT_TRUE(dp.duplicated[0]);
  EXPECT_TRUE(dp.placement.on_every_gpu(0));  // each GPU serves itself from its copy
  EXPECT_EQ(dp.placement.source(0, 0), 0);
  EXPECT_EQ(dp.placement.source(0, 1), 1);
  EXPECT_EQ(dp.placement.holders(0, 2), (std::vector<int>{0, 1}));
  EXPECT_FALSE(dp.placement.on_every_gpu(1));
  EXPECT_EQ(dp.placement.source(1, 1), 0);
  EXPECT_EQ(dp.partitions[1].ranks, (RowRange{2, 1000}));
  EXPECT_FALSE(dp.duplicated[1]);
  EXPECT_NEAR(dp.partitions[0].access + dp.partitions[1].access, 1000, 1e-9);
  // Two rows of 16 B weights + 4 B row-wise AdaGrad state left GPU 1's memory.
  EXPECT_DOUBLE_EQ(dp.available[1], 1e9 - 2 * 20);
  EXPECT_DOUBLE_EQ(dp.available[0], 1e9);
  // Not enough memory on the other GPU (40 B needed, 40 available: strict): nothing copied.
  const TrainingDataParallel none =
      training_data_parallel(ctx, std::vector<Partition>{p}, std::vector<int>{0}, L, {1e9, 40}, 1e6,
                             DuplicationUnit::hot_rows);
  ASSERT_EQ(none.partitions.size(), 1u);
  EXPECT_FALSE(none.duplicated[0]);
}

TEST(OperTrainingRule, DuplicatesWholePartitionsByTheirMeanAccessPerRow) {
  // The fixture of the previous test, the paper's unit (OPER §4.3, Fig. 3c): a partition is
  // copied whole when its access per row per GPU batch exceeds the threshold (1).
  const OperFixture f(2, 1, {three_rows_near_one()}, 1000, Mode::training);
  const auto ctx = f.ctx();
  const CostMatrix L(f.cluster, f.cost);
  const double fp = row_footprint_bytes(ctx, 0);
  auto partition = [&](RowRange ranks, double access) {
    Partition p;
    p.table = 0;
    p.ranks = ranks;
    p.access = access;
    p.bytes = static_cast<double>(ranks.size()) * fp;
    p.row_bytes = 16;
    return p;
  };
  // [0, 3): 3.01 accesses over 3 rows (1.0033 a row) > 1: copied whole, row 2 (below 1 on its
  // own) included. [3, 1000): 996.99 over 997 rows (0.99999 a row): stays model-parallel.
  const std::vector<Partition> parts = {partition({0, 3}, 3.01), partition({3, 1000}, 996.99)};
  const TrainingDataParallel dp =
      training_data_parallel(ctx, parts, std::vector<int>{0, 1}, L, {1e9, 1e9}, 1e6);
  ASSERT_EQ(dp.partitions.size(), 2u);
  EXPECT_EQ(dp.partitions[0].ranks, (RowRange{0, 3}));
  EXPECT_DOUBLE_EQ(dp.partitions[0].access, 3.01);  // the partition's own access, not re-cut
  EXPECT_TRUE(dp.duplicated[0]);
  EXPECT_TRUE(dp.placement.on_every_gpu(0));
  EXPECT_FALSE(dp.duplicated[1]);
  EXPECT_DOUBLE_EQ(dp.available[1], 1e9 - 3 * fp);  // the copy on GPU 1 (its owner is GPU 0)
  EXPECT_DOUBLE_EQ(dp.available[0], 1e9);
  // The per-row rule on the same partitions copies only the two rows above 1.
  const TrainingDataParallel rows = training_data_parallel(
      ctx, parts, std::vector<int>{0, 1}, L, {1e9, 1e9}, 1e6, DuplicationUnit::hot_rows);
  ASSERT_EQ(rows.partitions.size(), 3u);
  EXPECT_EQ(rows.partitions[0].ranks, (RowRange{0, 2}));
  EXPECT_TRUE(rows.duplicated[0]);
  EXPECT_FALSE(rows.duplicated[1]);
}

}  // namespace
}  // namespace shardsim::oper
