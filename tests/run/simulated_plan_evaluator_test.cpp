// The evaluator the runners hand to planners: the same mean iteration time `run` reports for the
// same plan, and +infinity for a plan that does not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "../support/ideal_cost.hpp"
#include "run/simulated_plan_evaluator.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {
namespace {

Scenario small_scenario() {
  Scenario sc;
  sc.name = "evaluator";
  sc.source = "simulated_plan_evaluator_test";
  sc.cluster.preset = builtin_preset("dgx-a100");
  sc.cluster.nodes = 1;
  for (int i = 0; i < 6; ++i) {
    EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = 10000u * static_cast<std::uint64_t>(i + 1);
    t.dim = 16u << (i % 3);
    t.pooling.value = 1 + i;
    t.alpha = 1.0;
    sc.model.tables.push_back(t);
  }
  sc.model.dense_features = 8;
  sc.model.bottom_mlp = {32, 16};
  sc.model.top_mlp = {32, 1};
  sc.workload.batch_per_gpu = 512;
  sc.workload.iterations = 3;
  sc.workload.warmup = 1;
  sc.placement.planners = {"table_wise"};
  sc.cost = ideal_default_cost_params();
  return sc;
}

TEST(SimulatedPlanEvaluator, GivesTheMeanIterationTimeRunReports) {
  const Scenario sc = small_scenario();
  const std::vector<Report> reports = run_scenario(sc);
  ASSERT_EQ(reports.size(), 1u);
  const auto& times = reports[0].iteration_times_s;
  ASSERT_FALSE(times.empty());
  const double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();

  const Cluster cluster(sc.cluster.preset, sc.cluster.nodes);
  const auto trace = make_trace_source(sc.model, sc.workload);
  const SimulatedPlanEvaluator evaluator(cluster, sc, *trace);
  const PlanningContext ctx{cluster, sc.model, sc.workload, *trace, &sc.cost, &evaluator};
  const Plan plan = make_planner("table_wise")->plan(ctx);
  EXPECT_DOUBLE_EQ(evaluator.iteration_s(plan), mean);
}

TEST(SimulatedPlanEvaluator, APlanThatDoesNotFitIsInfinitelySlow) {
  Scenario sc = small_scenario();
  sc.model.tables[0].rows = 4'000'000'000;  // 4e9 x 16 fp32 = 256 GB on one GPU
  const Cluster cluster(sc.cluster.preset, sc.cluster.nodes);
  const auto trace = make_trace_source(sc.model, sc.workload);
  const SimulatedPlanEvaluator evaluator(cluster, sc, *trace);
  Plan plan;
  for (std::size_t t = 0; t < sc.model.tables.size(); ++t) {
    plan.shards.push_back(whole_table_shard(t, sc.model.tables[t].rows, sc.model.tables[t].dim));
  }
  EXPECT_TRUE(std::isinf(evaluator.iteration_s(plan)));
}

}  // namespace
}  // namespace shardsim
