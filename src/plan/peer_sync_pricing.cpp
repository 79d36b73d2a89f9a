#include "plan/peer_sync_pricing.hpp"

#include <algorithm>
#include <limits>

#include "shardsim/plan/peer_sync.hpp"

namespace shardsim {

PeerSyncPricing price_peer_sync(const Cluster& cluster, const SparseGroups& layout,
                                const PeerSync& sync, const CostParams& cost) {
  PeerSyncPricing out;
  out.sync = sync;
  out.global_gpus = cluster.num_gpus();
  const int m = layout.num_groups();
  if (m < 2) return out;
  double slowest_Bps = std::numeric_limits<double>::infinity();
  for (int v = 0; v < layout.group_size(); ++v) {
    for (int g = 1; g < m; ++g) {
      slowest_Bps =
          std::min(slowest_Bps, cluster.route(layout.gpu(0, v), layout.gpu(g, v)).bottleneck_Bps);
    }
  }
  const double sync_Bps = slowest_Bps * cost.collective_bandwidth_efficiency;
  if (!(sync_Bps > 0) || sync_Bps == std::numeric_limits<double>::infinity()) return out;
  out.s_per_byte = 2.0 * (m - 1) / (static_cast<double>(m) * sync_Bps * std::max(1, sync.interval));
  return out;
}

double peer_sync_time_s(const PlanningContext& ctx, std::size_t table, RowRange rows,
                        RowSpace space, std::uint32_t cols) {
  if (ctx.peer_sync == nullptr || ctx.peer_sync->s_per_byte <= 0) return 0;
  if (ctx.workload.mode != Mode::training || rows.size() == 0) return 0;
  const PeerSyncPricing& p = *ctx.peer_sync;
  const double synced_rows = peer_synced_rows(table, rows, space, p.sync, ctx.model, ctx.workload,
                                              ctx.trace, p.global_gpus);
  return synced_rows * peer_sync_bytes_per_row(ctx.model, cols, p.sync.mode) * p.s_per_byte;
}

}  // namespace shardsim
