#pragma once
// Gradient synchronisation of the replicated blocks of a plan (training): one collective per
// distinct set of GPUs holding replicas, of every block they share, with the plan's
// ReplicaSync variant (OPER §5.3, Fig. 9b). Shared by the plan statistics and the iteration
// builder; the formulas are in cost/sparse_allreduce_cost.hpp (docs/model.md, "Replica gradient
// synchronisation").
#include <vector>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/serving.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct ReplicaSyncBucket {
  std::vector<int> gpus;   // sorted, distinct
  double dense_bytes = 0;  // Σ blocks: rows · cols · bytes(comm precision)
  // Sparse variants only (0 for dense): Σ blocks Σ replicas of the rows its served lookups
  // touched, with their indices (allgather); their indices only; the union's rows.
  double sparse_bytes = 0;
  double index_bytes = 0;
  double union_bytes = 0;
  double duration_s = 0;  // of the plan's variant
  double bytes = 0;       // what the collective moves: dense_bytes, sparse_bytes or index + union
};

// One bucket per distinct set of replica GPUs, in the order of the sorted GPU lists. Touched rows
// are expectations over every GPU's batch_per_gpu · E[pooling] lookups of the table: a replica
// touches expected_distinct(its rows, the lookups of the GPUs it serves) rows; the union,
// expected_distinct(rows, the lookups of every GPU).
std::vector<ReplicaSyncBucket> replica_sync_buckets(const Plan& plan, const ServingMap& serving,
                                                    const Cluster& cluster, const DlrmModel& model,
                                                    const Workload& workload,
                                                    const TraceSource& trace, const CostParams& p);

// The collective of one bucket in the plan's variant, as a network demand (what the engine moves
// over shared links); the bucket's duration_s is its idle-network time.
CollectiveDemand replica_sync_demand(const Cluster& cluster, const ReplicaSyncBucket& bucket,
                                     ReplicaSync variant, const CostParams& p,
                                     FlowGranularity granularity = FlowGranularity::aggregated);

}  // namespace shardsim
