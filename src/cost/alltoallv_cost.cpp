// α-β cost of AlltoAll(v) from a per-pair byte matrix (docs/model.md, "AlltoAll(v)").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "shardsim/cost/collective_cost.hpp"
#include "topology_terms.hpp"

namespace shardsim {

namespace {

using cost_detail::require_link_rate;
using cost_detail::route_latency_s;

// Bytes each GPU sends and receives at each level (level 0, the GPU itself, stays 0).
struct LevelTotals {
  int levels = 0;
  std::vector<double> sent;      // [gpu * levels + level]
  std::vector<double> received;  // [gpu * levels + level]
  int farthest_level = 0;
  int far_src = -1;
  int far_dst = -1;
  double max_pair_scale_up = 0;  // the largest single in-domain entry (for direct meshes)

  double sent_at(int gpu, int level) const { return sent[index(gpu, level)]; }
  double received_at(int gpu, int level) const { return received[index(gpu, level)]; }
  // Bytes at levels >= `from` (e.g. from = 2: everything leaving the scale-up domain).
  double sent_from(int gpu, int from) const { return sum(sent, gpu, from); }
  double received_from(int gpu, int from) const { return sum(received, gpu, from); }

  std::size_t index(int gpu, int level) const {
    return static_cast<std::size_t>(gpu) * static_cast<std::size_t>(levels) +
           static_cast<std::size_t>(level);
  }
  double sum(const std::vector<double>& v, int gpu, int from) const {
    double s = 0;
    for (int l = from; l < levels; ++l) s += v[index(gpu, l)];
    return s;
  }
};

// Levels between GPUs, from a node x node table built once through the Cluster API, so that
// the N² pass does one table look-up per entry. Same rule as Cluster::level_between: 0 for the
// GPU itself, 1 within a scale-up domain, else 2 + the lowest tier whose group holds both
// nodes. A domain is a set of whole nodes, so GPUs of one node are always at level 1.
class LevelTable {
 public:
  explicit LevelTable(const Cluster& cluster)
      : nodes_(static_cast<std::size_t>(cluster.num_nodes())),
        gpu_node_(static_cast<std::size_t>(cluster.num_gpus())),
        table_(nodes_ * nodes_) {
    for (int g = 0; g < cluster.num_gpus(); ++g) {
      gpu_node_[static_cast<std::size_t>(g)] = static_cast<std::uint32_t>(cluster.node_of(g));
    }
    const std::size_t tiers = static_cast<std::size_t>(cluster.num_tiers());
    const int gpn = cluster.gpus_per_node();
    std::vector<int> domain(nodes_);
    std::vector<int> group(nodes_ * tiers);  // [node * tiers + tier]
    for (std::size_t node = 0; node < nodes_; ++node) {
      const int gpu = static_cast<int>(node) * gpn;
      domain[node] = cluster.scale_up_domain_of(gpu);
      for (std::size_t k = 0; k < tiers; ++k) {
        group[node * tiers + k] = cluster.tier_group_of(gpu, static_cast<int>(k));
      }
    }
    for (std::size_t a = 0; a < nodes_; ++a) {
      for (std::size_t b = 0; b < nodes_; ++b) {
        int level = 1;
        if (domain[a] != domain[b]) {
          level = 1 + static_cast<int>(tiers);  // unreachable: the top tier has one group
          for (std::size_t k = 0; k < tiers; ++k) {
            if (group[a * tiers + k] == group[b * tiers + k]) {
              level = 2 + static_cast<int>(k);
              break;
            }
          }
        }
        table_[a * nodes_ + b] = static_cast<std::uint8_t>(level);
      }
    }
  }
  // The levels from `src`'s node to every node; index with node_of(dst). Not for src == dst.
  const std::uint8_t* row_of(int src) const {
    return table_.data() + std::size_t{gpu_node_[static_cast<std::size_t>(src)]} * nodes_;
  }
  std::uint32_t node_of(int gpu) const { return gpu_node_[static_cast<std::size_t>(gpu)]; }

