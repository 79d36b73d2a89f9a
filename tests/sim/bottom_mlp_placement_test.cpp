// A bottom MLP on one GPU (Plan::bottom_mlp_gpu), as NVIDIA's PyTorch DLRM runs it: the global
// batch on that GPU, its output in the pooled AlltoAll, no AllReduce of its gradients.
#include <gtest/gtest.h>

#include <algorithm>

#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/iteration_builder.hpp"
#include "shardsim/sim/plan_traffic.hpp"
#include "shardsim/sim/simulation.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

using testing::hand_model;
using testing::plan_with;

constexpr int kGpus = 4;
constexpr std::uint32_t kBatch = 128;

// 4 equal tables of dim 64 table-wise on 4 GPUs; dense 16 -> bottom [64] -> top [1].
struct FourTables {
  Cluster cluster{testing::hand_preset(kGpus), 1};
  DlrmModel model = hand_model(4, 1000, 64, 10);
  Workload wl;
  testing::UniformTrace trace{{1000, 1000, 1000, 1000}, {10, 10, 10, 10}};
  CostParams cost = testing::hand_cost_params();
  Plan plan;
  FourTables() {
    wl.batch_per_gpu = kBatch;
    plan = plan_with("table_wise", {cluster, model, wl, trace});
  }
  PlanTraffic traffic(int bottom_gpu) {
    Plan p = plan;
    p.bottom_mlp_gpu = bottom_gpu;
    const SimulationInputs in{cluster, model, wl, p, trace, cost};
    return plan_traffic(in, analyze_plan(p, cluster, model, wl, trace, cost));
  }
};

// Conservation: the bottom GPU sends every other GPU its samples' 64-wide output forward and gets
// the same bytes back as gradients; nothing else moves.
TEST(BottomMlpPlacement, TheOutputRidesInThePooledAlltoAll) {
  FourTables s;
  const PlanTraffic dp = s.traffic(-1);
  const PlanTraffic one = s.traffic(2);
  const double vector_bytes = kBatch * 64 * 4.0;
  EXPECT_DOUBLE_EQ(one.comm.fwd.total(), dp.comm.fwd.total() + (kGpus - 1) * vector_bytes);
  EXPECT_DOUBLE_EQ(one.comm.bwd.total(), dp.comm.bwd.total() + (kGpus - 1) * vector_bytes);
  for (int g = 0; g < kGpus; ++g) {
    const double extra = g == 2 ? 0.0 : vector_bytes;
    EXPECT_DOUBLE_EQ(one.comm.fwd_matrix.at(2, g), dp.comm.fwd_matrix.at(2, g) + extra) << g;
    EXPECT_DOUBLE_EQ(one.comm.bwd_matrix.at(g, 2), dp.comm.bwd_matrix.at(g, 2) + extra) << g;
  }
  double fwd_a2a = 0, dp_a2a = 0;
  for (const SharedCollective& c : one.a2a_fwd) fwd_a2a += c.bytes;
  for (const SharedCollective& c : dp.a2a_fwd) dp_a2a += c.bytes;
  EXPECT_GT(fwd_a2a, dp_a2a);
}

// Its parameters live on one GPU: the AllReduce carries the top MLP's alone; its step runs on
// the global batch there, and the GPUs without it step the top MLP only.
TEST(BottomMlpPlacement, GlobalBatchOnOneGpuAndNoAllReduceOfItsGradients) {
  FourTables s;
  const PlanTraffic dp = s.traffic(-1);
  const PlanTraffic one = s.traffic(0);
  const double bottom_params = 16 * 64 + 64;
  ASSERT_EQ(s.model.bottom_mlp_parameter_count(), 16u * 64u + 64u);
  EXPECT_DOUBLE_EQ(dp.mlp_allreduce.bytes,
                   4.0 * static_cast<double>(s.model.dense_parameter_count()));
  EXPECT_DOUBLE_EQ(one.mlp_allreduce.bytes, dp.mlp_allreduce.bytes - 4.0 * bottom_params);
  const GpuSpec& gpu = s.cluster.gpu();
  const std::vector<std::uint32_t> layers = {64};
  EXPECT_DOUBLE_EQ(one.dense.bottom_fwd_s,
                   mlp_forward_s(gpu, 16, layers, kGpus * kBatch, Precision::tf32, s.cost));
  EXPECT_DOUBLE_EQ(one.dense.bottom_bwd_s,
                   mlp_backward_s(gpu, 16, layers, kGpus * kBatch, Precision::tf32, s.cost));
  EXPECT_DOUBLE_EQ(dp.dense.bottom_fwd_s,
                   mlp_forward_s(gpu, 16, layers, kBatch, Precision::tf32, s.cost));
  EXPECT_DOUBLE_EQ(one.dense.interaction_fwd_s, dp.dense.interaction_fwd_s);
  EXPECT_DOUBLE_EQ(one.dense.top_fwd_s, dp.dense.top_fwd_s);
  EXPECT_DOUBLE_EQ(one.dense.optimizer_s, dp.dense.optimizer_s);
  EXPECT_LT(one.dense.optimizer_without_bottom_s, one.dense.optimizer_s);
  EXPECT_DOUBLE_EQ(dp.dense.optimizer_without_bottom_s, dp.dense.optimizer_s);
}

