// Plan statistics against hand calculations (uniform access, round-number hardware).
#include "shardsim/plan/plan_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "plan/plan_fixture.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

CostParams round_params() {
  CostParams p = testing::hand_cost_params();  // no collective latency, efficiency 1
  p.repeat_lookup_hbm_fraction = 0.5;
  p.index_bytes_per_lookup = 8;
  p.offset_bytes_per_output = 8;
  p.backward_index_bytes_per_lookup = 32;
  p.backward_sort_pass_bytes_per_lookup = 0;
  return p;
}

Shard whole(std::size_t table, const DlrmModel& m, int gpu, int replica = 0,
            ShardKind kind = ShardKind::table_wise) {
  return Shard{table,
               {0, m.tables[table].rows},
               RowSpace::row_id,
               {0, m.tables[table].dim},
               gpu,
               replica,
               kind,
               {}};
}

TEST(PlanStats, TwoTablesOnTwoGpusByHand) {
  // 1 node x 2 GPUs (HBM 1e12 B/s achievable, NVLink 100 GB/s, no launch costs); two tables of
  // 1000 x 16 (fp32), pooling 2, batch 10 per GPU; t0 on GPU 0, t1 on GPU 1.
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{1000, 16, 2}, {1000, 16, 2}}), 10);
  Plan plan;
  plan.planner = "hand";
  plan.shards = {whole(0, f.model, 0), whole(1, f.model, 1)};
  const CostParams p = round_params();
  const PlanStats st = compute_plan_stats(plan, f.cluster, f.model, f.workload, *f.trace, p);
  ASSERT_EQ(st.gpus.size(), 2u);
  const GpuPlanStats& g = st.gpus[0];
  // Each table serves both GPUs: L = 2 GPUs x 10 samples x 2 = 40 lookups, O = 20 outputs,
  // D = 1000 (1 - (1 - 1/1000)^40) distinct rows (uniform access), rows of 16 x 4 = 64 B.
  const double D = 1000 * (1 - std::pow(1 - 1e-3, 40));
  EXPECT_DOUBLE_EQ(g.lookups, 40);
  // forward bytes = 40 x 8 (indices) + 20 x 8 (offsets) + (D + (40 - D) x 0.5) x 64 (rows)
  //               + 20 x 64 (outputs) = 3040 + 32 D
  EXPECT_NEAR(g.fwd_compute_s, (3040 + 32 * D) / 1e12, 1e-18);
  // backward bytes = 40 x 32 (sort) + (20 + 20 x 0.5) x 64 (gradients) + 2 D (64 + 4) (update)
  //                = 3200 + 136 D
  EXPECT_NEAR(g.bwd_compute_s, (3200 + 136 * D) / 1e12, 1e-18);
  // Indices in: 40 x 8 B; pooled vectors out: 20 x 16 x 4 B.
  EXPECT_DOUBLE_EQ(g.input_bytes, 320);
  EXPECT_DOUBLE_EQ(g.output_bytes, 1280);
  // AlltoAll: GPU 0 sends 10 x 16 x 4 = 640 B to GPU 1 and receives as much: 640 / 100e9 s each
  // way; gradients the same backward.
  EXPECT_DOUBLE_EQ(g.fwd_comm_s, 6.4e-9);
  EXPECT_DOUBLE_EQ(g.bwd_comm_s, 6.4e-9);
  EXPECT_DOUBLE_EQ(g.sync_comm_s, 0);
  EXPECT_DOUBLE_EQ(g.comm_sent_bytes, 1280);
  EXPECT_DOUBLE_EQ(g.comm_received_bytes, 1280);
  EXPECT_DOUBLE_EQ(st.alltoall_fwd_s, 6.4e-9);
  EXPECT_DOUBLE_EQ(st.alltoall_bwd_s, 6.4e-9);
  EXPECT_EQ(g.shards_by_kind[static_cast<int>(ShardKind::table_wise)], 1);
  EXPECT_EQ(st.shards_by_kind[static_cast<int>(ShardKind::table_wise)], 2);
  // Balance: both GPUs alike.
  EXPECT_DOUBLE_EQ(st.estimated_degree_of_balance, 1);
  EXPECT_DOUBLE_EQ(st.lookups.lower_bound, 40);  // 80 lookups / 2 GPUs
  EXPECT_DOUBLE_EQ(st.lookups.gap_to_bound(), 0);
  EXPECT_DOUBLE_EQ(st.total_s.max_minus_min(), 0);
  // Memory: the bound stores each table once (64000 + 4000 B) split evenly; each GPU also holds
  // its shard's activations: 20 outputs x 64 B x 2 (with gradients) + 40 indices x 8 B = 2880 B.
  const double base = base_gpu_memory(f.cluster, f.model, f.workload).total_bytes();
  EXPECT_DOUBLE_EQ(st.memory_bytes.lower_bound, base + 68000);
  EXPECT_DOUBLE_EQ(st.memory_bytes.max, base + 68000 + 2880);
  EXPECT_DOUBLE_EQ(g.hbm_used_bytes, g.memory.total_bytes());
  EXPECT_NEAR(st.memory_bytes.gap_to_bound(), 2880 / (base + 68000), 1e-15);
}

