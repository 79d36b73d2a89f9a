// Gradient synchronisation of replicated blocks, bucketed by the GPUs holding the replicas
// (OPER §5.3; docs/model.md, "Replica gradient synchronisation").
#include "shardsim/plan/replica_sync.hpp"

#include <algorithm>
#include <map>

#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/sparse_allreduce_cost.hpp"
#include "shardsim/plan/peer_sync.hpp"

namespace shardsim {

std::vector<ReplicaSyncBucket> replica_sync_buckets(const Plan& plan, const ServingMap& serving,
                                                    const Cluster& cluster, const DlrmModel& model,
                                                    const Workload& workload,
                                                    const TraceSource& trace, const CostParams& p) {
  const int n = cluster.num_gpus();
  const auto& shards = plan.shards;
  const double comm_elem = bytes_per_element(model.comm_bwd_precision);  // gradients
  const bool sparse = plan.replica_sync != ReplicaSync::dense;
  std::map<std::vector<int>, ReplicaSyncBucket> by_gpus;
  std::vector<double> served;  // GPUs each replica of a set serves
  std::vector<std::size_t> place_in_set(shards.size(), 0);
  std::map<double, double> touched_by_count;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    if (set.shards.size() < 2) continue;
    if (is_peer_set(plan, serving, k)) continue;  // 2D peers sync weights: plan/peer_sync.hpp
    std::vector<int> gpus;
    for (std::size_t s : set.shards) gpus.push_back(shards[s].gpu);
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    ReplicaSyncBucket& b = by_gpus[gpus];
    const double row_bytes = set.cols.size() * comm_elem;
    b.dense_bytes += static_cast<double>(set.rows.size()) * row_bytes;
    if (!sparse) continue;
    const AccessProfile& profile = trace.profile(set.table);
    const RowSpace space =
        set.rows.begin == 0 && set.rows.end == profile.num_rows() ? RowSpace::rank : set.row_space;
    const double per_gpu = workload.batch_per_gpu * model.tables[set.table].pooling.expected();
    // The GPUs each replica serves: a replica's place in the set by its shard index (a search
    // of the set per GPU would be O(GPUs^2) for a block copied to every GPU).
    served.assign(set.shards.size(), 0.0);
    for (std::size_t i = 0; i < set.shards.size(); ++i) place_in_set[set.shards[i]] = i;
    for (int g = 0; g < n; ++g) served[place_in_set[serving.server(k, g)]] += 1;
    // Replicas serving as many GPUs touch as many rows: one query per count, not per replica.
    touched_by_count.clear();
    for (double m : served) {
      if (m <= 0) continue;
      const auto [it, fresh] = touched_by_count.try_emplace(m, 0.0);
      if (fresh) it->second = profile.expected_distinct(set.rows, space, m * per_gpu);
      const double touched = it->second;
      b.sparse_bytes += touched * (row_bytes + p.index_bytes_per_lookup);
      b.index_bytes += touched * p.index_bytes_per_lookup;
    }
    b.union_bytes += profile.expected_distinct(set.rows, space, n * per_gpu) * row_bytes;
  }
  std::vector<ReplicaSyncBucket> out;
  for (auto& [gpus, b] : by_gpus) {
    b.gpus = gpus;
    switch (plan.replica_sync) {
      case ReplicaSync::dense:
        b.bytes = b.dense_bytes;
        break;
      case ReplicaSync::allgather:
        b.bytes = b.sparse_bytes;
        break;
      case ReplicaSync::local_aggregated:
        b.bytes = b.index_bytes + b.union_bytes;
        break;
    }
    b.duration_s = idle_time_s(cluster, replica_sync_demand(cluster, b, plan.replica_sync, p), p);
    out.push_back(std::move(b));
  }
  return out;
}

CollectiveDemand replica_sync_demand(const Cluster& cluster, const ReplicaSyncBucket& bucket,
                                     ReplicaSync variant, const CostParams& p,
                                     FlowGranularity granularity) {
  switch (variant) {
    case ReplicaSync::allgather:
      return allgather_sparse_allreduce_demand(cluster, bucket.gpus, bucket.sparse_bytes, p,
                                               granularity);
    case ReplicaSync::local_aggregated:
      return local_aggregated_sparse_allreduce_demand(cluster, bucket.gpus, bucket.index_bytes,
                                                      bucket.union_bytes, p, granularity);
    case ReplicaSync::dense:
      break;
  }
  return allreduce_demand(cluster, bucket.gpus, bucket.dense_bytes, p, granularity);
}

}  // namespace shardsim
