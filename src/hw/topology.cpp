#include "shardsim/hw/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace shardsim {

namespace {

// The uplinks' built rate (before congestion): each tier's is sized on the built rate of the
// tier below.
double built_uplink_Bps(const HardwarePreset& preset, int tier) {
  if (tier < 0 || tier >= static_cast<int>(preset.tiers.size())) {
    throw std::out_of_range(fmt::format("tier {} of {}", tier, preset.tiers.size()));
  }
  // Tier 0's children are nodes, each with nics_per_node NICs of nic.bandwidth.
  double child_Bps = preset.nics_per_node * preset.nic.bandwidth_Bps;
  double uplink_Bps = 0;
  for (int k = 0; k <= tier; ++k) {
    const TierSpec& t = preset.tiers[static_cast<std::size_t>(k)];
    uplink_Bps = t.fanout * child_Bps / t.oversubscription;
    child_Bps = uplink_Bps;
  }
  return uplink_Bps;
}

}  // namespace

double tier_uplink_Bps(const HardwarePreset& preset, int tier) {
  return built_uplink_Bps(preset, tier) *
         (1 - preset.tiers[static_cast<std::size_t>(tier)].congestion_loss);
}

double tier_port_Bps(const HardwarePreset& preset, int tier) {
  const TierSpec& t = preset.tiers.at(static_cast<std::size_t>(tier));
  return t.port_Bps > 0 ? t.port_Bps : preset.nic.bandwidth_Bps;
}

std::int64_t tier_uplink_ports(const HardwarePreset& preset, int tier) {
  const double ports = std::round(built_uplink_Bps(preset, tier) / tier_port_Bps(preset, tier));
  return ports < 1      ? 1
         : ports > 1e15 ? static_cast<std::int64_t>(1e15)
                        : static_cast<std::int64_t>(ports);
}

std::int64_t tier_capacity_nodes(const HardwarePreset& preset, int tier) {
  if (tier < 0 || tier >= static_cast<int>(preset.tiers.size())) {
    throw std::out_of_range(fmt::format("tier {} of {}", tier, preset.tiers.size()));
  }
  constexpr std::int64_t kCap = std::numeric_limits<std::int64_t>::max() / 2;
  std::int64_t nodes = 1;
  for (int k = 0; k <= tier; ++k) {
    const std::int64_t f = std::max(1, preset.tiers[static_cast<std::size_t>(k)].fanout);
    nodes = nodes > kCap / f ? kCap : nodes * f;
  }
  return nodes;
}

namespace {

// Keeps the downward links of the scale-out tree (tier -> tier, tier -> NIC, NIC -> GPU).
struct DownTreeLinks {
  const Topology::Graph* graph = nullptr;
  bool operator()(const Topology::Graph::edge_descriptor& e) const {
    const TopoEdge& p = (*graph)[e];
    return !p.upward && p.kind != LinkKind::scale_up;
  }
};

struct TreeRecorder : boost::default_bfs_visitor {
  const Topology::Graph* graph = nullptr;
  std::vector<int>* parent = nullptr;
  std::vector<int>* down = nullptr;
  template <class Edge, class G>
  void tree_edge(const Edge& e, const G& g) const {
    const auto v = boost::target(e, g);
    (*parent)[v] = static_cast<int>(boost::source(e, g));
    (*down)[v] = (*graph)[e].id;
  }
};

}  // namespace

