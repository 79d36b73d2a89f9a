#include "shardsim/sim/plan_traffic.hpp"

#include <gtest/gtest.h>

#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/plan/planner.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

using testing::hand_model;
using testing::plan_with;

// The MLP gradient AllReduce of a plan on 2 GPUs: its bytes and the pooled backward AlltoAll's.
struct Traffic {
  double mlp_allreduce_bytes = 0;
  double a2a_bwd_bytes = 0;
};

Traffic traffic_with(Precision comm_bwd, Precision dense_grads) {
  const Cluster cluster(testing::hand_preset(2), 1);
  DlrmModel model = hand_model(2, 1000, 64, 10);
  model.comm_bwd_precision = comm_bwd;
  model.dense_grad_precision = dense_grads;
  Workload wl;
  wl.batch_per_gpu = 128;
  const testing::UniformTrace trace({1000, 1000}, {10, 10});
  const Plan plan = plan_with("table_wise", {cluster, model, wl, trace});
  const CostParams cost = testing::hand_cost_params();
  const SimulationInputs in{cluster, model, wl, plan, trace, cost};
  const PlanTraffic t = plan_traffic(in, analyze_plan(plan, cluster, model, wl, trace, cost));
  return {t.mlp_allreduce.bytes, t.comm.bwd.total()};
}

// Neo §8.4 quantizes the AlltoAlls ("FP16 in forward AlltoAll and BF16 in backward AlltoAll"),
// and DLRM's MLP gradients go through DDP (Neo §7.2) in their parameters' fp32: a bf16 backward
// wire format halves the AlltoAll's gradients, not the MLP AllReduce.
TEST(PlanTraffic, TheMlpAllreduceMovesFp32GradientsWhateverTheEmbeddingWireFormat) {
  const DlrmModel model = hand_model(2, 1000, 64, 10);
  const double fp32_bytes = 4.0 * static_cast<double>(model.dense_parameter_count());
  ASSERT_GT(fp32_bytes, 0);
  const Traffic fp32 = traffic_with(Precision::fp32, Precision::fp32);
  const Traffic bf16_wire = traffic_with(Precision::bf16, Precision::fp32);
  EXPECT_DOUBLE_EQ(fp32.mlp_allreduce_bytes, fp32_bytes);
  EXPECT_DOUBLE_EQ(bf16_wire.mlp_allreduce_bytes, fp32_bytes);
  // Table-wise on 2 GPUs: each sends the other 128 samples x 64 columns of gradients.
  EXPECT_DOUBLE_EQ(fp32.a2a_bwd_bytes, 2 * 128 * 64 * 4.0);
  EXPECT_DOUBLE_EQ(bf16_wire.a2a_bwd_bytes, 2 * 128 * 64 * 2.0);
}

// dense_grads: bf16 (or fp16) is DDP's compression hook: half the bytes, the AlltoAll unchanged.
TEST(PlanTraffic, DenseGradsSetsTheMlpAllreduceFormatAlone) {
  const Traffic fp32 = traffic_with(Precision::fp32, Precision::fp32);
  for (Precision p : {Precision::bf16, Precision::fp16}) {
    const Traffic half = traffic_with(Precision::fp32, p);
    EXPECT_DOUBLE_EQ(half.mlp_allreduce_bytes, fp32.mlp_allreduce_bytes / 2);
    EXPECT_DOUBLE_EQ(half.a2a_bwd_bytes, fp32.a2a_bwd_bytes);
  }
}

}  // namespace
}  // namespace shardsim
