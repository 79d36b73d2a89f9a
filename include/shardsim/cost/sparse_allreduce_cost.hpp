#pragma once
// Gradient synchronisation of replicated (data-parallel) embedding rows, three ways (OPER §5.3,
// Fig. 9b). Pure functions over the ring collectives of collective_cost.hpp; documented in
// docs/model.md ("Replica gradient synchronisation").
//
// For a set of replica GPUs sharing some replicated rows:
//   dense             ring AllReduce of every replicated row's gradient (Patarasuk & Yuan):
//                       allreduce_s(gpus, rows · row_bytes)        — allreduce_s itself
//   allgather         AllGather-based sparse AllReduce (SparCML, Renggli et al. SC'19): every
//                     GPU sends the rows its lookups touched, with their indices, to every other
//                     GPU, which reduces them locally:
//                       allgather_s(gpus, Σ_g touched_g · (row_bytes + index_bytes))
//   local_aggregated  OPER §5.3 (Fig. 5): ① the union U of the touched rows, from an AllGather of
//                     each GPU's unique indices; ② local aggregation, zero-padded to U; ③ a ring
//                     AllReduce of the U aggregated rows as a dense buffer:
//                       allgather_s(gpus, Σ_g touched_g · index_bytes) + allreduce_s(gpus, U ·
//                       row_bytes)
#include <span>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

// `sparse_bytes`: Σ over the GPUs of the bytes of the gradient rows (and their indices) each
// contributes.
double allgather_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                    double sparse_bytes, const CostParams& p);

// `index_bytes`: Σ over the GPUs of the bytes of their unique touched indices; `union_bytes`:
// the bytes of the rows in the union of what every GPU touched.
double local_aggregated_sparse_allreduce_s(const Cluster& cluster, std::span<const int> gpus,
                                           double index_bytes, double union_bytes,
                                           const CostParams& p);

// The demands behind the two (what the engine moves over shared links); the *_s functions above
// are their idle-network times. The local-aggregated demand is the AllGather's stages followed by
// the AllReduce's, the AllReduce's launch waited before its first stage.
CollectiveDemand allgather_sparse_allreduce_demand(
    const Cluster& cluster, std::span<const int> gpus, double sparse_bytes, const CostParams& p,
    FlowGranularity granularity = FlowGranularity::aggregated);
CollectiveDemand local_aggregated_sparse_allreduce_demand(
    const Cluster& cluster, std::span<const int> gpus, double index_bytes, double union_bytes,
    const CostParams& p, FlowGranularity granularity = FlowGranularity::aggregated);

}  // namespace shardsim
