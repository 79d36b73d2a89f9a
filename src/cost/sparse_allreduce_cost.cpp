// Sparse gradient synchronisation of replicated rows (OPER §5.3; docs/model.md, "Replica
// gradient synchronisation").
#include "shardsim/cost/sparse_allreduce_cost.hpp"

#include "checks.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim {

// SparCML's AllGather-based sparse AllReduce: every GPU ends with every GPU's sparse rows.
double allgather_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                    double sparse_bytes, const CostParams& p) {
  cost_detail::require_work(sparse_bytes, "sparse gradient bytes");
  return allgather_s(cluster, gpus, sparse_bytes, p);
}

// OPER Fig. 5: ① union of the indices (AllGather), ② local aggregation with zero padding (a
// local kernel, not charged here), ③ dense ring AllReduce of the union's rows.
double local_aggregated_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                           double index_bytes, double union_bytes,
                                           const CostParams& p) {
  cost_detail::require_work(index_bytes, "index bytes");
  cost_detail::require_work(union_bytes, "union gradient bytes");
  return allgather_s(cluster, gpus, index_bytes, p) + allreduce_s(cluster, gpus, union_bytes, p);
}

}  // namespace shardsim
