#pragma once
// The per-plan half of an iteration (what no trace draw changes): the pooled-embedding AlltoAll
// of each sparse group, forward and backward (or, for one-sided plans, their expected gets and
// puts for the reports only), the replica and peer syncs, the MLP AllReduce — each a collective
// with its idle-network α-β time and, unless link sharing is off, the network demand the engine
// shares links with — plus the dense kernel times, the capacity of every link and the traffic
// the reports show. Built once per plan from the PlanAnalysis; every iteration reuses it.
#include <span>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/comm_traffic.hpp"
#include "shardsim/sim/simulation_inputs.hpp"

namespace shardsim {

// A collective issued every iteration with the same traffic.
struct SharedCollective {
  std::vector<int> gpus;
  double bytes = 0;
  double duration_s = 0;  // idle-network α-β time
  int demand_slot = -1;   // index into PlanTraffic::shared_demands, -1 without a network demand
};

// The dense part: identical on every GPU (data-parallel MLPs on the local batch), before
// stragglers and jitter.
struct DenseTimes {
  // The bottom MLP's times are for the global batch when one GPU runs it (Plan::bottom_mlp_gpu),
  // and only that GPU runs them.
  double bottom_fwd_s = 0, interaction_fwd_s = 0, top_fwd_s = 0;
  double top_bwd_s = 0, interaction_bwd_s = 0, bottom_bwd_s = 0;
  double optimizer_s = 0;  // the dense optimizer's step (training) over every dense parameter
  // The step on a GPU without the bottom MLP (Plan::bottom_mlp_gpu); optimizer_s otherwise.
  double optimizer_without_bottom_s = 0;
};

struct PlanTraffic {
  std::vector<std::vector<int>> a2a_groups;  // GPUs of each AlltoAll (one per sparse group)
  std::vector<SharedCollective> a2a_fwd, a2a_bwd;
  std::vector<SharedCollective> replica_syncs;  // gradients of replicas in a group (OPER §5.3)
  std::vector<SharedCollective> peer_syncs;     // 2D replica sync, after syncing iterations
  SharedCollective mlp_allreduce;
  std::vector<CollectiveDemand> shared_demands;  // added to the task graph once
  DenseTimes dense;
  // Each batch's delivery to a GPU (docs/model.md, "Data ingestion"); 0: not modelled.
  double input_delivery_s = 0;
  // The host's step on each GPU (docs/model.md, "Host overhead"); empty: not modelled.
  std::vector<double> host_step_s_by_gpu;
  // Whether the GPU's work of an iteration waits for the host's step (HostFramework::
  // collectives_return_to_host, on more than one GPU) instead of running beside it.
  bool host_step_serial = false;
  CommTraffic comm;                       // what the reports show, per iteration
  std::vector<double> link_capacity_Bps;  // bandwidth x collective efficiency, per link
};

// Bad options (a straggler on a GPU the cluster lacks, per-flow sharing on too many GPUs) are
// std::invalid_argument: the scenario loader reports them as input errors first.
PlanTraffic plan_traffic(const SimulationInputs& in, const PlanAnalysis& analysis);

// The AlltoAll demand of one group's traffic among the group's GPUs; per-flow sharing (`pairs`
// given) needs the GPU-pair matrix.
CollectiveDemand alltoall_demand(const SimulationInputs& in, std::span<const int> group,
                                 const LevelTraffic& traffic, const ByteMatrix* pairs);

}  // namespace shardsim
