// α-β costs of the ring collectives: AllReduce (flat ring and hierarchical), ReduceScatter and
// AllGather (docs/model.md, "Ring collectives"), as network demands over the topology.
#include <algorithm>
#include <map>

#include "checks.hpp"
#include "demand_builder.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "topology_terms.hpp"

namespace shardsim {

namespace {

using cost_detail::add_ring;
using cost_detail::require_work;
using cost_detail::ring_shape;
using cost_detail::RingShape;
using cost_detail::route_latency_s;
using cost_detail::StageBuilder;

bool nothing_to_do(const RingShape& s, double bytes) {
  return s.size <= 1 || bytes <= 0;
}

std::vector<int> sorted(std::span<const int> gpus) {
  std::vector<int> v(gpus.begin(), gpus.end());
  std::sort(v.begin(), v.end());
  return v;
}

// `phases` passes of a ring over the n GPUs in id order: every hop carries
// phases · (n−1)/n · S, in phases · (n−1) steps of the farthest hop's α.
CollectiveDemand flat_ring(const Cluster& cluster, std::span<const int> gpus, double bytes,
                           int phases, const CostParams& p, FlowGranularity granularity) {
  CollectiveDemand d;
  d.payload_bytes = bytes;
  const RingShape s = ring_shape(cluster, gpus);  // validates
  if (nothing_to_do(s, bytes)) return d;
  const std::vector<int> ring = sorted(gpus);
  const double steps = s.size - 1;
  StageBuilder stage(cluster, granularity);
  add_ring(stage, cluster, ring, phases * (steps / s.size * bytes));
  d.launch_s = p.collective_launch_s;
  d.stages.push_back(stage.finish(phases * steps * route_latency_s(cluster, s.far_src, s.far_dst)));
  return d;
}

}  // namespace

// Flat ring (Patarasuk & Yuan's bandwidth-optimal ring, as used by NCCL):
//   2(N−1)/N · S / bw_slowest_hop + 2(N−1)·α + launch
CollectiveDemand allreduce_ring_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity) {
  require_work(bytes, "AllReduce bytes");
  return flat_ring(cluster, gpus, bytes, 2, p, granularity);
}

// Hierarchical (Neo App. B: AllReduce "utilizes both scale-out and NVLINK bandwidths"):
//   reduce-scatter inside each domain          (g−1)/g · S per hop,        (g_max−1)·α_up
//   AllReduce of S/g across the d domains,     2(d−1)/d · S/g per hop,     2(d−1)·α_out
//     in g parallel rings (ring r: the r-th GPU of every domain)
//   all-gather inside each domain              (g−1)/g · S per hop,        (g_max−1)·α_up
//   + launch once.
// With unequal GPUs per domain it is conservative: the cross-domain chunk is S / g_min.
CollectiveDemand allreduce_hierarchical_demand(const Cluster& cluster, std::span<const int> gpus,
                                               double bytes, const CostParams& p,
                                               FlowGranularity granularity) {
  require_work(bytes, "AllReduce bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) {
    CollectiveDemand none;
    none.payload_bytes = bytes;
    return none;
  }
  if (s.domains < 2 || s.max_gpus_per_domain < 2) {
    return flat_ring(cluster, gpus, bytes, 2, p, granularity);
  }
  std::map<int, std::vector<int>> by_domain;  // ordered: deterministic
  for (int g : sorted(gpus)) by_domain[cluster.scale_up_domain_of(g)].push_back(g);
  const double alpha_up = route_latency_s(cluster, s.local_src, s.local_dst);
  const double alpha_out = route_latency_s(cluster, s.far_src, s.far_dst);
  const int g_max = s.max_gpus_per_domain;
  const int g_min = s.min_gpus_per_domain;

  auto intra = [&]() {
    StageBuilder stage(cluster, granularity);
    for (const auto& [domain, members] : by_domain) {
      const double g = static_cast<double>(members.size());
      add_ring(stage, cluster, members, (g - 1) / g * bytes);
    }
    return stage.finish((g_max - 1) * alpha_up);
  };
  CollectiveDemand d;
  d.payload_bytes = bytes;
  d.launch_s = p.collective_launch_s;
  d.stages.push_back(intra());
  {
    StageBuilder stage(cluster, granularity);
    const double chunk = bytes / g_min;
    for (int r = 0; r < g_max; ++r) {
      std::vector<int> ring;
      for (const auto& [domain, members] : by_domain) {
        if (static_cast<int>(members.size()) > r) ring.push_back(members[static_cast<size_t>(r)]);
      }
      const double dr = static_cast<double>(ring.size());
      add_ring(stage, cluster, ring, 2 * ((dr - 1) / dr * chunk));
    }
    d.stages.push_back(stage.finish(2 * (s.domains - 1) * alpha_out));
  }
  d.stages.push_back(intra());
  return d;
}

