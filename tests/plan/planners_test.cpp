#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/serving.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

DlrmModel model_with(std::vector<std::pair<std::uint64_t, std::uint32_t>> tables,
                     double pooling = 1) {
  DlrmModel m;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = tables[i].first;
    t.dim = tables[i].second;
    t.pooling.value = pooling;
    m.tables.push_back(t);
  }
  m.dense_features = 4;
  m.bottom_mlp = {8};
  m.top_mlp = {1};
  return m;
}

Plan run_planner(const std::string& name, const Cluster& c, const DlrmModel& m, const Workload& w,
                 OptionValues options = {}) {
  std::vector<std::uint64_t> rows;
  std::vector<double> pooling;
  for (const auto& t : m.tables) {
    rows.push_back(t.rows);
    pooling.push_back(t.pooling.value);
  }
  const testing::UniformTrace trace(rows, pooling);
  const auto planner = make_planner(name, std::move(options));
  return planner->plan(PlanningContext{c, m, w, trace});
}

TEST(TableWise, GreedyByLookupCostBalancesLoad) {
  const Cluster c(testing::hand_preset(2), 1);
  // lookup cost = dim x pooling: 128, 64, 64, 32, 32 -> GPU0 {128}, GPU1 {64, 64}... greedy:
  // 128 -> g0; 64 -> g1; 64 -> g1 (64 < 128); 32 -> g0? loads g0 128, g1 128 -> tie -> g0;
  // 32 -> g1. Final loads 160 / 160.
  const DlrmModel m = model_with({{100, 128}, {100, 64}, {100, 64}, {100, 32}, {100, 32}});
  Workload w;
  w.batch_per_gpu = 16;
  const Plan p = run_planner("table_wise", c, m, w);
  std::vector<double> load(2, 0);
  for (const Shard& s : p.shards) load[s.gpu] += m.tables[s.table].dim;
  EXPECT_EQ(load[0], 160);
  EXPECT_EQ(load[1], 160);
  validate_plan(p, c, m, "test");
}

TEST(TableWise, RespectsMemoryAndFailsClearlyWhenNothingFits) {
  HardwarePreset preset = testing::hand_preset(2);
  preset.gpu.hbm_capacity_bytes = 600e3;  // 600 KB GPUs
  const Cluster c(preset, 1);
  // 4000 rows x 16 x 4 B = 256 KB + optimizer 16 KB = 272 KB a table (plus about 2 KB of
  // activations and MLP state): two fit per GPU (about 546 KB), three (819 KB) do not.
  const DlrmModel m = model_with({{4000, 16}, {4000, 16}, {4000, 16}, {4000, 16}});
  Workload w;
  w.batch_per_gpu = 1;
  const Plan p = run_planner("table_wise", c, m, w);
  for (const GpuMemory& g : plan_memory(p, c, m, w)) EXPECT_LE(g.total_bytes(), 600e3);
  const DlrmModel big = model_with({{400000, 16}});
  EXPECT_THROW(run_planner("table_wise", c, big, w), DoesNotFitError);
}

TEST(TableWise, RejectsUnknownOptions) {
  const Cluster c(testing::hand_preset(2), 1);
  const DlrmModel m = model_with({{100, 16}});
  Workload w;
  w.batch_per_gpu = 1;
  EXPECT_THROW(run_planner("table_wise", c, m, w, {{"costt", "size"}}), std::invalid_argument);
  EXPECT_THROW(run_planner("table_wise", c, m, w, {{"cost", "sizes"}}), std::invalid_argument);
  EXPECT_NO_THROW(run_planner("table_wise", c, m, w, {{"cost", "size_lookup"}}));
}

