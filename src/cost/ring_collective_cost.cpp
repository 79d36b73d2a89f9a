// α-β costs of the ring collectives: AllReduce (flat ring and hierarchical), ReduceScatter and
// AllGather (docs/model.md, "Ring collectives").
#include <algorithm>

#include "checks.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "topology_terms.hpp"

namespace shardsim {

namespace {

using cost_detail::require_link_rate;
using cost_detail::require_work;
using cost_detail::ring_shape;
using cost_detail::RingShape;
using cost_detail::route_latency_s;

// The slowest hop of a ring at `level`: scale-up when every hop stays in a domain, else the
// GPU's NIC share (or scale-up, if that is slower), times the collective efficiency.
double ring_bandwidth_Bps(const Cluster& cluster, int level, const CostParams& p) {
  double bw = require_link_rate(cluster.scale_up_Bps_per_gpu(), "scale_up.bandwidth_GBps", cluster);
  if (level >= 2) {
    bw = std::min(
        bw, require_link_rate(cluster.scale_out_Bps_per_gpu(), "nic.bandwidth_Gbitps", cluster));
  }
  return bw * p.collective_bandwidth_efficiency;
}

// `phases` passes of a ring over n GPUs, each moving (n−1)/n · S per GPU in n−1 steps of α:
//   phases · ((n−1)/n · S / bw + (n−1) · α)        (no launch term)
double ring_phases_s(int phases, int n, double bytes, double bw_Bps, double alpha_s) {
  const double steps = n - 1;
  return phases * (steps / n * bytes / bw_Bps + steps * alpha_s);
}

double flat_ring_s(const Cluster& cluster, const RingShape& s, double bytes, int phases,
                   const CostParams& p) {
  const double bw = ring_bandwidth_Bps(cluster, s.level, p);
  const double alpha = route_latency_s(cluster, s.far_src, s.far_dst);
  return ring_phases_s(phases, s.size, bytes, bw, alpha) + p.collective_launch_s;
}

bool nothing_to_do(const RingShape& s, double bytes) {
  return s.size <= 1 || bytes <= 0;
}

}  // namespace

// Flat ring (Patarasuk & Yuan's bandwidth-optimal ring, as used by NCCL):
//   2(N−1)/N · S / bw + 2(N−1)·α + launch
double allreduce_ring_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  require_work(bytes, "AllReduce bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) return 0;
  return flat_ring_s(cluster, s, bytes, 2, p);
}

// Hierarchical (Neo App. B: AllReduce "utilizes both scale-out and NVLINK bandwidths"):
//   reduce-scatter inside each domain over scale-up   (g−1)/g · S / bw_up + (g−1)·α_up
//   AllReduce of S/g across the d domains, g rings     2(d−1)/d · (S/g) / bw_out + 2(d−1)·α_out
//   all-gather inside each domain                      (g−1)/g · S / bw_up + (g−1)·α_up
//   + launch once.
// With unequal GPUs per domain it is conservative: the intra-domain phases use the largest
// domain (g_max steps) and the cross-domain chunk is S / g_min.
double allreduce_hierarchical_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                const CostParams& p) {
  require_work(bytes, "AllReduce bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) return 0;
  if (s.domains < 2 || s.max_gpus_per_domain < 2) return flat_ring_s(cluster, s, bytes, 2, p);
  const int g_max = s.max_gpus_per_domain;
  const int g_min = s.min_gpus_per_domain;
  const double bw_up = ring_bandwidth_Bps(cluster, 1, p);
  const double alpha_up = route_latency_s(cluster, s.local_src, s.local_dst);
  const double bw_out = ring_bandwidth_Bps(cluster, s.level, p);
  const double alpha_out = route_latency_s(cluster, s.far_src, s.far_dst);
  const double reduce_scatter_s = ring_phases_s(1, g_max, bytes, bw_up, alpha_up);
  const double across_s = ring_phases_s(2, s.domains, bytes / g_min, bw_out, alpha_out);
  const double allgather_s = ring_phases_s(1, g_max, bytes, bw_up, alpha_up);
  return reduce_scatter_s + across_s + allgather_s + p.collective_launch_s;
}

double allreduce_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  return std::min(allreduce_ring_s(cluster, gpus, bytes, p),
                  allreduce_hierarchical_s(cluster, gpus, bytes, p));
}

// ReduceScatter / AllGather of an S-byte buffer: (N−1)/N · S / bw + (N−1)·α + launch
// (row-wise sharding's forward uses ReduceScatter: Neo §4).
double reduce_scatter_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  require_work(bytes, "ReduceScatter bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) return 0;
  return flat_ring_s(cluster, s, bytes, 1, p);
}

double allgather_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  require_work(bytes, "AllGather bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) return 0;
  return flat_ring_s(cluster, s, bytes, 1, p);
}

}  // namespace shardsim