 private:
  std::size_t nodes_;
  std::vector<std::uint32_t> gpu_node_;
  std::vector<std::uint8_t> table_;  // [src node * nodes + dst node]
};

[[noreturn]] void bad_entry(int src, int dst, double b) {
  throw std::invalid_argument(fmt::format(
      "AlltoAll byte matrix entry ({}, {}) = {}: must be finite and >= 0", src, dst, b));
}

// One pass over the N x N matrix, O(1) per entry.
LevelTotals level_totals(const Cluster& cluster, const ByteMatrix& bytes) {
  const int n = cluster.num_gpus();
  const LevelTable levels(cluster);
  LevelTotals t;
  t.levels = cluster.num_levels();
  const auto nl = static_cast<std::size_t>(t.levels);
  t.sent.assign(static_cast<std::size_t>(n) * nl, 0.0);
  t.received.assign(t.sent.size(), 0.0);
  for (int src = 0; src < n; ++src) {
    const std::uint8_t* row = levels.row_of(src);
    double* sent = t.sent.data() + static_cast<std::size_t>(src) * nl;
    auto visit = [&](int dst) {
      const double b = bytes.at(src, dst);
      if (!(b >= 0) || !std::isfinite(b)) bad_entry(src, dst, b);
      const std::size_t level = row[levels.node_of(dst)];
      sent[level] += b;
      t.received[static_cast<std::size_t>(dst) * nl + level] += b;
      if (level == 1 && b > t.max_pair_scale_up) t.max_pair_scale_up = b;
    };
    for (int dst = 0; dst < src; ++dst) visit(dst);
    for (int dst = src + 1; dst < n; ++dst) visit(dst);
  }
  // The farthest level with any bytes, and one pair at that level (for its route latency).
  for (int src = 0; src < n; ++src) {
    for (int level = t.levels - 1; level > t.farthest_level; --level) {
      if (t.sent_at(src, level) > 0) t.farthest_level = level;
    }
  }
  if (t.farthest_level == 0) return t;
  for (int src = 0; src < n && t.far_src < 0; ++src) {
    if (!(t.sent_at(src, t.farthest_level) > 0)) continue;
    const std::uint8_t* row = levels.row_of(src);
    for (int dst = 0; dst < n; ++dst) {
      if (dst != src && row[levels.node_of(dst)] == t.farthest_level && bytes.at(src, dst) > 0) {
        t.far_src = src;
        t.far_dst = dst;
        break;
      }
    }
  }
  return t;
}

}  // namespace

// Injection bound over the topology (idle network):
//   T = max( max_i max(up_send_i, up_recv_i) / bw_up,                       scale-up domain
//            (direct NVLink mesh: also max_{i,j} b_ij / (bw_up / (g − 1)), one link per peer)
//            max_i max(out_send_i, out_recv_i) / bw_nic_share,              GPU's NIC share
//            max_{k < top, group G} max(bytes out of G, into G) / uplink_k ) tier uplinks
//       / collective_bandwidth_efficiency
//     + route latency of the farthest level used + collective_launch_s.
// Neo App. A/B: AlltoAll "primarily depends on the scale-out bandwidth".
AlltoallvBounds alltoallv_bounds(const Cluster& cluster, const ByteMatrix& bytes,
                                 const CostParams& p) {
  const int n = cluster.num_gpus();
  if (bytes.size() != n) {
    throw std::invalid_argument(fmt::format(
        "AlltoAll byte matrix is {0}x{0} but the cluster has {1} GPUs", bytes.size(), n));
  }
  const LevelTotals t = level_totals(cluster, bytes);
  AlltoallvBounds out;
  if (t.farthest_level == 0) return out;  // nothing crosses between GPUs
  const double eff = p.collective_bandwidth_efficiency;
  constexpr int kScaleUp = 1;
  constexpr int kFirstScaleOut = 2;

  double up_bytes = 0;
  double nic_bytes = 0;
  for (int g = 0; g < n; ++g) {
    up_bytes = std::max({up_bytes, t.sent_at(g, kScaleUp), t.received_at(g, kScaleUp)});
    nic_bytes =
        std::max({nic_bytes, t.sent_from(g, kFirstScaleOut), t.received_from(g, kFirstScaleOut)});
  }
  if (up_bytes > 0) {
    const double up_Bps =
        require_link_rate(cluster.scale_up_Bps_per_gpu(), "scale_up.bandwidth_GBps", cluster);
    out.scale_up_s = up_bytes / (up_Bps * eff);
    // A direct NVLink mesh splits a GPU's scale-up bandwidth evenly over its peers
    // (configs/hardware schema, scale_up_kind: nvlink): one pair gets up_Bps / (g - 1).
    const int peers = cluster.gpus_per_scale_up_domain() - 1;
    if (cluster.preset().scale_up_kind == "nvlink" && peers > 1) {
      out.scale_up_s = std::max(out.scale_up_s, t.max_pair_scale_up / (up_Bps / peers * eff));
    }
  }
  if (nic_bytes > 0) {
    out.scale_out_s =
        nic_bytes /
        (require_link_rate(cluster.scale_out_Bps_per_gpu(), "nic.bandwidth_Gbitps", cluster) * eff);
  }

  // Tier k's uplink carries the traffic whose lowest common switch is above tier k, i.e. at
  // levels >= 3 + k. The top tier has a single group: nothing leaves it.
  for (int tier = 0; tier + 1 < cluster.num_tiers(); ++tier) {
    const int from_level = kFirstScaleOut + tier + 1;
    if (from_level > t.farthest_level) break;
    std::vector<double> group_out(static_cast<std::size_t>(cluster.num_tier_groups(tier)), 0.0);
    std::vector<double> group_in(group_out.size(), 0.0);
    for (int g = 0; g < n; ++g) {
      const auto grp = static_cast<std::size_t>(cluster.tier_group_of(g, tier));
      group_out[grp] += t.sent_from(g, from_level);
      group_in[grp] += t.received_from(g, from_level);
    }
    const double worst = std::max(*std::max_element(group_out.begin(), group_out.end()),
                                  *std::max_element(group_in.begin(), group_in.end()));
    if (worst <= 0) continue;
    const double uplink =
        require_link_rate(cluster.tier_uplink_Bps(tier), fmt::format("tiers[{}]", tier), cluster);
    const double s = worst / (uplink * eff);
    if (s > out.tier_uplink_s) {
      out.tier_uplink_s = s;
      out.tier_uplink_tier = tier;
    }
  }

  out.farthest_level = t.farthest_level;
  out.latency_s = route_latency_s(cluster, t.far_src, t.far_dst);
  out.launch_s = p.collective_launch_s;
  out.total_s =
      std::max({out.scale_up_s, out.scale_out_s, out.tier_uplink_s}) + out.latency_s + out.launch_s;
  return out;
}

double alltoallv_s(const Cluster& cluster, const ByteMatrix& bytes, const CostParams& p) {
  return alltoallv_bounds(cluster, bytes, p).total_s;
}

}  // namespace shardsim