CollectiveDemand allreduce_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p, FlowGranularity granularity) {
  CollectiveDemand ring = allreduce_ring_demand(cluster, gpus, bytes, p, granularity);
  CollectiveDemand hier = allreduce_hierarchical_demand(cluster, gpus, bytes, p, granularity);
  return idle_time_s(cluster, hier, p) < idle_time_s(cluster, ring, p) ? std::move(hier)
                                                                       : std::move(ring);
}

double allreduce_ring_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  return idle_time_s(cluster, allreduce_ring_demand(cluster, gpus, bytes, p), p);
}

double allreduce_hierarchical_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                const CostParams& p) {
  return idle_time_s(cluster, allreduce_hierarchical_demand(cluster, gpus, bytes, p), p);
}

double allreduce_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  return std::min(allreduce_ring_s(cluster, gpus, bytes, p),
                  allreduce_hierarchical_s(cluster, gpus, bytes, p));
}

// ReduceScatter / AllGather of an S-byte buffer: (N−1)/N · S per hop + (N−1)·α + launch
// (row-wise sharding's forward uses ReduceScatter: Neo §4).
CollectiveDemand reduce_scatter_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity) {
  require_work(bytes, "ReduceScatter bytes");
  return flat_ring(cluster, gpus, bytes, 1, p, granularity);
}

CollectiveDemand allgather_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p, FlowGranularity granularity) {
  require_work(bytes, "AllGather bytes");
  return flat_ring(cluster, gpus, bytes, 1, p, granularity);
}

double reduce_scatter_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  return idle_time_s(cluster, reduce_scatter_demand(cluster, gpus, bytes, p), p);
}

double allgather_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  return idle_time_s(cluster, allgather_demand(cluster, gpus, bytes, p), p);
}

AllReduceTimes::AllReduceTimes(const Cluster& cluster, std::span<const int> gpus,
                               const CostParams& p) {
  const RingShape s = ring_shape(cluster, gpus);  // validates
  trivial_ = s.size <= 1;
  if (trivial_) return;
  ring_ = line_of(cluster, allreduce_ring_demand(cluster, gpus, 1.0, p), p);
  hierarchical_ = line_of(cluster, allreduce_hierarchical_demand(cluster, gpus, 1.0, p), p);
}

// The terms of idle_time_s (collective_demand.cpp) for a demand built for S = 1 byte: what does
// not scale with S, and what does.
AllReduceTimes::Line AllReduceTimes::line_of(const Cluster& cluster, const CollectiveDemand& unit,
                                             const CostParams& p) {
  Line line;
  line.fixed_s = unit.launch_s;
  for (const CollectiveStage& stage : unit.stages) {
    line.fixed_s += stage.latency_s;
    CollectiveDemand one;
    one.stages.push_back(stage);
    one.stages.back().latency_s = 0;
    line.per_byte_s += idle_time_s(cluster, one, p);
  }
  return line;
}

double AllReduceTimes::at(double bytes) const {
  require_work(bytes, "AllReduce bytes");
  if (trivial_ || bytes <= 0) return 0.0;
  return std::min(ring_.fixed_s + bytes * ring_.per_byte_s,
                  hierarchical_.fixed_s + bytes * hierarchical_.per_byte_s);
}

}  // namespace shardsim