Topology::Topology(const HardwarePreset& preset, int nodes) {
  gpus_per_node_ = preset.gpus_per_node;
  num_gpus_ = nodes * gpus_per_node_;
  gpus_per_domain_ = gpus_per_node_ * preset.scale_up_domain_nodes;
  const int domains = nodes / preset.scale_up_domain_nodes;
  mesh_ = preset.scale_up_kind == "nvlink";
  switch_prefix_ = preset.scale_up_kind == "pcie" ? "pcie" : "nvswitch";
  const int num_tiers = static_cast<int>(preset.tiers.size());
  for (const TierSpec& t : preset.tiers) tier_names_.push_back(t.name);

  // Several NICs per GPU are merged into one NIC vertex per GPU; otherwise one vertex per NIC,
  // shared by gpus_per_node / nics_per_node GPUs.
  double nic_vertex_Bps = preset.nic_delivered_Bps();
  if (preset.nics_per_node >= gpus_per_node_) {
    nic_vertices_per_node_ = gpus_per_node_;
    gpus_per_nic_vertex_ = 1;
    nic_vertex_Bps *= preset.nics_per_node / gpus_per_node_;
  } else {
    nic_vertices_per_node_ = preset.nics_per_node;
    gpus_per_nic_vertex_ = gpus_per_node_ / preset.nics_per_node;
  }

  for (int k = 0; k < num_tiers; ++k) {
    group_nodes_.push_back(tier_capacity_nodes(preset, k));
    const std::int64_t g = (nodes + group_nodes_.back() - 1) / group_nodes_.back();
    groups_.push_back(k == num_tiers - 1 ? 1 : static_cast<int>(g));
  }

  // Vertices, in blocks: GPUs, scale-up switches, NICs, tier switches (bottom tier first).
  for (int g = 0; g < num_gpus_; ++g) add_vertex(VertexKind::gpu, g, -1);
  switch_base_ = num_vertices();
  if (!mesh_) {
    for (int d = 0; d < domains; ++d) add_vertex(VertexKind::scale_up_switch, d, -1);
  }
  nic_base_ = num_vertices();
  for (int n = 0; n < nodes * nic_vertices_per_node_; ++n) add_vertex(VertexKind::nic, n, -1);
  // Rail-optimised: tier 0 has one switch per rail (NIC vertex index within the node) per group.
  rails_ = preset.rail_optimized ? nic_vertices_per_node_ : 1;
  for (int k = 0; k < num_tiers; ++k) {
    tier_base_.push_back(num_vertices());
    for (int i = 0; i < num_tier_switches(k); ++i) add_vertex(VertexKind::tier_switch, i, k);
  }
  traversal_s_.assign(static_cast<std::size_t>(num_vertices()), 0.0);
  for (int v = switch_base_; v < nic_base_; ++v) traversal_s_[v] = preset.scale_up.latency_s;
  for (int v = nic_base_; v < tier_base_[0]; ++v) traversal_s_[v] = preset.nic.latency_s;
  for (int k = 0; k < num_tiers; ++k) {
    for (int i = 0; i < num_tier_switches(k); ++i) {
      traversal_s_[static_cast<std::size_t>(tier_base_[k] + i)] =
          preset.tiers[static_cast<std::size_t>(k)].latency_s;
    }
  }

  // Links: scale-up, GPU <-> NIC, NIC <-> tier 0, tier k <-> tier k+1.
  const std::size_t expected_links = 2 * (static_cast<std::size_t>(num_gpus_) * 2 +
                                          static_cast<std::size_t>(nodes) * nic_vertices_per_node_ +
                                          static_cast<std::size_t>(num_vertices()));
  links_.reserve(expected_links);
  link_source_.reserve(expected_links);
  link_target_.reserve(expected_links);
  reverse_.reserve(expected_links);
  link_kind_.reserve(expected_links);
  if (mesh_) {
    // A direct full mesh: each GPU's scale-up bandwidth is split evenly over its peers (A100
    // 4-GPU board: 12 links = 3 peers x 4 links). One traversal of the fabric per message.
    const int n = gpus_per_domain_;
    const double pair_Bps = n > 1 ? preset.scale_up.bandwidth_Bps / (n - 1) : 0.0;
    mesh_link_.assign(static_cast<std::size_t>(domains) * n * n, -1);
    for (int d = 0; d < domains; ++d) {
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
          const int id = add_link_pair(d * n + i, d * n + j, LinkKind::scale_up, pair_Bps,
                                       preset.scale_up.latency_s);
          const std::size_t base = static_cast<std::size_t>(d) * n * n;
          mesh_link_[base + static_cast<std::size_t>(i * n + j)] = id;
          mesh_link_[base + static_cast<std::size_t>(j * n + i)] = id + 1;
        }
      }
    }
  } else {
    for (int g = 0; g < num_gpus_; ++g) {
      add_link_pair(g, switch_base_ + g / gpus_per_domain_, LinkKind::scale_up,
                    preset.scale_up.bandwidth_Bps, -1);
    }
  }
  for (int g = 0; g < num_gpus_; ++g) {
    add_link_pair(nic_vertex(g), g, LinkKind::gpu_nic, nic_vertex_Bps, -1);
  }
  for (int node = 0; node < nodes; ++node) {
    const int group = tier_group_of_node(node, 0);
    for (int i = 0; i < nic_vertices_per_node_; ++i) {
      const int tier0 = rails_ > 1 ? rail_switch_vertex(group, i) : tier_switch_vertex(0, group);
      add_link_pair(tier0, nic_base_ + node * nic_vertices_per_node_ + i, LinkKind::nic_tier,
                    nic_vertex_Bps, -1);
    }
  }
  for (int k = 0; k + 1 < num_tiers; ++k) {
    // A rail switch carries its rail's share of the group's uplink.
    const double up_Bps = tier_uplink_Bps(preset, k) / (k == 0 ? rails_ : 1);
    for (int i = 0; i < num_tier_switches(k); ++i) {
      const int group = k == 0 ? i / rails_ : i;
      const auto first_node = static_cast<std::int64_t>(group) * group_nodes_[k];
      const int parent_group = static_cast<int>(first_node / group_nodes_[k + 1]);
      add_link_pair(tier_base_[static_cast<std::size_t>(k + 1)] + parent_group,
                    tier_base_[static_cast<std::size_t>(k)] + i, LinkKind::tier_tier, up_Bps, -1);
    }
  }
  compute_tree();
}