// The tasks: the bottom MLP's forward and backward on its GPU alone; its forward before that
// GPU joins the forward AlltoAll, its backward after the backward AlltoAll.
TEST(BottomMlpPlacement, OnlyItsGpuRunsItBetweenTheAlltoAlls) {
  FourTables s;
  s.plan.bottom_mlp_gpu = 1;
  const IterationBuilder b({s.cluster, s.model, s.wl, s.plan, s.trace, s.cost});
  TaskGraph graph;
  (void)b.append(graph, 0, nullptr);
  int fwd = -1, bwd = -1;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const Task& t = graph.tasks[i];
    if (t.phase != Phase::bottom_mlp_fwd && t.phase != Phase::bottom_mlp_bwd) continue;
    EXPECT_EQ(t.gpu, 1) << to_string(t.phase);
    (t.phase == Phase::bottom_mlp_fwd ? fwd : bwd) = static_cast<int>(i);
  }
  ASSERT_GE(fwd, 0);
  ASSERT_GE(bwd, 0);
  bool fwd_before_a2a = false, bwd_after_a2a = false;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const Task& t = graph.tasks[i];
    if (t.gpu != 1) continue;
    const auto has = [&](int dep) {
      return std::find(t.deps.begin(), t.deps.end(), dep) != t.deps.end();
    };
    if (t.phase == Phase::alltoall_fwd && has(fwd)) fwd_before_a2a = true;
    if (static_cast<int>(i) == bwd) {
      for (int d : t.deps) bwd_after_a2a |= graph.tasks[d].phase == Phase::alltoall_bwd;
    }
  }
  EXPECT_TRUE(fwd_before_a2a);
  EXPECT_TRUE(bwd_after_a2a);
}

// Memory: its GPU keeps the layer outputs of the global batch; the others keep neither its
// parameters nor its layers, only its output as they receive it.
TEST(BottomMlpPlacement, ItsGpuHoldsTheGlobalBatchsLayers) {
  FourTables s;
  Plan one = s.plan;
  one.bottom_mlp_gpu = 3;
  const std::vector<GpuMemory> dp = plan_memory(s.plan, s.cluster, s.model, s.wl);
  const std::vector<GpuMemory> mem = plan_memory(one, s.cluster, s.model, s.wl);
  const double layers_bytes = 2.0 * kBatch * (16 + 64) * 4.0;  // training: outputs + gradients
  const double received_bytes = 2.0 * kBatch * 64 * 4.0;
  // Its share of the dense bytes (parameters, gradients, optimizer state alike).
  const double params_bytes =
      dp[0].dense_bytes * (16 * 64 + 64) / static_cast<double>(s.model.dense_parameter_count());
  for (int g = 0; g < kGpus; ++g) {
    if (g == 3) {
      EXPECT_DOUBLE_EQ(mem[g].activation_bytes,
                       dp[g].activation_bytes + (kGpus - 1) * layers_bytes);
      EXPECT_DOUBLE_EQ(mem[g].dense_bytes, dp[g].dense_bytes);
    } else {
      EXPECT_DOUBLE_EQ(mem[g].activation_bytes,
                       dp[g].activation_bytes - layers_bytes + received_bytes);
      EXPECT_DOUBLE_EQ(mem[g].dense_bytes, dp[g].dense_bytes - params_bytes);
    }
    EXPECT_DOUBLE_EQ(mem[g].weights_bytes, dp[g].weights_bytes);
  }
}

// On one GPU nothing moves: the same iteration as data parallel.
TEST(BottomMlpPlacement, OnOneGpuItIsDataParallel) {
  const Cluster cluster(testing::hand_preset(1), 1);
  const DlrmModel model = hand_model(2, 1000, 64, 10);
  Workload wl;
  wl.batch_per_gpu = kBatch;
  const testing::UniformTrace trace({1000, 1000}, {10, 10});
  Plan plan = plan_with("table_wise", {cluster, model, wl, trace});
  const CostParams cost = testing::hand_cost_params();
  const auto makespan_s = [&](const Plan& p) {
    const SimulationInputs in{cluster, model, wl, p, trace, cost};
    return simulate(in, analyze_plan(p, cluster, model, wl, trace, cost)).timeline.makespan_s;
  };
  const double dp = makespan_s(plan);
  plan.bottom_mlp_gpu = 0;
  EXPECT_GT(dp, 0);
  EXPECT_DOUBLE_EQ(makespan_s(plan), dp);
}

}  // namespace
}  // namespace shardsim
