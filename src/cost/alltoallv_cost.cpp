// α-β cost of AlltoAll(v) from a per-pair byte matrix, or its per-level totals
// (docs/model.md, "AlltoAll(v)").
#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "cost/collective_shape.hpp"
#include "cost/demand_builder.hpp"
#include "cost/topology_terms.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

namespace {

using cost_detail::level_latency_s;
using cost_detail::StageBuilder;

constexpr int kScaleUp = 1;
constexpr int kFirstScaleOut = 2;

// The first GPU sending at `level` (the representative pair's source for the α term).
int first_sender_at(const LevelTraffic& t, int level) {
  for (int g = 0; g < t.num_gpus(); ++g) {
    if (t.sent(g, level) > 0) return g;
  }
  return 0;
}

// Rail-optimised fabrics (docs/model.md, "Rail-optimised fabrics"): the share of all
// off-domain bytes that GPUs of each rail receive. Level traffic keeps no destinations, so a
// GPU's off-domain sends are taken to split over the rails in these shares (exact for the
// uniform AlltoAll, whose every GPU receives alike).
std::vector<double> destination_rail_shares(const Cluster& cluster, const LevelTraffic& t) {
  const Topology& topo = cluster.topology();
  std::vector<double> share(static_cast<std::size_t>(topo.rails()), 0.0);
  double total = 0;
  for (int g = 0; g < cluster.num_gpus(); ++g) {
    const double in = t.received_from(g, kFirstScaleOut);
    share[static_cast<std::size_t>(topo.rail_of(g))] += in;
    total += in;
  }
  for (double& s : share) s = total > 0 ? s / total : 1.0 / static_cast<double>(share.size());
  return share;
}

// The sends of a rail-optimised fabric (NCCL's PXN): a GPU's off-domain bytes for rail q cross
// the scale-up fabric to its node's first GPU on rail q (unless it is on rail q itself), which
// pushes the node's rail-q bytes through its NIC: GPU -> NIC and NIC -> rail switch carry the
// node's sends times rail q's share.
void add_rail_sends(StageBuilder& stage, const Cluster& cluster, const LevelTraffic& t,
                    std::span<const double> rail_share, std::vector<double>& nic_out) {
  const Topology& topo = cluster.topology();
  const int per_node = cluster.gpus_per_node();
  const int rails = topo.rails();
  const int per_rail = per_node / rails;
  for (int node = 0; node < cluster.num_nodes(); ++node) {
    const int first = node * per_node;
    for (int r = 0; r < rails; ++r) {
      const int proxy = first + r * per_rail;
      const double share = rail_share[static_cast<std::size_t>(r)];
      double through_nic = 0;
      for (int g = first; g < first + per_node; ++g) {
        const double bytes = t.sent_from(g, kFirstScaleOut) * share;
        if (!(bytes > 0)) continue;
        through_nic += bytes;
        if (topo.rail_of(g) == r) {
          if (g != proxy) stage.add_on_link(bytes, topo.up_link(g));  // its own NIC
          continue;
        }
        if (topo.direct_mesh()) {
          stage.add_on_link(bytes, topo.mesh_link(g, proxy));
        } else {
          stage.add_on_link(bytes, topo.scale_up_tx_link(g));
          stage.add_on_link(bytes, topo.scale_up_rx_link(proxy));
        }
      }
      // The proxy's GPU -> NIC link: everything of rail r but what its NIC-mates sent directly.
      double direct = 0;
      for (int g = proxy + 1; g < proxy + per_rail; ++g)
        direct += t.sent_from(g, kFirstScaleOut) * share;
      stage.add_on_link(through_nic - direct, topo.up_link(proxy));
      nic_out[static_cast<std::size_t>(topo.nic_vertex(proxy))] += through_nic;
    }
  }
}

// The aggregated loads of one AlltoAll(v), link by link:
//   scale-up     switched: GPU -> switch carries its in-domain sends, switch -> GPU its
//                in-domain receives; direct mesh: each pair's bytes on the pair's link
//   GPU <-> NIC  the GPU's off-domain sends / receives
//   NIC <-> tier 0   the sum over the GPUs sharing the NIC
//   tier k uplink / downlink (k below the top)   bytes leaving / entering the tier-k group,
//                i.e. at levels >= 3 + k; as connections (for ECMP tiers), every sending
//                participant of the group times the participants outside it (one per peer)
void add_alltoallv_loads(StageBuilder& stage, const Cluster& cluster, const LevelTraffic& t,
                         std::span<const int> participants) {
  const Topology& topo = cluster.topology();
  const int n = cluster.num_gpus();
  const bool mesh = topo.direct_mesh();
  const int per_domain = cluster.gpus_per_scale_up_domain();
  std::vector<double> nic_out(static_cast<std::size_t>(topo.num_vertices()), 0.0);
  std::vector<double> nic_in(nic_out.size(), 0.0);
  const int rails = topo.rails();
  const std::vector<double> rail_share =
      rails > 1 ? destination_rail_shares(cluster, t) : std::vector<double>{};
  for (int g = 0; g < n; ++g) {
    if (mesh) {
      const int first = g / per_domain * per_domain;
      for (int peer = first; peer < first + per_domain; ++peer) {
        if (peer != g) stage.add_on_link(t.domain_pair(g, peer), topo.mesh_link(g, peer));
      }
    } else {
      stage.add_on_link(t.sent(g, kScaleUp), topo.scale_up_tx_link(g));
      stage.add_on_link(t.received(g, kScaleUp), topo.scale_up_rx_link(g));
    }
    const double in = t.received_from(g, kFirstScaleOut);
    stage.add_on_link(in, topo.down_link(g));
    nic_in[static_cast<std::size_t>(topo.nic_vertex(g))] += in;
    if (rails > 1) continue;  // sends below, by destination rail
    const double out = t.sent_from(g, kFirstScaleOut);
    stage.add_on_link(out, topo.up_link(g));
    nic_out[static_cast<std::size_t>(topo.nic_vertex(g))] += out;
  }
  if (rails > 1) add_rail_sends(stage, cluster, t, rail_share, nic_out);
  for (std::size_t v = 0; v < nic_out.size(); ++v) {
    if (nic_out[v] > 0) stage.add_on_link(nic_out[v], topo.up_link(static_cast<int>(v)));
    if (nic_in[v] > 0) stage.add_on_link(nic_in[v], topo.down_link(static_cast<int>(v)));
  }
  // Tier k's uplink carries the traffic whose lowest common switch is above tier k. The top
  // tier has a single group: nothing leaves it.
  const int far = t.farthest_level();
  const double members = participants.empty() ? n : static_cast<double>(participants.size());
  for (int tier = 0; tier + 1 < cluster.num_tiers(); ++tier) {
    const int from_level = kFirstScaleOut + tier + 1;
    if (from_level > far) break;
    const auto groups = static_cast<std::size_t>(cluster.num_tier_groups(tier));
    std::vector<double> out(groups, 0.0);
    std::vector<double> in(groups, 0.0);
    std::vector<double> senders(groups, 0.0);
    std::vector<double> receivers(groups, 0.0);
    std::vector<double> inside(groups, 0.0);
    if (participants.empty()) {
      for (int g = 0; g < n; ++g)
        inside[static_cast<std::size_t>(cluster.tier_group_of(g, tier))] += 1;
    } else {
      for (int g : participants)
        inside[static_cast<std::size_t>(cluster.tier_group_of(g, tier))] += 1;
    }
    for (int g = 0; g < n; ++g) {
      const auto grp = static_cast<std::size_t>(cluster.tier_group_of(g, tier));
      const double sent = t.sent_from(g, from_level);
      const double received = t.received_from(g, from_level);
      out[grp] += sent;
      in[grp] += received;
      if (sent > 0) senders[grp] += 1;
      if (received > 0) receivers[grp] += 1;
    }
    if (tier == 0 && rails > 1) {
      // One switch per rail: a group's sends leave on the destination's rail (PXN), its
      // receives arrive on the receiver's.
      std::vector<double> in_rail(groups * static_cast<std::size_t>(rails), 0.0);
      std::vector<double> receivers_rail(in_rail.size(), 0.0);
      for (int g = 0; g < n; ++g) {
        const double received = t.received_from(g, from_level);
        const auto at =
            static_cast<std::size_t>(cluster.tier_group_of(g, 0) * rails + topo.rail_of(g));
        in_rail[at] += received;
        if (received > 0) receivers_rail[at] += 1;
      }
      for (std::size_t grp = 0; grp < groups; ++grp) {
        const double outside = std::max(1.0, members - inside[grp]);
        for (int r = 0; r < rails; ++r) {
          const int v = topo.rail_switch_vertex(static_cast<int>(grp), r);
          const double share = rail_share[static_cast<std::size_t>(r)];
          const auto at = grp * static_cast<std::size_t>(rails) + static_cast<std::size_t>(r);
          stage.add_on_link(out[grp] * share, topo.up_link(v), senders[grp] * outside * share);
          stage.add_on_link(in_rail[at], topo.down_link(v), receivers_rail[at] * outside);
        }
      }
      continue;
    }
    for (std::size_t grp = 0; grp < groups; ++grp) {
      const int v = topo.tier_switch_vertex(tier, static_cast<int>(grp));
      const double outside = std::max(1.0, members - inside[grp]);
      stage.add_on_link(out[grp], topo.up_link(v), senders[grp] * outside);
      stage.add_on_link(in[grp], topo.down_link(v), receivers[grp] * outside);
    }
  }
}

// The peer term (nccl model; alltoall_peers_s): each participant sends to and receives from every
// other participant. No participants given: every GPU takes part.
double peer_latency_s(const Cluster& cluster, std::span<const int> participants,
                      const CostParams& p) {
  const int n = cluster.num_gpus();
  std::vector<int> per_domain(static_cast<std::size_t>(cluster.num_scale_up_domains()), 0);
  const auto count = [&](int g) {
    ++per_domain[static_cast<std::size_t>(cluster.scale_up_domain_of(g))];
  };
  std::size_t members = 0;
  if (participants.empty()) {
    for (int g = 0; g < n; ++g) count(g);
    members = static_cast<std::size_t>(n);
  } else {
    for (int g : participants) count(g);
    members = participants.size();
  }
  std::vector<std::pair<double, double>> peers;  // (in the domain, outside it) per populated domain
  for (int in_domain : per_domain) {
    if (in_domain > 0)
      peers.emplace_back(in_domain - 1.0, static_cast<double>(members) - in_domain);
  }
  return cost_detail::alltoall_peers_s(peers, p);
}

// One stage; under the nccl model the launch is the GPU's kernel launch and the stage also
// waits for the peers' costs (docs/model.md, "AlltoAll(v)").
CollectiveDemand demand_with_stage(const Cluster& cluster, CollectiveStage stage, double payload,
                                   std::span<const int> participants, const CostParams& p) {
  CollectiveDemand d;
  d.payload_bytes = payload;
  if (stage.flows.empty()) return d;  // nothing crosses between GPUs: free
  d.launch_s = p.collective_launch_s;
  if (p.collective_model == CollectiveModelKind::nccl) {
    d.launch_s = cluster.gpu().kernel_launch_s;
    stage.latency_s += peer_latency_s(cluster, participants, p);
  }
  d.stages.push_back(std::move(stage));
  return d;
}

}  // namespace

