// The hand-sized end-to-end case of the walking skeleton: plan, simulate, iteration times.
#include <gtest/gtest.h>

#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/simulation.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

using testing::hand_model;
using testing::plan_with;

// The hand-sized case of the walking-skeleton issue: 2 GPUs on one node, 2 tables, table-wise,
// fixed pooling, uniform access. Computed by hand (the numbers below were worked out with a
// calculator from docs/model.md's formulas):
//
//   B = 1024 samples per GPU, pooling 10, rows N = 1e6, dim 64 (fp32 rows of 256 B).
//   Table-wise puts t0 on GPU 0 and t1 on GPU 1 (equal cost; least-loaded first).
//   Each shard serves both GPUs: L = 2·1024·10 = 20480 lookups, O = 2048 pooled outputs,
//   distinct D = N·(1 − (1 − 1/N)^L) = 20271.72.
//   forward bytes = 8L + 8O + (D + 0.25(L − D))·256 + 256·O = 5,907,402 B
//     -> lookup_fwd = 5.907402e-6 s at 1000 GB/s
//   backward bytes = 32L + (O + 0.25(L − O))·256 + 2D(256 + 4) = 12,900,590 B
//     -> update = 12.900590e-6 s
//   AlltoAll (each way): 1024·64·4 = 262,144 B per GPU over 100 GB/s NVSwitch = 2.62144e-6 s
//   bottom MLP fwd: 2·1024·16·64 FLOP / 1 PFLOP/s = 2.097e-9 s (bwd twice that)
//   interaction fwd: 1024·(3·64 + 3 + 64)·4 B / 500 GB/s = 2.121728e-6 s
//   interaction bwd: 1024·(67 + 2·192)·4 B / 500 GB/s = 3.694592e-6 s
//   top MLP fwd: 2·1024·67 FLOP / 1 PFLOP/s = 1.37e-10 s (bwd twice that)
//   MLP AllReduce: 1156 params · 4 B, ring of 2: 2·(1/2)·4624 B / 100 GB/s = 4.6e-8 s
// Neo App. B Eq. 1:
//   fwd = max(bot, lookup + a2a) + inter + top = 8.529542e-6 + 2.121728e-6 + 1.4e-10
//       = 10.650707e-6 s
//   bwd = max(top_b + inter_b + max(a2a + update, bot_b), AR)
//       = 2.7e-10 + 3.694592e-6 + 15.522030e-6 = 19.216896e-6 s
//   iteration = 29.867604e-6 s
TEST(IterationBuilder, HandSizedTableWiseMatchesHandCalculation) {
  const Cluster cluster(testing::hand_preset(2), 1);
  const DlrmModel model = hand_model(2, 1'000'000, 64, 10);
  Workload wl;
  wl.batch_per_gpu = 1024;
  wl.iterations = 3;
  wl.warmup = 1;
  const testing::UniformTrace trace({1'000'000, 1'000'000}, {10, 10});
  const CostParams cost = testing::hand_cost_params();
  const PlanningContext ctx{cluster, model, wl, trace};
  const Plan plan = plan_with("table_wise", ctx);
  ASSERT_EQ(plan.shards.size(), 2u);
  EXPECT_EQ(plan.shards[0].gpu, 0);
  EXPECT_EQ(plan.shards[1].gpu, 1);

  const SimulationInputs in{cluster, model, wl, plan, trace, cost};
  const SimulationResult result = simulate(in);
  const std::vector<double> times = iteration_times_s(result);
  ASSERT_EQ(times.size(), 3u);
  for (double t : times) EXPECT_NEAR(t, 29.867604e-6, 0.01 * 29.867604e-6);
  // The embedding kernel time per GPU: 5.907402e-6 + 12.900590e-6.
  EXPECT_NEAR(result.iterations[1].lookup_s_by_gpu[0], 18.807992e-6, 1e-3 * 18.807992e-6);
  EXPECT_DOUBLE_EQ(result.iterations[1].lookups_by_gpu[0], 20480.0);
}

TEST(IterationBuilder, InferenceIsTheForwardPassOnly) {
  const Cluster cluster(testing::hand_preset(2), 1);
  const DlrmModel model = hand_model(2, 1'000'000, 64, 10);
  Workload wl;
  wl.mode = Mode::inference;
  wl.batch_per_gpu = 1024;
  wl.iterations = 2;
  wl.warmup = 0;
  const testing::UniformTrace trace({1'000'000, 1'000'000}, {10, 10});
  const CostParams cost = testing::hand_cost_params();
  const PlanningContext ctx{cluster, model, wl, trace};
  const Plan plan = plan_with("table_wise", ctx);
  // Eq. 1 has no input AlltoAll.
  SimulationOptions options;
  options.input_alltoall = InputAlltoall::none;
  const SimulationResult result = simulate({cluster, model, wl, plan, trace, cost, options});
  // fwd from the hand calculation above.
  for (double t : iteration_times_s(result)) EXPECT_NEAR(t, 10.650707e-6, 1e-8);
  EXPECT_EQ(result.comm.bwd.total(), 0.0);
}

}  // namespace
}  // namespace shardsim
