#pragma once
// What a planner can know about a shard before anything is simulated: its expected work per
// iteration (from the table's access profile, the same expectations the iteration builder uses
// in `expected` trace mode) and its estimated cost in seconds (from the pure cost model).
// Planners balance these estimates; plan statistics (plan_stats.hpp) sum them per GPU.
#include <cstddef>

#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

// Expected work of rows x cols of `table` serving the batches of `served_gpus` GPUs:
//   lookups  = served_gpus · B · E[pooling] · mass(rows)
//   distinct = expected_distinct(rows, served_gpus · B · E[pooling])
//   outputs  = served_gpus · B
// A range holding the whole table is queried in rank space (the same rows under any layout),
// which spares the profile its row-id index.
EmbeddingWork expected_work(const PlanningContext& ctx, std::size_t table, RowRange rows,
                            RowSpace space, ColRange cols, double served_gpus);

// Where the GPUs a shard serves sit, seen from the shard's GPU.
struct ServedPeers {
  double in_domain = 0;   // other GPUs of its scale-up domain
  double off_domain = 0;  // GPUs outside it
};
// The peers of a shard on one GPU serving all `num_gpus` GPUs of a homogeneous cluster.
ServedPeers all_gpu_peers(const Cluster& cluster);
// The peers of one row block of a table-row-wise table (one block per GPU of a node, every GPU
// served), as the engine moves its partial sums (plan/serving.hpp, ServingMap::host_slices;
// TorchRec's TWRW): with G GPUs per node, N nodes and D nodes per scale-up domain, the block
// sends the host's other G - 1 GPUs the partial sums of their own batches and of the remote GPUs
// they relay for, (G - 1) x N batches over the scale-up fabric, and relays the host's reduced
// vectors to the N - 1 GPUs of its local rank on other nodes, D - 1 of them in its domain:
//   in_domain = (G - 1) N + (D - 1),  off_domain = N - D.
// One node: G - 1 and 0, as all_gpu_peers.
ServedPeers table_row_wise_peers(const Cluster& cluster);

// A GPU's share of an AlltoAll: its bytes over its own links, the per-GPU terms of
// alltoallv_bounds (cost/collective_cost.hpp, docs/model.md "AlltoAll(v)"):
//   max( max(sent_up, received_up) / scale_up_Bps,
//        max(sent_off, received_off) / scale_out_Bps_per_gpu ) / collective_bandwidth_efficiency.
// Tier uplinks and latencies are left out (they are shared, not per GPU). A link with no
// bandwidth that must carry bytes costs +infinity.
double gpu_alltoall_share_s(const Cluster& cluster, const CostParams& p, double sent_up_bytes,
                            double received_up_bytes, double sent_off_bytes,
                            double received_off_bytes);

struct ShardCost {
  double lookups = 0;        // expected per iteration
  double fwd_compute_s = 0;  // roofline bytes / achievable HBM bandwidth (no launch: the
  double bwd_compute_s = 0;  //   fused kernel launches once per GPU, not per shard)
  double fwd_comm_s = 0;     // its pooled outputs to the peers (AlltoAll share)
  double bwd_comm_s = 0;     // their gradients back (training)
  // Its share of the input AlltoAll (PlanningContext::input_alltoall): the indices and offsets
  // every peer sends it, received over its own links. Not in total_s: that AlltoAll runs on
  // its own stream beside the previous batch's work (Neo §4.2), so it does not add to the
  // GPU's embedding time; hybrid balances it beside (docs/planners.md).
  double input_comm_s = 0;
  double total_s() const { return fwd_compute_s + bwd_compute_s + fwd_comm_s + bwd_comm_s; }
};

// The estimated cost of one shard serving `served_gpus` GPUs' batches, `peers` of which are
// other GPUs. Training adds the backward (kernel and gradient traffic). With an input AlltoAll,
// each of the P = peers.in_domain + peers.off_domain peers sends
//   lookups / (P + 1) · index_bytes_per_lookup + B · offset_bytes_per_output
// (its batch's lookups of the shard's rows and one offset per bag, as sim/iteration_draw.cpp
// moves them), received at the shard's links: input_comm_s = gpu_alltoall_share_s(received).
//
// The backward's sort spans the rows of every shard on the shard's GPU, which is not known
// before the plan is made: `sort_key_rows` is the caller's expectation of them (usually
// expected_gpu_rows), and the shard's own rows where they are more.
ShardCost estimate_shard_cost(const PlanningContext& ctx, std::size_t table, RowRange rows,
                              RowSpace space, ColRange cols, double served_gpus, ServedPeers peers,
                              double sort_key_rows);
// The rows a GPU holds on average: every table's rows once, over the cluster's GPUs (replicas
// and a plan's imbalance left out). O(tables): callers compute it once per plan.
double expected_gpu_rows(const PlanningContext& ctx);
// A shard in host memory (Shard::storage; docs/model.md "Memory tiers") also waits for its
// expected host-link bytes (plan/host_tier.hpp): bytes / link bandwidth added to its forward and
// backward compute (the link latency, once per GPU's kernel, is left out of a shard's share).
// Nothing for an HBM shard.
void add_host_tier_cost(const PlanningContext& ctx, const Shard& shard, double served_gpus,
                        ShardCost& cost);
// The same from an expected work already computed (column blocks of one row range share it:
// only `work.cols` differs).
ShardCost cost_of_work(const PlanningContext& ctx, const EmbeddingWork& work, ServedPeers peers,
                       double sort_key_rows);

}  // namespace shardsim