// split_oversized (docs/planners.md): a table above a GPU's even share of all tables' bytes is
// cut into the fewest even row ranges of at most that share; the other tables stay whole.
TEST(TableWise, SplitOversizedCutsOnlyTheTableAboveTheShare) {
  HardwarePreset preset = testing::hand_preset(2);
  preset.gpu.hbm_capacity_bytes = 600e3;
  const Cluster c(preset, 1);
  // 10000 x 16 x 4 B = 640 KB + 40 KB of row-wise state = 680 KB: larger than a GPU. With the
  // two 68 KB tables the share is 816 / 2 = 408 KB, so the big table becomes 2 ranges of 340 KB.
  const DlrmModel m = model_with({{10000, 16}, {1000, 16}, {1000, 16}});
  Workload w;
  w.batch_per_gpu = 1;
  try {
    (void)run_planner("table_wise", c, m, w);
    ADD_FAILURE() << "a table larger than a GPU was placed whole";
  } catch (const DoesNotFitError& e) {  // the error names the table and the option
    EXPECT_NE(std::string(e.what()).find("table 't0'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("split_oversized: true"), std::string::npos) << e.what();
  }
  const Plan p = run_planner("table_wise", c, m, w, {{"split_oversized", true}});
  validate_plan(p, c, m, "test");
  std::vector<Shard> big;
  for (const Shard& s : p.shards) {
    if (s.table == 0) {
      big.push_back(s);
    } else {
      EXPECT_EQ(s.kind, ShardKind::table_wise);
      EXPECT_EQ(s.rows.end - s.rows.begin, 1000u);
    }
  }
  ASSERT_EQ(big.size(), 2u);
  std::sort(big.begin(), big.end(),
            [](const Shard& a, const Shard& b) { return a.rows.begin < b.rows.begin; });
  EXPECT_EQ(big[0].rows.begin, 0u);
  EXPECT_EQ(big[0].rows.end, 5000u);
  EXPECT_EQ(big[1].rows.begin, 5000u);
  EXPECT_EQ(big[1].rows.end, 10000u);
  EXPECT_NE(big[0].gpu, big[1].gpu);
  for (const Shard& s : big) EXPECT_EQ(s.kind, ShardKind::row_wise);
  for (const GpuMemory& g : plan_memory(p, c, m, w)) EXPECT_LE(g.total_bytes(), 600e3);
  // Tables at or below the share are never cut, with or without the option.
  const DlrmModel even = model_with({{1000, 16}, {1000, 16}, {1000, 16}});
  const Plan whole = run_planner("table_wise", c, even, w, {{"split_oversized", true}});
  EXPECT_EQ(whole.shards.size(), 3u);
  try {
    (void)run_planner("table_wise", c, m, w, {{"split_oversized", "sometimes"}});
    ADD_FAILURE() << "a non-boolean split_oversized was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("split_oversized"), std::string::npos) << e.what();
  }
}

// row_wise_above_bytes (docs/planners.md): tables storing more than B go row-wise over every
// GPU, range i on GPU i, each range's activations serving every GPU's batch (2D paper §2.2:
// they grow with the GPU count); the other tables stay whole and are packed as before.
TEST(TableWise, RowWiseAboveBytesShardsOnlyTheLargeTablesOverEveryGpu) {
  const Cluster c(testing::hand_preset(4), 1);
  // t0: 8000 x 16 x 4 B = 512 KB + 32 KB of row-wise state = 544 KB; t1, t2: 68 KB each.
  const DlrmModel m = model_with({{8000, 16}, {1000, 16}, {1000, 16}});
  Workload w;
  w.batch_per_gpu = 8;
  const Plan p = run_planner("table_wise", c, m, w, {{"row_wise_above_bytes", 100e3}});
  validate_plan(p, c, m, "test");
  std::vector<int> big_gpus;
  for (const Shard& s : p.shards) {
    if (s.table == 0) {
      EXPECT_EQ(s.kind, ShardKind::row_wise);
      EXPECT_EQ(s.rows.end - s.rows.begin, 2000u);
      EXPECT_EQ(s.rows.begin, 2000u * static_cast<std::uint64_t>(s.gpu));
      big_gpus.push_back(s.gpu);
    } else {
      EXPECT_EQ(s.kind, ShardKind::table_wise);
      EXPECT_EQ(s.rows.end - s.rows.begin, 1000u);
    }
  }
  EXPECT_EQ(big_gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p.shards.size(), 6u);
  // Each range holds the pooled output of the 4 GPUs' 32 samples: 32 x 16 dims; a whole table
  // would hold the same on one GPU, so the row-wise table adds its buffer on every GPU.
  const auto memory = plan_memory(p, c, m, w);
  const auto whole = plan_memory(run_planner("table_wise", c, m, w), c, m, w);
  double rw_total = 0, whole_total = 0;
  for (const GpuMemory& g : memory) rw_total += g.total_bytes();
  for (const GpuMemory& g : whole) whole_total += g.total_bytes();
  EXPECT_GT(rw_total, whole_total);
  // At or above every table's bytes, or 0 (the default), nothing changes.
  const Plan off = run_planner("table_wise", c, m, w, {{"row_wise_above_bytes", 600e3}});
  EXPECT_EQ(off.shards.size(), 3u);
  EXPECT_EQ(run_planner("table_wise", c, m, w).shards.size(), 3u);
}

TEST(RowWise, EvenContiguousRangesCoverEveryRow) {
  const Cluster c(testing::hand_preset(4), 1);
  const DlrmModel m = model_with({{10, 16}, {3, 16}});
  Workload w;
  w.batch_per_gpu = 1;
  const Plan p = run_planner("row_wise", c, m, w);
  validate_plan(p, c, m, "test");
  // 10 rows over 4 GPUs: 3, 3, 2, 2. 3 rows: one each on GPUs 0-2.
  std::vector<std::uint64_t> sizes;
  for (const Shard& s : p.shards) {
    if (s.table == 0) sizes.push_back(s.rows.size());
  }
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{3, 3, 2, 2}));
  EXPECT_EQ(p.shards.size(), 7u);
}

