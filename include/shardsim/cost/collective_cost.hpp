#pragma once
// α-β costs of collectives over the cluster's topology. Pure functions. Documented in
// docs/model.md with sources.
//
// Each collective is first a network demand (cost/collective_demand.hpp: stages of flows over
// links); its `*_s` time is that demand's idle-network time (idle_time_s), and the engine moves
// the same flows with links shared between concurrent collectives.
//
// Bandwidths are per direction; each bandwidth term is the bytes over
// (bandwidth · collective_bandwidth_efficiency). α is the route latency of the relevant level
// (Cluster::route of a representative pair), and collective_launch_s is added once per
// collective. One GPU, or zero bytes, costs zero time (an empty demand).
#include <span>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

// The terms of an AlltoAll(v) estimate, for reports and for finding the binding resource.
// Each *_s bound already includes the bandwidth efficiency; total_s = max of the bounds +
// latency_s + launch_s (0 when no bytes cross between GPUs).
struct AlltoallvBounds {
  double scale_up_s = 0;     // max over GPUs of its in-domain send or receive bytes / scale-up
                             // (direct NVLink mesh: also the largest pair over one link)
  double scale_out_s = 0;    // max over GPUs of its off-domain send or receive bytes / NIC share
  double tier_uplink_s = 0;  // max over tiers (top excluded) and groups of bytes out or in / uplink
  int tier_uplink_tier = -1;  // the tier of tier_uplink_s (-1 if none)
  int farthest_level = 0;     // the farthest level any nonzero entry crosses (0 if none)
  double latency_s = 0;       // route latency of that level (+ per-peer costs, nccl model)
  double launch_s = 0;        // collective_launch_s, or 0 when there is nothing to send
  double total_s = 0;
};

// AlltoAll(v) from the per-pair byte matrix (diagonal entries are local and free). Bounded by
// each GPU's send and receive share of each level: scale-up bytes over the scale-up bandwidth,
// off-domain bytes over the GPU's NIC share, and each tier's switch uplink over the bytes that
// cross it; plus the latency of the farthest level used. O(N²) with O(1) work per entry.
// The matrix must be num_gpus x num_gpus with entries >= 0 (std::invalid_argument otherwise).
AlltoallvBounds alltoallv_bounds(const Cluster& cluster, const ByteMatrix& bytes,
                                 const CostParams& p);
double alltoallv_s(const Cluster& cluster, const ByteMatrix& bytes, const CostParams& p);
// The same from per-level totals (O(N x levels), no N x N matrix needed).
AlltoallvBounds alltoallv_bounds(const Cluster& cluster, const LevelTraffic& traffic,
                                 const CostParams& p);
double alltoallv_s(const Cluster& cluster, const LevelTraffic& traffic, const CostParams& p);
// The demand: aggregated, one flow per loaded link (scale-up link per GPU or mesh pair link,
// GPU <-> NIC, NIC <-> tier 0, tier uplinks); per_flow, one flow per GPU pair over its route.
// One stage whose latency is the farthest level's route latency.
// Under the nccl model the launch is the GPU's kernel launch and the stage also waits for the
// slowest participant's per-peer costs (alltoall_peer_scale_up_s / _scale_out_s for each other
// participant in / outside its scale-up domain); `participants` are the GPUs of the AlltoAll
// (empty: all of them).
CollectiveDemand alltoallv_demand(const Cluster& cluster, const LevelTraffic& traffic,
                                  const CostParams& p, std::span<const int> participants = {});
CollectiveDemand alltoallv_demand(const Cluster& cluster, const ByteMatrix& bytes,
                                  const CostParams& p,
                                  FlowGranularity granularity = FlowGranularity::aggregated,
                                  std::span<const int> participants = {});

// Ring AllReduce of `bytes` over `gpus`: 2(N-1)/N · S / bw_bottleneck + 2(N-1)·α, the ring
// split over one ring per rail when the GPUs span several scale-up domains (NCCL's channels:
// each ring leaves a domain through another GPU's NIC); when they span several domains with more
// than one GPU in one of them, the hierarchical variant (reduce-scatter inside each domain,
// AllReduce of S/g across domains in g parallel rings, all-gather inside; under the nccl model
// with NCCL's tree step counts) is used if faster. Under the nccl model each variant is priced
// with the fastest protocol (docs/model.md, "Collective models"). `gpus` must be distinct valid ids
// (std::invalid_argument).
double allreduce_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p);
// The two variants on their own (each 0 for one GPU or zero bytes). The hierarchical one equals
// the flat ring when the GPUs do not span several domains with two or more GPUs in one.
double allreduce_ring_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p);
double allreduce_hierarchical_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                const CostParams& p);

