#include "cost/demand_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cost/ecmp_collisions.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim::cost_detail {

namespace {

// Per link id: the ports of each uplink of a tier with `load_balancing: ecmp` (0 for every other
// link); empty when no tier hashes.
std::vector<double> ecmp_uplink_ports(const Cluster& cluster) {
  const Topology& topo = cluster.topology();
  std::vector<double> ports;
  for (int l = 0; l < topo.num_links(); ++l) {
    if (topo.link_kind(l) != LinkKind::tier_tier) continue;
    const int tier = topo.link_lower_tier(l);
    if (cluster.preset().tiers[static_cast<std::size_t>(tier)].load_balancing !=
        LoadBalancing::ecmp) {
      continue;
    }
    if (ports.empty()) ports.assign(static_cast<std::size_t>(topo.num_links()), 0.0);
    // The link's own ports (a rail switch's uplink is its rail's share of the group's).
    // Each port delivers what congestion leaves of its rate (TierSpec::congestion_loss).
    const double port_Bps =
        tier_port_Bps(cluster.preset(), tier) *
        (1 - cluster.preset().tiers[static_cast<std::size_t>(tier)].congestion_loss);
    const double link_Bps = cluster.links()[static_cast<std::size_t>(l)].spec.bandwidth_Bps;
    ports[static_cast<std::size_t>(l)] = std::max(1.0, std::round(link_Bps / port_Bps));
  }
  return ports;
}

}  // namespace

StageBuilder::StageBuilder(const Cluster& cluster, FlowGranularity granularity, const CostParams& p)
    : cluster_(cluster), granularity_(granularity) {
  if (granularity_ != FlowGranularity::aggregated) return;
  const auto links = static_cast<std::size_t>(cluster.topology().num_links());
  per_link_.assign(links, 0.0);
  if (p.collective_model != CollectiveModelKind::nccl) return;
  ecmp_ports_ = ecmp_uplink_ports(cluster);
  if (ecmp_ports_.empty()) return;
  connections_.assign(links, 0.0);
  flows_per_connection_ = p.ecmp_flows_per_connection;
}

void StageBuilder::add(double bytes, std::span<const int> links, double connections) {
  if (!(bytes > 0) || links.empty()) return;
  if (granularity_ == FlowGranularity::per_flow) {
    stage_.add_flow(bytes, links);
    return;
  }
  for (int l : links) {
    double& b = per_link_[static_cast<std::size_t>(l)];
    if (b == 0) touched_.push_back(l);
    b += bytes;
    if (!connections_.empty()) connections_[static_cast<std::size_t>(l)] += connections;
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
    // The stage waits for its busiest port on any hashed uplink: each uplink's slowdown is
    // the expected maximum over as many independent throws as the stage loads hashed uplinks.
    std::int64_t hashed = 0;
    if (!connections_.empty()) {
      for (int l : touched_) hashed += ecmp_ports_[static_cast<std::size_t>(l)] > 0 ? 1 : 0;
    }
    for (int l : touched_) {
      const auto at = static_cast<std::size_t>(l);
      double& b = per_link_[at];
      double bytes = b;
      if (!connections_.empty()) {
        if (ecmp_ports_[at] > 0) {
          const auto flows = static_cast<std::int64_t>(
              std::llround(connections_[at] * static_cast<double>(flows_per_connection_)));
          bytes *= ecmp_slowdown(flows, static_cast<std::int64_t>(ecmp_ports_[at]), hashed);
        }
        connections_[at] = 0;
      }
      out.add_flow(bytes, std::span<const int>(&l, 1));
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
  const Topology& topo = cluster.topology();
  // On a rail-optimised fabric the slowest pairs of a scale-out level cross rails (PXN hop):
  // take one of those when the level has any.
  const bool rails = level >= 2 && topo.rails() > 1;
  for (int step = 0; step < n; ++step) {
    const int src = (src_hint + step) % n;
    int same_rail = -1;
    for (int dst = 0; dst < n; ++dst) {
      if (dst == src || cluster.level_between(src, dst) != level) continue;
      if (!rails || topo.rail_of(dst) != topo.rail_of(src))
        return cluster.route(src, dst).latency_s;
      if (same_rail < 0) same_rail = dst;
    }
    if (same_rail >= 0) return cluster.route(src, same_rail).latency_s;
  }
  throw std::logic_error(fmt::format("no GPU pair at level {} in this cluster", level));
}

}  // namespace shardsim::cost_detail
