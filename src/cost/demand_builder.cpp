#include "demand_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "shardsim/hw/topology.hpp"

namespace shardsim::cost_detail {

StageBuilder::StageBuilder(const Cluster& cluster, FlowGranularity granularity)
    : cluster_(cluster), granularity_(granularity) {
  if (granularity_ == FlowGranularity::aggregated) {
    per_link_.assign(static_cast<std::size_t>(cluster.topology().num_links()), 0.0);
  }
}

void StageBuilder::add(double bytes, std::span<const int> links) {
  if (!(bytes > 0) || links.empty()) return;
  if (granularity_ == FlowGranularity::per_flow) {
    stage_.add_flow(bytes, links);
    return;
  }
  for (int l : links) {
    double& b = per_link_[static_cast<std::size_t>(l)];
    if (b == 0) touched_.push_back(l);
    b += bytes;
  }
}

void StageBuilder::add_route(double bytes, int src, int dst) {
  if (!(bytes > 0) || src == dst) return;
  route_.clear();
  const Topology& topo = cluster_.topology();
  if (cluster_.scale_up_domain_of(src) == cluster_.scale_up_domain_of(dst)) {
    topo.append_scale_up_path(src, dst, route_);
  } else {
    topo.append_scale_out_path(src, dst, route_);
  }
  add(bytes, route_);
}

CollectiveStage StageBuilder::finish(double latency_s) {
  CollectiveStage out = std::move(stage_);
  stage_ = CollectiveStage{};
  out.latency_s = latency_s;
  if (granularity_ == FlowGranularity::aggregated) {
    std::sort(touched_.begin(), touched_.end());
    out.flows.reserve(touched_.size());
    out.links.reserve(touched_.size());
    for (int l : touched_) {
      double& b = per_link_[static_cast<std::size_t>(l)];
      out.add_flow(b, std::span<const int>(&l, 1));
      b = 0;
    }
    touched_.clear();
  }
  return out;
}

void add_ring(StageBuilder& stage, const Cluster& cluster, std::span<const int> ring,
              double hop_bytes) {
  const std::size_t n = ring.size();
  if (n < 2 || !(hop_bytes > 0)) return;
  const bool mesh = cluster.preset().scale_up_kind == "nvlink";
  const Topology& topo = cluster.topology();
  std::vector<int> peers;
  for (std::size_t k = 0; k < n; ++k) {
    const int a = ring[k];
    const int b = ring[(k + 1) % n];
    if (mesh && cluster.scale_up_domain_of(a) == cluster.scale_up_domain_of(b)) {
      peers.clear();
      for (int m : ring) {
        if (m != a && cluster.scale_up_domain_of(m) == cluster.scale_up_domain_of(a)) {
          peers.push_back(m);
        }
      }
      const double share = hop_bytes / static_cast<double>(peers.size());
      for (int m : peers) stage.add_on_link(share, topo.mesh_link(a, m));
      continue;
    }
    stage.add_route(hop_bytes, a, b);
  }
}

double level_latency_s(const Cluster& cluster, int level, int src_hint) {
  if (level <= 0) return 0;
  const int n = cluster.num_gpus();
  for (int step = 0; step < n; ++step) {
    const int src = (src_hint + step) % n;
    for (int dst = 0; dst < n; ++dst) {
      if (dst != src && cluster.level_between(src, dst) == level) {
        return cluster.route(src, dst).latency_s;
      }
    }
  }
  throw std::logic_error(fmt::format("no GPU pair at level {} in this cluster", level));
}

}  // namespace shardsim::cost_detail
