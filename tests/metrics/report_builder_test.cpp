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
  Report run(const std::string& planner, const SimulationOptions& options = {}) {
    const Plan plan = make_planner(planner)->plan({cluster, model, workload, trace});
    const SimulationInputs in{cluster, model, workload, plan, trace, cost, options};
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
  for (const auto& p : tw.breakdown) {
    EXPECT_LE(p.exposed_s - p.waiting_s, p.serialized_s + 1e-15) << p.phase;
    EXPECT_LE(p.waiting_s, p.exposed_s + 1e-15) << p.phase;
  }
  // Data parallel: no embedding traffic, so DoB is 1 by definition.
  EXPECT_DOUBLE_EQ(f.run("data_parallel").degree_of_balance, 1.0);
}

// Issue 18's whole-work imbalance, by hand. Data-parallel inference has no communication, so a
// GPU's busy time is its own kernels: w per iteration on every GPU when all are alike (ratio 1).
// With GPU 3 a straggler at 1.5x, nothing holds the others back: the iteration (window) is the
// straggler's 1.5w, busy all through; the fast GPUs do 5 iterations (1 warm-up + 4 measured) in
// 5w, 1.5w of them inside the warm-up window, so 3.5w in the 4 measured windows, 0.875w each,
// and then idle. busy_imbalance_ratio = 1.5 / ((3 x 0.875 + 1.5) / 4) = 16/11. The papers' lookup
// imbalance counts each iteration's lookup kernels wherever they run: 1.5 / (4.5 / 4) = 4/3.
TEST(ReportBuilder, BusyImbalanceRatioIsMaxOverMeanBusyTime) {
  Fixture f;
  f.workload.mode = Mode::inference;
  const Report even = f.run("data_parallel");
  EXPECT_NEAR(even.busy_imbalance_ratio, 1.0, 1e-12);
  EXPECT_NEAR(even.imbalance_ratio, 1.0, 1e-12);
  const double w = even.per_gpu[0].busy_s;
  ASSERT_GT(w, 0);
  SimulationOptions slow;
  slow.stragglers = {{3, 1.5}};
  const Report r = f.run("data_parallel", slow);
  for (const auto& g : r.per_gpu) {
    EXPECT_EQ(g.comm_transfer_s, 0.0);
    EXPECT_EQ(g.comm_wait_s, 0.0);
  }
  EXPECT_NEAR(r.iteration_time.mean_s, 1.5 * w, 1e-12 * w);
  EXPECT_NEAR(r.per_gpu[3].busy_s, 1.5 * w, 1e-12 * w);
  for (int g = 0; g < 3; ++g) EXPECT_NEAR(r.per_gpu[g].busy_s, 0.875 * w, 1e-12 * w) << g;
  EXPECT_NEAR(r.busy_imbalance_ratio, 16.0 / 11.0, 1e-12);
  EXPECT_NEAR(r.imbalance_ratio, 4.0 / 3.0, 1e-12);
  EXPECT_EQ(r.critical_gpu, 3);
  // Table-wise with one hot table (training): lookups are far more imbalanced than the whole
  // work, which adds the same dense compute and AlltoAll transfer to every GPU.
  Fixture t;
  const Report tw = t.run("table_wise");
  EXPECT_GT(tw.imbalance_ratio, tw.busy_imbalance_ratio);
  EXPECT_GT(tw.busy_imbalance_ratio, 1.0);
}

// Issue 18: every instant of the critical GPU's iteration is attributed to one phase, so the
// exposed column adds up to the iteration time; each GPU's time shares do too, and its comm
// times are its own (unions inside the iteration, never above it).
TEST(ReportBuilder, ExposedBreakdownAddsUpToTheIterationTime) {
  Fixture f;
  for (const char* planner : {"table_wise", "row_wise", "column_wise", "data_parallel"}) {
    const Report r = f.run(planner);
    const double it = r.iteration_time.mean_s;
    double exposed = 0;
    for (const auto& p : r.breakdown) exposed += p.exposed_s;
    EXPECT_NEAR(exposed, it, 1e-9 * it) << planner;
    double busy_max = 0;
    for (const auto& g : r.per_gpu) busy_max = std::max(busy_max, g.busy_s);
    EXPECT_EQ(r.per_gpu[static_cast<std::size_t>(r.critical_gpu)].busy_s, busy_max) << planner;
    for (const auto& g : r.per_gpu) {
      const GpuTimeShares& s = g.shares;
      EXPECT_NEAR(
          s.embedding_s + s.dense_compute_s + s.comm_s + s.comm_wait_s + s.host_s + s.idle_s, it,
          1e-9 * it)
          << planner << " GPU " << g.gpu;
      EXPECT_NEAR(g.busy_s + g.idle_s, it, 1e-9 * it);
      EXPECT_LE(g.comm_transfer_s, it * (1 + 1e-12));
      EXPECT_LE(g.comm_wait_s, it * (1 + 1e-12));
      EXPECT_LE(g.compute_s, g.busy_s * (1 + 1e-12));
      // The shares' kernels and transfers are parts of the busy time.
      EXPECT_NEAR(s.embedding_s + s.dense_compute_s + s.comm_s, g.busy_s, 1e-9 * it);
    }
    // The papers' lookup imbalance and the whole-work imbalance are both >= 1.
    EXPECT_GE(r.imbalance_ratio, 1.0 - 1e-12);
    EXPECT_GE(r.busy_imbalance_ratio, 1.0 - 1e-12);
  }
  // Table-wise with one hot table: the GPUs wait for the hot one at the AlltoAll, so the others
  // wait and the critical one does not; the waits differ from GPU to GPU.
  const Report tw = f.run("table_wise");
  double wait_min = 1, wait_max = 0;
  for (const auto& g : tw.per_gpu) {
    wait_min = std::min(wait_min, g.comm_wait_s);
    wait_max = std::max(wait_max, g.comm_wait_s);
  }
  EXPECT_GT(wait_max, wait_min);
}

}  // namespace
}  // namespace shardsim
