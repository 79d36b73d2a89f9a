// The per-plan analysis, computed once (plan/plan_analysis.hpp).
#include "shardsim/plan/plan_analysis.hpp"

namespace shardsim {

namespace {

std::vector<double> served_gpus(const Plan& plan, const ServingMap& serving, int n) {
  std::vector<double> served(plan.shards.size(), 0.0);
  // Counts of GPUs: whole numbers, exact in a double whatever the order of the additions.
  std::vector<double> group_size(static_cast<std::size_t>(serving.num_groups), 0.0);
  for (int g = 0; g < n; ++g) group_size[static_cast<std::size_t>(serving.group_of[g])] += 1;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    if (serving.single_server(k)) {
      served[serving.sets[k].shards.front()] += n;
    } else if (!serving.by_group[k].empty()) {
      for (std::size_t grp = 0; grp < serving.by_group[k].size(); ++grp) {
        served[serving.by_group[k][grp]] += group_size[grp];
      }
    } else {
      for (int g = 0; g < n; ++g) served[serving.served_by[k][static_cast<std::size_t>(g)]] += 1;
    }
  }
  return served;
}

}  // namespace

PlanAnalysis analyze_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                          const Workload& workload, const TraceSource& trace,
                          const CostParams& cost) {
  const int n = cluster.num_gpus();
  PlanAnalysis a;
  a.serving = build_serving_map(plan, cluster);
  a.blocks = plan_row_blocks(a.serving, model.tables.size());
  a.served_gpus_by_shard = served_gpus(plan, a.serving, n);
  a.memory = plan_memory(plan, a.serving, cluster, model, workload);
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