TEST(DataParallel, ReplicatesOnEveryGpuAndServesLocally) {
  const Cluster c(testing::hand_preset(4), 1);
  const DlrmModel m = model_with({{10, 16}});
  Workload w;
  w.batch_per_gpu = 1;
  const Plan p = run_planner("data_parallel", c, m, w);
  validate_plan(p, c, m, "test");
  const ServingMap s = build_serving_map(p, c);
  ASSERT_EQ(s.sets.size(), 1u);
  for (int g = 0; g < 4; ++g) EXPECT_EQ(p.shards[s.server(0, g)].gpu, g);
}

TEST(Serving, NearestReplicaServesAndOverridesWin) {
  // 2 nodes x 2 GPUs; replicas of one table on GPUs 1 and 2.
  const Cluster c(testing::hand_preset(2), 2);
  const DlrmModel m = model_with({{10, 16}});
  Plan p;
  for (int g : {1, 2})
    p.shards.push_back(Shard{0, {0, 10}, RowSpace::row_id, {0, 16}, g, g, {}, {}});
  ServingMap s = build_serving_map(p, c);
  EXPECT_EQ(p.shards[s.server(0, 0)].gpu, 1);  // same node as GPU 1
  EXPECT_EQ(p.shards[s.server(0, 3)].gpu, 2);  // same node as GPU 2
  p.fetch_overrides.push_back(FetchOverride{0, 3});
  s = build_serving_map(p, c);
  EXPECT_EQ(p.shards[s.server(0, 3)].gpu, 1);
}

TEST(Validation, NamesTheTableAndRowsAtFault) {
  const Cluster c(testing::hand_preset(2), 1);
  const DlrmModel m = model_with({{10, 16}});
  Plan missing;
  missing.shards.push_back(Shard{0, {0, 6}, RowSpace::row_id, {0, 16}, 0, 0, {}, {}});
  try {
    validate_plan(missing, c, m, "plan.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rows [6, 10) are not placed"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("t0"), std::string::npos);
  }
  Plan overlap = missing;
  overlap.shards.push_back(Shard{0, {4, 10}, RowSpace::row_id, {0, 16}, 1, 0, {}, {}});
  EXPECT_THROW(validate_plan(overlap, c, m, "plan.yaml"), InputError);
  Plan bad_gpu;
  bad_gpu.shards.push_back(Shard{0, {0, 10}, RowSpace::row_id, {0, 16}, 9999, 0, {}, {}});
  try {
    validate_plan(bad_gpu, c, m, "plan.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 9999"), std::string::npos);
  }
  Plan cols;
  cols.shards.push_back(Shard{0, {0, 10}, RowSpace::row_id, {0, 8}, 0, 0, {}, {}});
  EXPECT_THROW(validate_plan(cols, c, m, "plan.yaml"), InputError);
}

TEST(Memory, HandCalculatedFootprint) {
  HardwarePreset preset = testing::hand_preset(2);
  preset.reserved_memory_bytes = 1e9;
  const Cluster c(preset, 1);
  const DlrmModel m = model_with({{1000, 16}}, 2);
  Workload w;
  w.batch_per_gpu = 10;
  const Plan p = run_planner("table_wise", c, m, w);
  const auto mem = plan_memory(p, c, m, w);
  const int owner = p.shards[0].gpu;
  // weights 1000 x 16 x 4 = 64000 B; row-wise AdaGrad state 1000 x 4 = 4000 B.
  EXPECT_DOUBLE_EQ(mem[owner].weights_bytes, 64000);
  EXPECT_DOUBLE_EQ(mem[owner].optimizer_bytes, 4000);
  EXPECT_DOUBLE_EQ(mem[1 - owner].weights_bytes, 0);
  // The shard serves 2 GPUs x 10 samples: outputs 20 x 16 x 4 = 1280 B, gradients the same,
  // indices 20 x 2 x 8 = 320 B: 2880 B more activation than the other GPU.
  EXPECT_DOUBLE_EQ(mem[owner].activation_bytes - mem[1 - owner].activation_bytes, 2880);
  EXPECT_DOUBLE_EQ(mem[owner].reserved_bytes, 1e9);
  Workload inf = w;
  inf.mode = Mode::inference;
  EXPECT_DOUBLE_EQ(plan_memory(p, c, m, inf)[owner].optimizer_bytes, 0);
}

TEST(Registry, UnknownPlannerSuggestsTheNearestName) {
  try {
    find_planner("table_wis", SourceLocation{"s.yaml", 7, 3}, "placement.planner");
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("s.yaml:7:3"), std::string::npos);
    EXPECT_NE(msg.find("did you mean 'table_wise'"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace shardsim
