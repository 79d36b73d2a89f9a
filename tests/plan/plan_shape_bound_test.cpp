// Every registered planner's declared shape bound (PlannerInfo::shape_bound, used by the
// resource guard) holds for the plans it actually makes: a planner added later is checked here
// without a line of this test changing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "plan/plan_fixture.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::options_for;
using testing::PlanFixture;

PlanShapeInput shape_of(const PlanFixture& f, const std::string& planner,
                        const OptionValues& options) {
  PlanShapeInput in =
      plan_shape_input(f.cluster.preset(), f.cluster.num_nodes(), f.model, f.workload);
  in.options = planner_options_of(planner, options);
  return in;
}

void expect_within_bound(const PlanFixture& f, const std::string& planner,
                         const OptionValues& options) {
  SCOPED_TRACE(planner + " with " + std::to_string(options.size()) + " options");
  const Plan plan = f.plan(planner, options);
  const PlanShapeBound bound =
      find_planner(planner, {}, "test").shape_bound(shape_of(f, planner, options));
  EXPECT_LE(static_cast<double>(plan.shards.size()), bound.max_shards);
  std::map<std::size_t, std::set<std::pair<std::uint64_t, std::uint64_t>>> blocks;
  std::map<std::tuple<std::size_t, std::uint64_t, std::uint64_t, std::uint32_t>, int> holders;
  for (const Shard& s : plan.shards) {
    blocks[s.table].insert({s.rows.begin, s.rows.end});
    ++holders[{s.table, s.rows.begin, s.rows.end, s.cols.begin}];
  }
  for (const auto& [table, ranges] : blocks) {
    EXPECT_LE(static_cast<double>(ranges.size()), bound.max_blocks_per_table) << "table " << table;
  }
  if (!bound.may_replicate) {
    for (const auto& [key, count] : holders) EXPECT_EQ(count, 1) << "a replica";
  }
  // The plan's own shape (the guard's second look) counts what the loops above count.
  const PlanShapeBound shape = plan_shape_of(plan);
  EXPECT_EQ(shape.max_shards, static_cast<double>(plan.shards.size()));
  std::size_t most_blocks = 0;
  for (const auto& [table, ranges] : blocks) most_blocks = std::max(most_blocks, ranges.size());
  EXPECT_EQ(shape.max_blocks_per_table, static_cast<double>(most_blocks));
  std::set<std::size_t> replicated;
  for (const auto& [key, count] : holders) {
    if (count > 1) replicated.insert(std::get<0>(key));
  }
  EXPECT_EQ(shape.max_replicated_tables, static_cast<double>(replicated.size()));
  EXPECT_LE(shape.max_shards, bound.max_shards);
  EXPECT_LE(shape.max_blocks_per_table, bound.max_blocks_per_table);
}

TEST(PlanShapeBound, HoldsForEveryRegisteredPlanner) {
  // Skewed tables of several sizes and widths on 2 nodes x 4 GPUs, room for replicas.
  const PlanFixture f(testing::hand_preset(4), 2,
                      model_of({{200000, 64, 8, 1.1},
                                {5000, 16, 2, 0.9},
                                {80000, 32, 20, 1.2},
                                {300, 128, 1, 0},
                                {40000, 8, 4, 1.05}}),
                      64, /*synthetic=*/true);
  for (const PlannerInfo& info : planner_registry()) {
    expect_within_bound(f, info.name, options_for(info.name));
  }
  expect_within_bound(f, "oper", {{"threshold", 0.01}});
  expect_within_bound(f, "table_wise", {{"split_oversized", true}});  // cuts the two largest tables
  expect_within_bound(f, "table_wise", {{"row_wise_above_bytes", 1e5}});  // the largest row-wise
  expect_within_bound(f, "table_wise", {{"row_wise_above_bytes", 1e3}, {"split_oversized", true}});
  expect_within_bound(f, "access_greedy", {{"chunks_per_gpu", 64}});
  expect_within_bound(f, "access_greedy", {{"chunks_per_gpu", 4096}, {"headroom", 0.5}});
}

TEST(PlanShapeBound, AccessGreedyChunksFollowItsOptionsAndTheFreeMemory) {
  PlanShapeInput in;
  in.tables = 10;
  in.gpus = 100;
  in.table_bytes = 50e9;
  in.hbm_bytes_per_gpu = 80e9;
  in.base_bytes_per_gpu = 30e9;
  const auto bound = [&](const OptionValues& options) {
    in.options = planner_options_of("access_greedy", options);
    return find_planner("access_greedy", {}, "test").shape_bound(in).max_shards;
  };
  // 10 + 16 x 100 + 2 x 16 x 50 / 50 + 10 = 1652.
  EXPECT_DOUBLE_EQ(bound({}), 1652);
  // headroom 0.25: 30 GB free, 2 x 64 x 50 / 30 more by memory.
  EXPECT_DOUBLE_EQ(bound({{"chunks_per_gpu", 64}, {"headroom", 0.25}}),
                   10 + 6400 + 2 * 64 * 50.0 / 30 + 10);
  // No free memory: a chunk may be a row; the access-only bound of the largest chunks_per_gpu.
  in.base_bytes_per_gpu = 90e9;
  EXPECT_DOUBLE_EQ(bound({}), 10 + 4096 * 100);
}

TEST(PlanShapeBound, WorstCaseIsTheMostAnyPlanCanHold) {
  PlanShapeInput in;
  in.tables = 3;
  in.gpus = 16;
  const PlanShapeBound b = worst_case_shape(in);
  EXPECT_EQ(b.max_shards, 48);
  EXPECT_EQ(b.max_blocks_per_table, 16);
  EXPECT_TRUE(b.may_replicate);
}

}  // namespace
}  // namespace shardsim