CollectiveDemand alltoallv_demand(const Cluster& cluster, const LevelTraffic& traffic,
                                  const CostParams& p, std::span<const int> participants) {
  if (traffic.num_gpus() != cluster.num_gpus()) {
    throw std::invalid_argument("AlltoAll traffic shaped for another cluster");
  }
  StageBuilder stage(cluster, FlowGranularity::aggregated, p);
  add_alltoallv_loads(stage, cluster, traffic, participants);
  const int far = traffic.farthest_level();
  const double latency = level_latency_s(cluster, far, first_sender_at(traffic, far));
  return demand_with_stage(cluster, stage.finish(latency), traffic.total(), participants, p);
}

CollectiveDemand alltoallv_demand(const Cluster& cluster, const ByteMatrix& bytes,
                                  const CostParams& p, FlowGranularity granularity,
                                  std::span<const int> participants) {
  const LevelTraffic traffic = LevelTraffic::from_matrix(cluster, bytes);  // validates
  if (granularity == FlowGranularity::aggregated) {
    return alltoallv_demand(cluster, traffic, p, participants);
  }
  // Per flow: one flow per ordered pair with bytes, over the pair's route.
  StageBuilder stage(cluster, FlowGranularity::per_flow, p);
  const int n = cluster.num_gpus();
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      if (src != dst) stage.add_route(bytes.at(src, dst), src, dst);
    }
  }
  const int far = traffic.farthest_level();
  const double latency = level_latency_s(cluster, far, first_sender_at(traffic, far));
  return demand_with_stage(cluster, stage.finish(latency), traffic.total(), participants, p);
}