// allreduce_s over one GPU set for many buffer sizes, with the demands built once. On an idle
// network each variant (shape and, under the nccl model, protocol) is affine in S: launch +
// Σ_stages latency + S · Σ_stages max_links (link bytes per byte of S) / (bandwidth ·
// collective_bandwidth_efficiency). at(S) is the smallest of the lines, i.e. allreduce_s(cluster,
// gpus, S, p) up to floating-point rounding (relative ~1e-15: the same terms, summed in another
// order). For planners that cost the same AllReduce for many sizes (hybrid's data-parallel
// candidates: one per table, on every GPU).
class AllReduceTimes {
 public:
  AllReduceTimes(const Cluster& cluster, std::span<const int> gpus, const CostParams& p);
  double at(double bytes) const;

 private:
  // One shape under one protocol, before tuning.cc's size-dependent refinements (the tree's
  // size correction, the ring's plateau), which at() applies.
  struct Line {
    double launch_s = 0;    // the GPU's kernel launch (or the ideal model's launch)
    double latency_s = 0;   // base and step latencies: what the plateau lengthens
    double per_byte_s = 0;  // at a bandwidth correction of 1
    int protocol = -1;      // cost_detail::NcclProtocol, -1 under the ideal model
    int algorithm = 0;      // cost_detail::ShapeAlgorithm
    bool multi_domain = false;
  };
  static Line line_of(const Cluster& cluster, const CollectiveDemand& unit, const CostParams& p);
  bool trivial_ = true;  // one GPU: nothing to reduce
  int ranks_ = 0;
  CostParams params_;        // the tree correction switch and plateau factor
  std::vector<Line> lines_;  // one per shape and protocol the collective model considers
};

// ReduceScatter and AllGather of a `bytes`-sized buffer (the full buffer; each GPU ends with or
// starts from bytes/N): (N-1)/N · S / bw_bottleneck + (N-1)·α.
double reduce_scatter_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p);
double allgather_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p);

// The demands behind the ring collectives. A flat ring is one stage whose every hop (GPU i ->
// the next GPU in id order, over their route) carries phases · (N−1)/N · S; the hierarchical
// AllReduce has three stages (reduce-scatter in each domain, g cross-domain rings, all-gather).
// allreduce_demand is the faster of the two on an idle network (the hierarchical one on ties
// only when strictly faster).
CollectiveDemand allreduce_ring_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity = FlowGranularity::aggregated);
CollectiveDemand allreduce_hierarchical_demand(
    const Cluster& cluster, std::span<const int> gpus, double bytes, const CostParams& p,
    FlowGranularity granularity = FlowGranularity::aggregated);
CollectiveDemand allreduce_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p,
                                  FlowGranularity granularity = FlowGranularity::aggregated);
CollectiveDemand reduce_scatter_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity = FlowGranularity::aggregated);
CollectiveDemand allgather_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p,
                                  FlowGranularity granularity = FlowGranularity::aggregated);

// --- Point-to-point transfers (small-message model) ---
// A message of m bytes between src and dst reaches m / (m + n½) of the link bandwidth, n½ =
// small_message_half_bytes_scale_up within a scale-up domain, _scale_out beyond (Hockney's
// half-performance length; GUESS values in configs/cost/default.yaml). Equivalently each
// message occupies the links for m + n½ bytes.
double small_message_half_bytes(const Cluster& cluster, int src, int dst, const CostParams& p);
double message_efficiency(const Cluster& cluster, int src, int dst, double message_bytes,
                          const CostParams& p);
// `messages` messages of `message_bytes` each from src to dst (NCCL send/recv), pipelined:
//   T = launch + α_route + messages · (m + n½) / (bandwidth_bottleneck · efficiency)
CollectiveDemand p2p_demand(const Cluster& cluster, int src, int dst, double messages,
                            double message_bytes, const CostParams& p);
double p2p_s(const Cluster& cluster, int src, int dst, double messages, double message_bytes,
             const CostParams& p);
// One-sided gets and puts of single rows (OPER plans) have their own per-row model:
// cost/one_sided_cost.hpp.

}  // namespace shardsim
