#include "plan/shard_estimate.hpp"

#include <algorithm>
#include <limits>

#include "shardsim/plan/host_tier.hpp"

namespace shardsim {

EmbeddingWork expected_work(const PlanningContext& ctx, std::size_t table, RowRange rows,
                            RowSpace space, ColRange cols, double served_gpus) {
  const AccessProfile& profile = ctx.trace.profile(table);
  if (rows.begin == 0 && rows.end == profile.num_rows()) space = RowSpace::rank;
  const double samples = served_gpus * ctx.workload.batch_per_gpu;
  const double table_lookups = samples * ctx.model.tables[table].pooling.expected();
  EmbeddingWork w;
  w.lookups = table_lookups * profile.mass(rows, space);
  w.distinct_rows = table_lookups > 0 ? profile.expected_distinct(rows, space, table_lookups) : 0;
  w.distinct_rows = std::min(w.distinct_rows, w.lookups);
  w.pooled_outputs = samples;
  w.cols = cols.size();
  w.precision = ctx.model.table_precision;
  w.kernel = ctx.model.table_kernel;
  w.rows = static_cast<double>(rows.size());
  return w;
}

ServedPeers all_gpu_peers(const Cluster& cluster) {
  const double domain = cluster.gpus_per_scale_up_domain();
  return ServedPeers{domain - 1, cluster.num_gpus() - domain};
}

ServedPeers table_row_wise_peers(const Cluster& cluster) {
  const double g = cluster.gpus_per_node();
  const double n = cluster.num_nodes();
  const double d = std::min(n, static_cast<double>(cluster.gpus_per_scale_up_domain()) / g);
  return ServedPeers{(g - 1) * n + (d - 1), n - d};
}

double gpu_alltoall_share_s(const Cluster& cluster, const CostParams& p, double sent_up_bytes,
                            double received_up_bytes, double sent_off_bytes,
                            double received_off_bytes) {
  auto over = [](double bytes, double rate_Bps) {
    if (bytes <= 0) return 0.0;
    if (!(rate_Bps > 0)) return std::numeric_limits<double>::infinity();
    return bytes / rate_Bps;
  };
  const double up =
      over(std::max(sent_up_bytes, received_up_bytes), cluster.scale_up_Bps_per_gpu());
  const double off =
      over(std::max(sent_off_bytes, received_off_bytes), cluster.scale_out_Bps_per_gpu());
  return std::max(up, off) / p.collective_bandwidth_efficiency;
}

ShardCost estimate_shard_cost(const PlanningContext& ctx, std::size_t table, RowRange rows,
                              RowSpace space, ColRange cols, double served_gpus, ServedPeers peers,
                              double sort_key_rows) {
  return cost_of_work(ctx, expected_work(ctx, table, rows, space, cols, served_gpus), peers,
                      sort_key_rows);
}

double expected_gpu_rows(const PlanningContext& ctx) {
  double rows = 0;
  for (const EmbeddingTable& t : ctx.model.tables) rows += static_cast<double>(t.rows);
  return rows / std::max(1, ctx.cluster.num_gpus());
}

ShardCost cost_of_work(const PlanningContext& ctx, const EmbeddingWork& work, ServedPeers peers,
                       double sort_key_rows) {
  const CostParams& p = ctx.cost_params();
  const GpuSpec& gpu = ctx.cluster.gpu();
  const bool training = ctx.workload.mode == Mode::training;
  ShardCost c;
  c.lookups = work.lookups;
  c.fwd_compute_s = embedding_forward_bytes(work, p) / gpu.hbm_achievable_Bps;
  if (training) {
    c.bwd_compute_s =
        embedding_backward_bytes(work, ctx.model.optimizer, p, std::max(work.rows, sort_key_rows)) /
        gpu.hbm_achievable_Bps;
  }
  // One pooled vector (or partial sum) per sample of every peer, forward; its gradient back.
  const double vector_bytes = static_cast<double>(ctx.workload.batch_per_gpu) * work.cols *
                              bytes_per_element(ctx.model.comm_precision);
  const double up = peers.in_domain * vector_bytes;
  const double off = peers.off_domain * vector_bytes;
  c.fwd_comm_s = gpu_alltoall_share_s(ctx.cluster, p, up, 0, off, 0);
  if (training) c.bwd_comm_s = gpu_alltoall_share_s(ctx.cluster, p, 0, up, 0, off);
  const double peer_count = peers.in_domain + peers.off_domain;
  if (ctx.input_alltoall && peer_count > 0) {
    const double per_peer_bytes =
        work.lookups / (peer_count + 1) * p.index_bytes_per_lookup +
        static_cast<double>(ctx.workload.batch_per_gpu) * p.offset_bytes_per_output;
    c.input_comm_s = gpu_alltoall_share_s(ctx.cluster, p, 0, peers.in_domain * per_peer_bytes, 0,
                                          peers.off_domain * per_peer_bytes);
  }
  return c;
}

void add_host_tier_cost(const PlanningContext& ctx, const Shard& shard, double served_gpus,
                        ShardCost& cost) {
  if (!shard.storage.in_host()) return;
  const HostTierShard h = host_tier_shard(shard, served_gpus, ctx.model, ctx.workload,
                                          ctx.trace.profile(shard.table), ctx.cost_params());
  const double link_Bps = ctx.cluster.preset().host.link.bandwidth_Bps;
  if (!(link_Bps > 0)) return;
  cost.fwd_compute_s += h.h2d_forward_bytes / link_Bps + h.uvm_fault_s;
  cost.bwd_compute_s += std::max(h.h2d_backward_bytes, h.d2h_backward_bytes) / link_Bps;
}

}  // namespace shardsim