int Topology::add_vertex(VertexKind kind, int index, int tier) {
  return static_cast<int>(boost::add_vertex(TopoVertex{kind, index, tier}, graph_));
}

int Topology::add_link_pair(int u, int v, LinkKind kind, double bandwidth_Bps, double latency_s) {
  // latency_s < 0: half of each endpoint's traversal latency (see topology.hpp).
  const double lat_s = latency_s >= 0 ? latency_s
                                      : 0.5 * (traversal_s_[static_cast<std::size_t>(u)] +
                                               traversal_s_[static_cast<std::size_t>(v)]);
  // For the tree, u is the upper end: u -> v is downward. For scale-up pairs u is the GPU
  // (or, in a mesh, the lower-numbered GPU), so u -> v is "upward" towards the switch.
  const bool tree = kind != LinkKind::scale_up;
  const int id = num_links();
  for (int dir = 0; dir < 2; ++dir) {
    const int from = dir == 0 ? u : v;
    const int to = dir == 0 ? v : u;
    const bool upward = tree ? dir == 1 : dir == 0;
    boost::add_edge(static_cast<std::size_t>(from), static_cast<std::size_t>(to),
                    TopoEdge{id + dir, kind, upward}, graph_);
    links_.push_back(LinkInfo{id + dir, fmt::format("{}->{}", vertex_name(from), vertex_name(to)),
                              LinkSpec{bandwidth_Bps, lat_s}});
    link_source_.push_back(from);
    link_target_.push_back(to);
    reverse_.push_back(id + 1 - dir);
    link_kind_.push_back(kind);
  }
  return id;
}

