#pragma once
// Everything one simulation reads: the cluster, the model, the workload, the plan, the trace
// source, the cost parameters and the simulation options (all by reference but the options).
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
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
};

}  // namespace shardsim
