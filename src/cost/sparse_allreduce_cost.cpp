// Sparse gradient synchronisation of replicated rows (OPER §5.3; docs/model.md, "Replica
// gradient synchronisation").
#include "shardsim/cost/sparse_allreduce_cost.hpp"

#include "cost/checks.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim {

// SparCML's AllGather-based sparse AllReduce: every GPU ends with every GPU's sparse rows.
double allgather_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                    double sparse_bytes, const CostParams& p) {
  return idle_time_s(cluster, allgather_sparse_allreduce_demand(cluster, gpus, sparse_bytes, p), p);
}

// OPER Fig. 5: ① union of the indices (AllGather), ② local aggregation with zero padding (a
// local kernel, not charged here), ③ dense ring AllReduce of the union's rows.
double local_aggregated_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                           double index_bytes, double union_bytes,
                                           const CostParams& p) {
  return idle_time_s(
      cluster, local_aggregated_sparse_allreduce_demand(cluster, gpus, index_bytes, union_bytes, p),
      p);
}

CollectiveDemand allgather_sparse_allreduce_demand(const Cluster& cluster,
                                                   std::span<const int> gpus, double sparse_bytes,
                                                   const CostParams& p,
                                                   FlowGranularity granularity) {
  cost_detail::require_work(sparse_bytes, "sparse gradient bytes");
  return allgather_demand(cluster, gpus, sparse_bytes, p, granularity);
}

// ① AllGather of the indices, then ③ the AllReduce of the union: one demand whose stages run in
// order; the AllReduce's launch is waited before its first stage, so the idle time is the sum of
// the two collectives' times.
CollectiveDemand local_aggregated_sparse_allreduce_demand(const Cluster& cluster,
                                                          std::span<const int> gpus,
                                                          double index_bytes, double union_bytes,
                                                          const CostParams& p,
                                                          FlowGranularity granularity) {
  cost_detail::require_work(index_bytes, "index bytes");
  cost_detail::require_work(union_bytes, "union gradient bytes");
  CollectiveDemand d = allgather_demand(cluster, gpus, index_bytes, p, granularity);
  CollectiveDemand ar = allreduce_demand(cluster, gpus, union_bytes, p, granularity);
  if (d.empty()) {
    ar.payload_bytes += d.payload_bytes;
    return ar;
  }
  if (!ar.empty()) {
    if (ar.stages.empty()) ar.stages.emplace_back();
    ar.stages.front().latency_s += ar.launch_s;
    for (CollectiveStage& st : ar.stages) d.stages.push_back(std::move(st));
  }
  d.payload_bytes += ar.payload_bytes;
  return d;
}

}  // namespace shardsim