void Topology::compute_tree() {
  const auto n = static_cast<std::size_t>(num_vertices());
  parent_.assign(n, -1);
  down_link_.assign(n, -1);
  up_link_.assign(n, -1);
  const int root = tier_switch_vertex(static_cast<int>(tier_names_.size()) - 1, 0);
  boost::filtered_graph<Graph, DownTreeLinks> down_tree(graph_, DownTreeLinks{&graph_});
  TreeRecorder recorder;
  recorder.graph = &graph_;
  recorder.parent = &parent_;
  recorder.down = &down_link_;
  boost::breadth_first_search(down_tree, static_cast<std::size_t>(root), boost::visitor(recorder));
  for (std::size_t v = 0; v < n; ++v) {
    if (down_link_[v] >= 0) up_link_[v] = reverse_[static_cast<std::size_t>(down_link_[v])];
  }
  for (int g = 0; g < num_gpus_; ++g) {
    if (parent_[static_cast<std::size_t>(g)] < 0) {
      throw std::logic_error(fmt::format("topology: gpu{} is not reachable from the root", g));
    }
  }
}

std::string Topology::vertex_name(int vertex) const {
  const TopoVertex& v = graph_[static_cast<std::size_t>(vertex)];
  switch (v.kind) {
    case VertexKind::gpu:
      return fmt::format("gpu{}", v.index);
    case VertexKind::scale_up_switch:
      return fmt::format("{}{}", switch_prefix_, v.index);
    case VertexKind::nic:
      return fmt::format("nic{}", v.index);
    case VertexKind::tier_switch:
      if (v.tier == 0 && rails_ > 1) {  // "rack3.rail5"
        return fmt::format("{}{}.rail{}", tier_names_[0], v.index / rails_, v.index % rails_);
      }
      return fmt::format("{}{}", tier_names_[static_cast<std::size_t>(v.tier)], v.index);
  }
  return "?";
}

int Topology::scale_up_switch_vertex(int domain) const {
  if (mesh_) return -1;
  if (domain < 0 || switch_base_ + domain >= nic_base_) {
    throw std::out_of_range(fmt::format("scale-up domain {}", domain));
  }
  return switch_base_ + domain;
}

int Topology::nic_vertex(int gpu) const {
  if (gpu < 0 || gpu >= num_gpus_) throw std::out_of_range(fmt::format("gpu {}", gpu));
  const int node = gpu / gpus_per_node_;
  const int local = gpu % gpus_per_node_;
  return nic_base_ + node * nic_vertices_per_node_ + local / gpus_per_nic_vertex_;
}

int Topology::tier_switch_vertex(int tier, int group) const {
  if (tier < 0 || tier >= static_cast<int>(groups_.size()) || group < 0 ||
      group >= groups_[static_cast<std::size_t>(tier)]) {
    throw std::out_of_range(fmt::format("tier {} group {}", tier, group));
  }
  if (tier == 0 && rails_ > 1) {
    throw std::logic_error(
        "a rail-optimised tier 0 has one switch per rail: use rail_switch_vertex");
  }
  return tier_base_[static_cast<std::size_t>(tier)] + group;
}

int Topology::rail_switch_vertex(int group, int rail) const {
  if (group < 0 || group >= groups_.front() || rail < 0 || rail >= rails_) {
    throw std::out_of_range(fmt::format("tier 0 group {} rail {}", group, rail));
  }
  return tier_base_.front() + group * rails_ + rail;
}

int Topology::num_tier_switches(int tier) const {
  return groups_.at(static_cast<std::size_t>(tier)) * (tier == 0 ? rails_ : 1);
}

int Topology::rail_of(int gpu) const {
  return gpu % gpus_per_node_ / gpus_per_nic_vertex_;
}

int Topology::tier_group_of_node(int node, int tier) const {
  return static_cast<int>(node / group_nodes_.at(static_cast<std::size_t>(tier)));
}

int Topology::link_lower_tier(int link) const {
  if (link_kind(link) != LinkKind::tier_tier) return -1;
  const int a = graph_[static_cast<std::size_t>(link_source(link))].tier;
  const int b = graph_[static_cast<std::size_t>(link_target(link))].tier;
  return std::min(a, b);
}

