#pragma once
// The replica-synchronisation test case shared by tests/sim/replica_sync_test.cpp and
// tests/metrics/two_d_report_test.cpp: 2 hosts x 2 GPUs (scale-up 100 GB/s, NIC 10 GB/s per GPU,
// no latencies, no launch costs, efficiency 1); 4 tables of 1e6 x 64 fp32 with row-wise AdaGrad:
// 256 MB + 4 MB each; batch 256 per GPU, 4 iterations without warm-up, no link sharing.
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/iteration_builder.hpp"
#include "shardsim/sim/simulation_options.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim::testing {

struct SyncCase {
  Cluster cluster{hand_preset(2), 2};
  DlrmModel model = hand_model(4, 1'000'000, 64, 1);
  Workload wl;
  UniformTrace trace{{1'000'000, 1'000'000, 1'000'000, 1'000'000}, {1, 1, 1, 1}};
  CostParams cost = hand_cost_params();
  SimulationOptions options;

  SyncCase() {
    wl.batch_per_gpu = 256;
    wl.iterations = 4;
    wl.warmup = 0;
    options.link_sharing = "none";
  }
  PlanningContext ctx() const { return {cluster, model, wl, trace, &cost}; }
  SimulationInputs inputs(const Plan& p) const {
    return {cluster, model, wl, p, trace, cost, options};
  }
};

}  // namespace shardsim::testing
