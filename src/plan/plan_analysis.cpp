// The per-plan analysis, computed once (plan/plan_analysis.hpp).
#include "shardsim/plan/plan_analysis.hpp"

namespace shardsim {

PlanAnalysis analyze_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                          const Workload& workload, const TraceSource& trace,
                          const CostParams& cost) {
  const int n = cluster.num_gpus();
  PlanAnalysis a;
  a.serving = build_serving_map(plan, cluster);
  a.blocks = plan_row_blocks(a.serving, model.tables.size());
  a.served_gpus_by_shard = served_gpu_counts(plan, a.serving, n);
  a.memory = plan_memory(plan, a.serving, cluster, model, workload);
  a.host_tier = host_tier_traffic(plan, a.served_gpus_by_shard, model, workload, trace, cost);
  if (plan.lookup_comm == LookupComm::one_sided) {
    a.one_sided_expected = one_sided_traffic(
        plan, a.serving, cluster, model, workload, trace,
        expected_lookups(a.serving, a.blocks, cluster, model, workload, trace), cost);
    a.one_sided_expected_times =
        one_sided_transfer_times(cluster, *a.one_sided_expected, workload.mode, cost);
  }
  if (workload.mode == Mode::training) {
    a.replica_syncs = replica_sync_buckets(plan, a.serving, cluster, model, workload, trace, cost);
  }
  a.peer_syncs = plan_peer_syncs(plan, a.serving, model, workload, trace, n);
  return a;
}

}  // namespace shardsim