// The bounds are the aggregated demand's link loads, grouped by link kind:
//   T = max( scale-up links, GPU/NIC links, tier uplinks ) / efficiency + α + launch.
// Neo App. A/B: AlltoAll "primarily depends on the scale-out bandwidth".
AlltoallvBounds alltoallv_bounds(const Cluster& cluster, const LevelTraffic& traffic,
                                 const CostParams& p) {
  const CollectiveDemand d = alltoallv_demand(cluster, traffic, p);
  AlltoallvBounds out;
  if (d.stages.empty()) return out;
  const CollectiveStage& stage = d.stages.front();
  const Topology& topo = cluster.topology();
  const auto& links = cluster.links();
  for (const DemandFlow& f : stage.flows) {
    const int l = stage.links[f.first_link];
    const LinkInfo& info = links[static_cast<std::size_t>(l)];
    const double bw = cost_detail::require_link_rate(info.spec.bandwidth_Bps, info.name, cluster);
    const double s = f.bytes / (bw * p.collective_bandwidth_efficiency);
    switch (topo.link_kind(l)) {
      case LinkKind::scale_up:
        out.scale_up_s = std::max(out.scale_up_s, s);
        break;
      case LinkKind::gpu_nic:
      case LinkKind::nic_tier:
        out.scale_out_s = std::max(out.scale_out_s, s);
        break;
      case LinkKind::tier_tier:
        if (s > out.tier_uplink_s) {
          out.tier_uplink_s = s;
          out.tier_uplink_tier = topo.link_lower_tier(l);
        }
        break;
    }
  }
  out.farthest_level = traffic.farthest_level();
  out.latency_s = stage.latency_s;
  out.launch_s = d.launch_s;
  // Summed in idle_time_s's order, so that both give the same double.
  out.total_s = out.launch_s +
                (out.latency_s + std::max({out.scale_up_s, out.scale_out_s, out.tier_uplink_s}));
  return out;
}

AlltoallvBounds alltoallv_bounds(const Cluster& cluster, const ByteMatrix& bytes,
                                 const CostParams& p) {
  return alltoallv_bounds(cluster, LevelTraffic::from_matrix(cluster, bytes), p);
}

double alltoallv_s(const Cluster& cluster, const ByteMatrix& bytes, const CostParams& p) {
  return alltoallv_bounds(cluster, bytes, p).total_s;
}

double alltoallv_s(const Cluster& cluster, const LevelTraffic& traffic, const CostParams& p) {
  return idle_time_s(cluster, alltoallv_demand(cluster, traffic, p), p);
}

}  // namespace shardsim
