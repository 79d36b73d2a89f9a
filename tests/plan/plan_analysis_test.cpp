// The per-plan analysis (plan/plan_analysis.hpp): row blocks, served GPUs and memory, computed
// once, agree with their definitions.
#include "shardsim/plan/plan_analysis.hpp"

#include <gtest/gtest.h>

#include "plan/plan_fixture.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

TEST(PlanAnalysis, RowWiseCutsEveryTableIntoOneBlockPerGpu) {
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{4000, 16}, {1000, 32}}));
  const Plan plan = f.plan("row_wise");
  const PlanAnalysis a = analyze_plan(plan, f.cluster, f.model, f.workload, *f.trace, f.cost);
  ASSERT_EQ(a.blocks.of_table.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(a.blocks.of_table[t].size(), 4u);
    EXPECT_EQ(a.blocks.sets_of_table[t].size(), 4u);
    // Blocks are sorted by begin and cover the table.
    std::uint64_t end = 0;
    for (const RowBlock& b : a.blocks.of_table[t]) {
      EXPECT_EQ(b.rows.begin, end);
      end = b.rows.end;
    }
    EXPECT_EQ(end, f.model.tables[t].rows);
  }
  for (std::size_t k = 0; k < a.serving.sets.size(); ++k) {
    const ReplicaSet& set = a.serving.sets[k];
    const RowBlock& b = a.blocks.of_table[set.table][a.blocks.block_of_set[k]];
    EXPECT_EQ(b.rows.begin, set.rows.begin);
    EXPECT_EQ(b.rows.end, set.rows.end);
  }
  // Every shard of a row-wise plan is the only holder of its rows: it serves all 4 GPUs.
  for (double served : a.served_gpus_by_shard) EXPECT_EQ(served, 4);
  // Memory is plan_memory's; a pooled plan has no one-sided traffic; inference has no syncs.
  const std::vector<GpuMemory> memory = plan_memory(plan, f.cluster, f.model, f.workload);
  ASSERT_EQ(a.memory.size(), memory.size());
  for (std::size_t g = 0; g < memory.size(); ++g) {
    EXPECT_EQ(a.memory[g].total_bytes(), memory[g].total_bytes());
  }
  EXPECT_FALSE(a.one_sided_expected.has_value());
}

TEST(PlanAnalysis, DataParallelReplicasServeTheirOwnGpu) {
  PlanFixture f(testing::hand_preset(4), 1, model_of({{100, 16}}));
  f.workload.mode = Mode::training;
  const Plan plan = f.plan("data_parallel");
  const PlanAnalysis a = analyze_plan(plan, f.cluster, f.model, f.workload, *f.trace, f.cost);
  ASSERT_EQ(plan.shards.size(), 4u);
  for (double served : a.served_gpus_by_shard) EXPECT_EQ(served, 1);
  EXPECT_EQ(a.blocks.of_table[0].size(), 1u);  // one block, four replicas
  // Training: the replicas' gradients are synchronised by one collective over the 4 GPUs.
  ASSERT_EQ(a.replica_syncs.size(), 1u);
  EXPECT_EQ(a.replica_syncs[0].gpus, (std::vector<int>{0, 1, 2, 3}));
}

TEST(PlanAnalysis, OneSidedPlansCarryTheirExpectedTraffic) {
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{4000, 16}, {1000, 32}}));
  const Plan plan = f.plan("round_robin", {{"communication", "one_sided"}});
  const PlanAnalysis a = analyze_plan(plan, f.cluster, f.model, f.workload, *f.trace, f.cost);
  ASSERT_TRUE(a.one_sided_expected.has_value());
  EXPECT_EQ(a.one_sided_expected->lookups_served.size(), 4u);
}

}  // namespace
}  // namespace shardsim
