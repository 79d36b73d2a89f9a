#pragma once
// What each GPU's host issues per iteration under the plan and the framework's profile
// (docs/model.md, "Host overhead"; configs/host/frameworks.yaml): embedding ops by the
// framework's grouping, the lookup distributions' collective calls per sharding kind, the DDP
// gradient buckets and the replica and peer syncs. cost/host_step_cost.hpp prices it.
#include <vector>

#include "shardsim/cost/host_framework.hpp"
#include "shardsim/cost/host_step_cost.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/simulation_inputs.hpp"

namespace shardsim {

// `cost.host_framework` resolved: "auto" is `oper` for one-sided plans, `torchrec` otherwise.
const HostFramework& plan_host_framework(const Plan& plan, const CostParams& cost);

// Per GPU. `dense_grad_bytes`: the DDP AllReduce's payload (0 in inference).
std::vector<HostWork> host_work_by_gpu(const SimulationInputs& in, const PlanAnalysis& analysis,
                                       double dense_grad_bytes);

}  // namespace shardsim
