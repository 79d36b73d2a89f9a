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

PlanShapeInput shape_of(const PlanFixture& f, const std::string& options_yaml) {
  PlanShapeInput in;
  in.tables = static_cast<double>(f.model.tables.size());
  in.gpus = f.cluster.num_gpus();
  in.gpus_per_node = f.cluster.preset().gpus_per_node;
  for (const auto& t : f.model.tables) in.column_blocks += std::ceil(t.dim / 4.0);
  in.options = YamlValue(options_yaml.empty() ? YAML::Node() : YAML::Load(options_yaml),
                         "test.yaml", "placement.options");
  return in;
}

void expect_within_bound(const PlanFixture& f, const std::string& planner,
                         const std::string& options_yaml) {
  SCOPED_TRACE(planner + " " + options_yaml);
  const Plan plan = f.plan(planner, options_yaml);
  const PlanShapeBound bound =
      find_planner(planner, {}, "test").shape_bound(shape_of(f, options_yaml));
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
  expect_within_bound(f, "oper", "{threshold: 0.01}");
  expect_within_bound(f, "access_greedy", "{chunks_per_gpu: 64}");
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