int Topology::scale_up_tx_link(int gpu) const {
  if (mesh_ || gpu < 0 || gpu >= num_gpus_) {
    throw std::invalid_argument(fmt::format("no switched scale-up link for gpu{}", gpu));
  }
  return 2 * gpu;  // see append_scale_up_path
}

int Topology::scale_up_rx_link(int gpu) const {
  return scale_up_tx_link(gpu) + 1;
}

int Topology::mesh_link(int src_gpu, int dst_gpu) const {
  const int n = gpus_per_domain_;
  if (!mesh_ || src_gpu == dst_gpu || src_gpu < 0 || dst_gpu < 0 || src_gpu >= num_gpus_ ||
      dst_gpu >= num_gpus_ || src_gpu / n != dst_gpu / n) {
    throw std::invalid_argument(fmt::format("no mesh link from gpu{} to gpu{}", src_gpu, dst_gpu));
  }
  const std::size_t base = static_cast<std::size_t>(src_gpu / n) * n * n;
  return mesh_link_[base + static_cast<std::size_t>((src_gpu % n) * n + dst_gpu % n)];
}

void Topology::append_scale_up_path(int src_gpu, int dst_gpu, std::vector<int>& out) const {
  if (src_gpu / gpus_per_domain_ != dst_gpu / gpus_per_domain_ || src_gpu == dst_gpu) {
    throw std::invalid_argument(
        fmt::format("no scale-up path from gpu{} to gpu{}", src_gpu, dst_gpu));
  }
  if (mesh_) {
    const int n = gpus_per_domain_;
    const std::size_t base = static_cast<std::size_t>(src_gpu / n) * n * n;
    out.push_back(mesh_link_[base + static_cast<std::size_t>((src_gpu % n) * n + dst_gpu % n)]);
    return;
  }
  // GPU g's link pair to its switch was added first, in GPU order: ids 2g (up) and 2g+1 (down).
  out.push_back(2 * src_gpu);
  out.push_back(2 * dst_gpu + 1);
}

void Topology::append_scale_out_path(int src_gpu, int dst_gpu, std::vector<int>& out) const {
  if (src_gpu < 0 || src_gpu >= num_gpus_ || dst_gpu < 0 || dst_gpu >= num_gpus_ ||
      src_gpu == dst_gpu) {
    throw std::invalid_argument(
        fmt::format("no scale-out path from gpu{} to gpu{}", src_gpu, dst_gpu));
  }
  // Rail-optimised: a message for another rail first crosses the scale-up fabric to the GPU of
  // the source's node on the destination's rail, and leaves through that GPU's NIC (NCCL's PXN).
  const std::size_t first = out.size();
  if (rails_ > 1 && rail_of(src_gpu) != rail_of(dst_gpu)) {
    const int proxy =
        src_gpu / gpus_per_node_ * gpus_per_node_ + rail_of(dst_gpu) * gpus_per_nic_vertex_;
    append_scale_up_path(src_gpu, proxy, out);
    src_gpu = proxy;
  }
  // Every GPU sits at the same depth of the tree: climb both sides in lockstep until they meet
  // at the lowest common switch.
  std::vector<int> down;
  int a = src_gpu;
  int b = dst_gpu;
  while (a != b) {
    out.push_back(up_link_[static_cast<std::size_t>(a)]);
    down.push_back(down_link_[static_cast<std::size_t>(b)]);
    a = parent_[static_cast<std::size_t>(a)];
    b = parent_[static_cast<std::size_t>(b)];
    if (a < 0 || b < 0) {
      out.resize(first);
      throw std::logic_error("topology: scale-out tree without a common switch");
    }
  }
  out.insert(out.end(), down.rbegin(), down.rend());
}

}  // namespace shardsim
