#include "shardsim/sim/iteration_builder.hpp"

#include <gtest/gtest.h>

#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/simulation.hpp"
#include "shardsim/trace/synthetic_trace_source.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

using testing::hand_model;
using testing::plan_with;

// Conservation: the communication matrix sums to the bytes the plan must move. Row-wise on n
// GPUs: every shard sends each other GPU its partial sums, B·dim·4 bytes, for every table.
TEST(IterationBuilder, RowWiseCommunicationIsConserved) {
  const int n = 4;
  const Cluster cluster(testing::hand_preset(n), 1);
  const DlrmModel model = hand_model(3, 1000, 32, 5);
  Workload wl;
  wl.batch_per_gpu = 256;
  const testing::UniformTrace trace({1000, 1000, 1000}, {5, 5, 5});
  const PlanningContext ctx{cluster, model, wl, trace};
  const Plan plan = plan_with("row_wise", ctx);
  const IterationBuilder b({cluster, model, wl, plan, trace, testing::hand_cost_params()});
  const double expected = 3.0 * n * (n - 1) * 256 * 32 * 4;
  EXPECT_DOUBLE_EQ(b.comm().fwd.total(), expected);
  EXPECT_DOUBLE_EQ(b.comm().bwd.total(), expected);
  for (int g = 0; g < n; ++g) EXPECT_EQ(b.comm().fwd_matrix.at(g, g), 0.0);
  // Lookups are conserved too: every GPU's batch is served, n·B·pooling per table in all.
  TaskGraph graph;
  const IterationTasks it = b.append(graph, 0, nullptr);
  double lookups = 0;
  for (double l : it.lookups_by_gpu) lookups += l;
  EXPECT_NEAR(lookups, 3.0 * n * 256 * 5, 1e-6);
}

// The expected-mode trace draws the same every iteration, so the builder draws once and applies
// each iteration's slowdowns: the same simulation, to the bit, as drawing every iteration.
class EveryIterationDrawn final : public TraceSource {
 public:
  explicit EveryIterationDrawn(const TraceSource& inner) : inner_(inner) {}
  std::size_t num_tables() const override { return inner_.num_tables(); }
  const AccessProfile& profile(std::size_t t) const override { return inner_.profile(t); }
  TableIterationDraw draw(std::size_t t, int iteration, int gpus, std::uint32_t samples,
                          std::span<const RowBlock> blocks) const override {
    return inner_.draw(t, iteration, gpus, samples, blocks);
  }

 private:
  const TraceSource& inner_;
};

TEST(IterationBuilder, ARepeatedDrawIsTheSameAsDrawingEveryIteration) {
  const Cluster cluster(testing::hand_preset(4), 2);
  DlrmModel model = hand_model(6, 50'000, 32, 8);
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    model.tables[t].alpha = 1.05;
    model.tables[t].pooling.kind = PoolingSpec::Kind::lognormal;
    model.tables[t].pooling.mean = 8;
    model.tables[t].pooling.sigma = 0.5;
  }
  Workload wl;
  wl.batch_per_gpu = 256;
  wl.iterations = 4;
  wl.warmup = 1;
  const SyntheticTraceSource trace(model, wl);
  ASSERT_TRUE(trace.same_draw_every_iteration());
  const EveryIterationDrawn drawn(trace);
  SimulationOptions o;
  o.jitter_cv = 0.1;
  o.stragglers = {{3, 1.5}};
  for (const char* planner : {"table_row_wise", "column_wise", "data_parallel"}) {
    const Plan plan = plan_with(planner, {cluster, model, wl, trace});
    const SimulationResult once =
        simulate({cluster, model, wl, plan, trace, default_cost_params(), o});
    const SimulationResult every =
        simulate({cluster, model, wl, plan, drawn, default_cost_params(), o});
    ASSERT_EQ(once.timeline.spans.size(), every.timeline.spans.size()) << planner;
    for (std::size_t i = 0; i < once.timeline.spans.size(); ++i) {
      EXPECT_EQ(once.timeline.spans[i].start_s, every.timeline.spans[i].start_s) << planner;
      EXPECT_EQ(once.timeline.spans[i].end_s, every.timeline.spans[i].end_s) << planner;
    }
    ASSERT_EQ(once.iterations.size(), every.iterations.size());
    for (std::size_t i = 0; i < once.iterations.size(); ++i) {
      EXPECT_EQ(once.iterations[i].lookup_s_by_gpu, every.iterations[i].lookup_s_by_gpu);
      EXPECT_EQ(once.iterations[i].lookups_by_gpu, every.iterations[i].lookups_by_gpu);
    }
  }
}

TEST(IterationBuilder, DataParallelHasNoAlltoAllButSyncsReplicas) {
  const int n = 2;
  const Cluster cluster(testing::hand_preset(n), 1);
  const DlrmModel model = hand_model(2, 1000, 16, 2);
  Workload wl;
  wl.batch_per_gpu = 128;
  const testing::UniformTrace trace({1000, 1000}, {2, 2});
  const PlanningContext ctx{cluster, model, wl, trace};
  const Plan plan = plan_with("data_parallel", ctx);
  const IterationBuilder b({cluster, model, wl, plan, trace, testing::hand_cost_params()});
  EXPECT_EQ(b.comm().fwd.total(), 0.0);
  TaskGraph graph;
  b.append(graph, 0, nullptr);
  int replica_syncs = 0, alltoalls = 0;
  for (const Task& t : graph.tasks) {
    replica_syncs += t.phase == Phase::embedding_replica_allreduce;
    alltoalls += t.phase == Phase::alltoall_fwd || t.phase == Phase::alltoall_bwd;
  }
  EXPECT_EQ(alltoalls, 0);
  EXPECT_EQ(replica_syncs, n);  // one AllReduce, one member per GPU
}

}  // namespace
}  // namespace shardsim