TEST(PlanStats, ReplicasServeTheirOwnGpuAndSynchronise) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{1000, 16, 2}}), 10);
  Plan plan;
  plan.shards = {whole(0, f.model, 0, 0, ShardKind::data_parallel),
                 whole(0, f.model, 1, 1, ShardKind::data_parallel)};
  const PlanStats st =
      compute_plan_stats(plan, f.cluster, f.model, f.workload, *f.trace, round_params());
  for (const GpuPlanStats& g : st.gpus) {
    EXPECT_DOUBLE_EQ(g.lookups, 20);  // its own 10 samples x 2
    EXPECT_DOUBLE_EQ(g.comm_sent_bytes, 0);
    // Ring AllReduce of the 1000 x 16 x 4 = 64000 B gradient over 2 GPUs:
    // 2 (N-1)/N x S / bw = 64000 / 100e9 s.
    EXPECT_DOUBLE_EQ(g.sync_bytes, 64000);
    EXPECT_DOUBLE_EQ(g.sync_comm_s, 6.4e-7);
    EXPECT_EQ(g.shards_by_kind[static_cast<int>(ShardKind::data_parallel)], 1);
  }
  EXPECT_DOUBLE_EQ(st.alltoall_fwd_s, 0);
  // Inference: no backward, no synchronisation.
  Workload inference = f.workload;
  inference.mode = Mode::inference;
  const PlanStats inf =
      compute_plan_stats(plan, f.cluster, f.model, inference, *f.trace, round_params());
  EXPECT_DOUBLE_EQ(inf.gpus[0].sync_comm_s, 0);
  EXPECT_DOUBLE_EQ(inf.gpus[0].bwd_compute_s, 0);
}

TEST(PlanStats, LookupsAddUpOverRowShardsAndPlannersCompare) {
  // A skewed table split row-wise: the shards' expected lookups add up to all lookups, whatever
  // the split; table_wise on one table leaves three of four GPUs idle (gap 300%).
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{100000, 32, 8, 1.1}}), 64, true,
                      HotRowLayout::clustered);
  for (const std::string& name : {std::string("row_wise"), std::string("table_wise")}) {
    const Plan plan = f.valid_plan(name);
    const PlanStats st =
        compute_plan_stats(plan, f.cluster, f.model, f.workload, *f.trace, round_params());
    double total = 0;
    for (const GpuPlanStats& g : st.gpus) total += g.lookups;
    EXPECT_NEAR(total, 4 * 64 * 8, 1e-9);
    if (name == "table_wise") {
      EXPECT_NEAR(st.lookups.gap_to_bound(), 3.0, 1e-12);
      EXPECT_DOUBLE_EQ(st.lookups.min, 0);
    }
  }
}

}  // namespace
}  // namespace shardsim
