#pragma once
// Everything one simulation reads: the cluster, the model, the workload, the plan, the trace
// source, the cost parameters, the simulation options and the collective model (all by
// reference but the options).
#include "shardsim/cost/collective_model.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/sim/network_model.hpp"
#include "shardsim/sim/simulation_options.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct SimulationInputs {
  const Cluster& cluster;
  const DlrmModel& model;
  const Workload& workload;
  const Plan& plan;
  const TraceSource& trace;
  const CostParams& cost;
  SimulationOptions options = {};
  // The cost of each collective on an idle network; null: alpha_beta_collectives().
  const CollectiveModel* collectives = nullptr;

  const CollectiveModel& collective_model() const {
    return collectives ? *collectives : alpha_beta_collectives();
  }
  // The network model `options.link_sharing` names (std::invalid_argument when none does).
  const NetworkModelType& network() const { return network_model(options.link_sharing).model; }
};

}  // namespace shardsim
