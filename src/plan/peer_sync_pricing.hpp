#pragma once
// What the 2D replica sync will cost each GPU, priced for the inner planner of `two_d` so that it
// balances the sync together with the lookups (`two_d` option `sync_aware`, docs/planners.md).
//
// Eq. 1 (2D paper §5) prices the sync of a GPU holding b bytes among M peers at
// 2b(M−1)/(M·B_sync): a ring AllReduce's bytes per rank over the sync bandwidth. The AllReduce
// ends with its slowest rank, the GPU holding the most bytes, so a placement that balances only
// the lookups may leave one GPU several times the mean bytes and a sync well above Eq. 1
// (docs/reproductions/2d.md: 3.2x the mean bytes and 2-3x Eq. 1 with `hybrid` unaware). The
// pricing is Eq. 1's rate per synced byte, amortised over the sync interval k:
//   s_per_byte = 2(M−1) / (M · B_sync · k)
// B_sync: the slowest peer route's bandwidth x collective_bandwidth_efficiency, as the report's
// Eq. 1 figure (metrics/report_builder.cpp). A `touched_rows` sync prices only the rows it is
// expected to move (plan/peer_sync.hpp). Latencies are left out, as in Eq. 1: they do not
// depend on where a shard goes.
#include <cstddef>
#include <cstdint>

#include "plan/sparse_groups.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

struct PeerSyncPricing {
  PeerSync sync;          // the plan's mode and interval
  int global_gpus = 0;    // T: the GPUs whose global batch a touched_rows sync counts
  double s_per_byte = 0;  // seconds of sync per iteration per synced byte a GPU holds
};

// The pricing of `layout`'s peer sync on `cluster` (M >= 2 groups).
PeerSyncPricing price_peer_sync(const Cluster& cluster, const SparseGroups& layout,
                                const PeerSync& sync, const CostParams& cost);

// The sync time per iteration that a shard of `table` (`rows` in `space`, `cols` columns) adds to
// its GPU under ctx.peer_sync; 0 without one (every planner outside two_d) or in inference.
double peer_sync_time_s(const PlanningContext& ctx, std::size_t table, RowRange rows,
                        RowSpace space, std::uint32_t cols);

}  // namespace shardsim
