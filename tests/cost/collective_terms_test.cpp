// Re-pricing a collective from its terms agrees with building it anew (cost/collective_terms.hpp).
#include <gtest/gtest.h>

#include "shardsim/cost/collective_terms.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

CostParams with_model(CollectiveModelKind kind) {
  CostParams p = default_cost_params();
  p.collective_model = kind;
  return p;
}

// Other parameters of the same model: every priced term moved.
CostParams moved(CostParams p) {
  p.collective_bandwidth_efficiency = 0.7;
  p.collective_launch_s *= 2;
  p.nccl_ll_base_latency_s *= 1.5;
  p.nccl_simple_base_latency_s *= 0.5;
  p.nccl_ll128_scale_up_step_s *= 3;
  p.nccl_ll_scale_out_step_s *= 2;
  p.nccl_simple_scale_out_step_s *= 0.25;
  p.nccl_ll128_bandwidth_fraction = 0.6;
  p.alltoall_peer_scale_up_s *= 4;
  p.alltoall_peer_scale_out_s *= 0.5;
  p.alltoall_scale_out_latency_s *= 3;
  return p;
}

TEST(CollectiveTerms, RepricingMatchesAFreshPrediction) {
  for (const char* preset : {"dgx-a100", "dgx-h100", "aws-p4de"}) {
    for (int nodes : {1, 2, 16}) {
      const Cluster cluster(builtin_preset(preset), nodes);
      for (CollectiveModelKind kind : {CollectiveModelKind::nccl, CollectiveModelKind::ideal}) {
        const CostParams p = with_model(kind);
        const CostParams q = moved(p);
        for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather,
                                CollectiveOp::reduce_scatter, CollectiveOp::alltoall}) {
          for (double size : {8.0, 65536.0, 1.0e9}) {
            const CollectiveTerms t = collective_terms(cluster, op, size, p);
            for (const CostParams& r : {p, q}) {
              const double fresh = predict_collective(cluster, op, size, r).time_s;
              EXPECT_NEAR(price(t, r), fresh, 1e-12 * fresh)
                  << preset << " x" << nodes << " " << to_string(op) << " " << size;
            }
          }
        }
      }
    }
  }
}

TEST(CollectiveTerms, SendrecvIsHeldFixedAndModelsDoNotMix) {
  const Cluster cluster(builtin_preset("dgx-a100"), 2);
  const CostParams p = default_cost_params();
  const CollectiveTerms t = collective_terms(cluster, CollectiveOp::sendrecv, 1e6, p);
  EXPECT_TRUE(t.fixed);
  EXPECT_DOUBLE_EQ(price(t, moved(p)),
                   predict_collective(cluster, CollectiveOp::sendrecv, 1e6, p).time_s);
  const CollectiveTerms a = collective_terms(cluster, CollectiveOp::allreduce, 1e6, p);
  EXPECT_THROW(price(a, with_model(CollectiveModelKind::ideal)), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
