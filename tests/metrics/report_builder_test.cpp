#include "shardsim/metrics/report_builder.hpp"

#include <gtest/gtest.h>

#include "shardsim/plan/planner.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

TEST(Percentile, InterpolatesBetweenClosestRanks) {
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 0.99), 4.96);
  EXPECT_DOUBLE_EQ(percentile({7}, 0.99), 7);
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0);
}

struct Fixture {
  Cluster cluster{testing::hand_preset(4), 1};
  DlrmModel model;
  Workload workload;
  testing::UniformTrace trace{{100000, 100000, 100000, 100000, 100000}, {1, 1, 1, 1, 40}};
  CostParams cost = testing::hand_cost_params();
  Fixture() {
    for (int t = 0; t < 5; ++t) {
      EmbeddingTable e;
      e.name = "t" + std::to_string(t);
      e.rows = 100000;
      e.dim = 64;
      e.pooling.value = t == 4 ? 40 : 1;  // one hot table: table-wise is imbalanced
      model.tables.push_back(e);
    }
    model.dense_features = 13;
    model.bottom_mlp = {64};
    model.top_mlp = {64, 1};
    workload.batch_per_gpu = 2048;
    workload.iterations = 4;
    workload.warmup = 1;
  }
  Report run(const std::string& planner) {
    const Plan plan = find_planner(planner, {}, "t")
                          .make(YamlValue(YAML::Node(), "t", "o"))
                          ->plan({cluster, model, workload, trace});
    const SimulationInputs in{cluster, model, workload, plan, trace, cost};
    const auto memory = plan_memory(plan, cluster, model, workload);
    return build_report({"s", "s.yaml", ""}, in, simulate(in), memory);
  }
};

TEST(ReportBuilder, MetricsFollowTheirDefinitions) {
  Fixture f;
  const Report tw = f.run("table_wise");
  EXPECT_EQ(tw.num_gpus, 4);
  EXPECT_EQ(tw.iteration_times_s.size(), 4u);
  EXPECT_EQ(tw.global_batch, 4u * 2048u);
  EXPECT_NEAR(tw.qps, tw.global_batch / tw.iteration_time.mean_s, 1e-6 * tw.qps);
  EXPECT_LE(tw.iteration_time.min_s, tw.iteration_time.p50_s);
  EXPECT_LE(tw.iteration_time.p50_s, tw.iteration_time.p99_s);
  EXPECT_LE(tw.iteration_time.p99_s, tw.iteration_time.max_s);
  // Imbalance ratio = max / mean of per-GPU lookup time.
  double mx = 0, sum = 0;
  for (const auto& g : tw.per_gpu) {
    mx = std::max(mx, g.lookup_s);
    sum += g.lookup_s;
  }
  EXPECT_NEAR(tw.imbalance_ratio, mx / (sum / 4), 1e-12);
  EXPECT_GT(tw.imbalance_ratio, 1.5);  // the hot table sits on one GPU
  // Row-wise spreads every table evenly: balanced lookups.
  const Report rw = f.run("row_wise");
  EXPECT_NEAR(rw.imbalance_ratio, 1.0, 1e-6);
  EXPECT_NEAR(rw.degree_of_balance, 1.0, 1e-9);
  // Idle + busy never exceeds the iteration; breakdown phases are reported.
  for (const auto& g : tw.per_gpu) EXPECT_GE(g.idle_s, 0.0);
  EXPECT_FALSE(tw.breakdown.empty());
  for (const auto& p : tw.breakdown) EXPECT_LE(p.exposed_s, p.serialized_s + 1e-15);
  // Data parallel: no embedding traffic, so DoB is 1 by definition.
  EXPECT_DOUBLE_EQ(f.run("data_parallel").degree_of_balance, 1.0);
}

}  // namespace
}  // namespace shardsim
