#pragma once
// What the simulator, the plan statistics and the reports need to know about a plan, computed
// once per plan (between plan/ and sim/; docs/architecture.md): who serves whom, the distinct
// row blocks of each table, how many GPUs each shard serves, the memory per GPU, the expected
// traffic of one-sided plans (OPER §5) and the replica synchronisation (gradient AllReduces of
// replicas inside a group, OPER §5.3; 2D peer syncs, 2D §5). It depends on the plan, the cluster,
// the model, the workload, the access profiles and the cost parameters, never on an iteration.
#include <optional>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/host_tier.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/one_sided_traffic.hpp"
#include "shardsim/plan/peer_sync.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_row_blocks.hpp"
#include "shardsim/plan/replica_sync.hpp"
#include "shardsim/plan/serving.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct PlanAnalysis {
  ServingMap serving;
  PlanRowBlocks blocks;
  // Per shard: how many GPUs' lookups it serves (its pooled outputs are that many batches).
  std::vector<double> served_gpus_by_shard;
  std::vector<GpuMemory> memory;  // per GPU (plan_memory)
  // One-sided plans (Plan::lookup_comm == one_sided): the expected gets and puts; empty otherwise.
  std::optional<OneSidedTraffic> one_sided_expected;
  // ... and their transfer times, for the plan statistics and the expected-mode simulation.
  std::optional<OneSidedTransferTimes> one_sided_expected_times;
  // Training only: the gradient AllReduces of replicas inside a group, one per distinct set of
  // replica GPUs, in the plan's ReplicaSync variant (plan/replica_sync.hpp).
  std::vector<ReplicaSyncBucket> replica_syncs;
  PeerSyncs peer_syncs;  // 2D: weights + optimizer state across the groups' peers
  // Shards in host memory: their expected host-link traffic per iteration (empty when none).
  HostTierTraffic host_tier;
};

PlanAnalysis analyze_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                          const Workload& workload, const TraceSource& trace,
                          const CostParams& cost);

}  // namespace shardsim
