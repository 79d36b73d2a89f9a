// nvidia_dlrm: NVIDIA's PyTorch DLRM plan (get_device_mapping), checked against the reference
// code's own output on hand-sized cases (computed by running its distribute_to_buckets).
#include <gtest/gtest.h>

#include "plan/plan_fixture.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

DlrmModel model_with_rows(const std::vector<std::uint64_t>& rows) {
  std::vector<testing::TableSpec> specs;
  for (std::uint64_t r : rows) specs.push_back({r, 16});
  return model_of(specs);
}

// The GPU of each table.
std::vector<int> gpus_of(const Plan& p, std::size_t tables) {
  std::vector<int> out(tables, -1);
  for (const Shard& s : p.shards) {
    EXPECT_EQ(s.rows.begin, 0u) << "table " << s.table;  // whole tables
    out[s.table] = s.gpu;
  }
  return out;
}

// Up to 4 GPUs every GPU takes tables and GPU 0 also the bottom MLP. The reference code on
// sizes [5000, 3000, 3000, 1000, 1000, 7000] and 4 GPUs (buckets of at most 2) gives
// [[2, 3], [1, 4], [0], [5]]: ties in table order, buckets re-sorted by their sums.
TEST(NvidiaDlrmPlanner, FourGpusShareTheTablesWithTheBottomMlp) {
  const PlanFixture f(testing::hand_preset(4), 1,
                      model_with_rows({5000, 3000, 3000, 1000, 1000, 7000}));
  const Plan p = f.valid_plan("nvidia_dlrm");
  EXPECT_EQ(p.bottom_mlp_gpu, 0);
  EXPECT_EQ(gpus_of(p, 6), (std::vector<int>{2, 1, 0, 0, 1, 3}));
}

// Above 4 GPUs, GPU 0 holds no table: 10 tables on 6 GPUs go into 5 buckets of at most 2, the
// reference's [[], [6, 7], [2, 3], [1, 4], [0, 8], [5, 9]].
TEST(NvidiaDlrmPlanner, AboveFourGpusGpuZeroRunsOnlyTheBottomMlp) {
  const PlanFixture f(testing::hand_preset(6), 1,
                      model_with_rows({5000, 3000, 3000, 1000, 1000, 7000, 2000, 2000, 100, 100}));
  const Plan p = f.valid_plan("nvidia_dlrm");
  EXPECT_EQ(p.bottom_mlp_gpu, 0);
  EXPECT_EQ(gpus_of(p, 10), (std::vector<int>{4, 3, 2, 2, 3, 5, 1, 1, 4, 5}));
}

// Fewer tables than buckets: one table a bucket, the rest of the GPUs hold none.
TEST(NvidiaDlrmPlanner, FewerTablesThanGpusLeaveGpusEmpty) {
  const PlanFixture f(testing::hand_preset(8), 1, model_with_rows({10, 10, 10}));
  const Plan p = f.valid_plan("nvidia_dlrm");
  EXPECT_EQ(gpus_of(p, 3), (std::vector<int>{1, 2, 3}));
}

// One GPU: everything there, and the bottom MLP data parallel (the same thing).
TEST(NvidiaDlrmPlanner, OneGpuKeepsTheBottomMlpDataParallel) {
  const PlanFixture f(testing::hand_preset(1), 1, model_with_rows({10, 20}));
  const Plan p = f.valid_plan("nvidia_dlrm");
  EXPECT_EQ(p.bottom_mlp_gpu, -1);
  EXPECT_EQ(gpus_of(p, 2), (std::vector<int>{0, 0}));
}

// The reference code checks no memory; a bucket that does not fit its GPU is a clean failure
// naming that GPU, and the bottom MLP's global batch counts on GPU 0.
TEST(NvidiaDlrmPlanner, ABucketThatDoesNotFitItsGpuFailsNamingIt) {
  HardwarePreset preset = testing::hand_preset(2);
  preset.gpu.hbm_capacity_bytes = 2e6;
  // 2 GPUs, 2 buckets of at most 2: [[1, 2], [0, 3]] by the reference (the bucket of the two
  // 10,000-row tables fills first): table 0 (25,000 rows of 64 B, 1.6 MB) and table 3 go to
  // GPU 1, over its 2 MB.
  const PlanFixture f(preset, 1, model_with_rows({25000, 10000, 10000, 5000}));
  try {
    (void)f.plan("nvidia_dlrm");
    ADD_FAILURE() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    EXPECT_EQ(e.gpu(), 1) << e.what();
    EXPECT_NE(std::string(e.what()).find("nvidia_dlrm"), std::string::npos) << e.what();
  }
  // With room it places them as the reference does, and within the capacity plan_memory counts.
  preset.gpu.hbm_capacity_bytes = 1e9;
  const PlanFixture roomy(preset, 1, model_with_rows({25000, 10000, 10000, 5000}));
  const Plan p = roomy.valid_plan("nvidia_dlrm");
  EXPECT_EQ(gpus_of(p, 4), (std::vector<int>{1, 0, 0, 1}));
  for (double m : roomy.memory_bytes(p)) EXPECT_LE(m, 1e9);
}

// A one-sided plan cannot carry the bottom MLP's output: the common option is refused.
TEST(NvidiaDlrmPlanner, OneSidedCommunicationIsRefused) {
  const PlanFixture f(testing::hand_preset(2), 1, model_with_rows({10, 20}));
  try {
    (void)f.valid_plan("nvidia_dlrm", {{"communication", "one_sided"}});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one-sided"), std::string::npos) << e.what();
    // Named by the plan it came from (no file holds the key).
    EXPECT_NE(std::string(e.what()).find("plan from nvidia_dlrm"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shardsim
