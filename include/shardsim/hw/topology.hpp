#pragma once
// The cluster's network as a Boost.Graph graph (owned by Cluster, hw/cluster.hpp).
//
// Vertices: GPUs (vertex id = GPU id), one switch per scale-up domain (NVSwitch, or the host's
// PCIe switch; none for a direct NVLink mesh, whose GPUs are linked pairwise), NICs, and one
// switch per group of each tier (rack, pod, ...). Edges are directed links, each with a LinkSpec
// and an id into links(); every link has a reverse link.
//
//   gpu -> scale-up switch -> gpu             (same scale-up domain; a domain may span hosts)
//   gpu -> nic -> tier0 -> ... -> tierK -> ... -> tier0 -> nic -> gpu   (a tree: scale-out)
//
// Link bandwidths: GPU <-> scale-up switch: scale_up.bandwidth (per GPU per direction); mesh
// GPU -> GPU: scale_up.bandwidth / (GPUs in the domain - 1); GPU <-> NIC and NIC <-> tier 0:
// the NIC's bandwidth (several NICs per GPU are one NIC vertex of their summed bandwidth); tier
// k <-> tier k+1: tier_uplink_Bps(k). Latencies: every intermediate vertex of a path adds its
// traversal latency (scale-up switch/mesh: scale_up.latency; NIC: nic.latency; tier switch:
// tier.latency), split half onto the link entering it and half onto the link leaving it, so a
// route's summed link latency is the sum of the traversals (GPUs add none).
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

enum class VertexKind { gpu, scale_up_switch, nic, tier_switch };

struct TopoVertex {
  VertexKind kind = VertexKind::gpu;
  int index = 0;  // GPU id, scale-up domain, global NIC index, or group within the tier
  int tier = -1;  // the tier of a tier switch, else -1
};

enum class LinkKind { scale_up, gpu_nic, nic_tier, tier_tier };

struct TopoEdge {
  int id = 0;  // index into Topology::links()
  LinkKind kind = LinkKind::scale_up;
  bool upward = true;  // towards the scale-up switch, or towards the root of the scale-out tree
};

// The uplink bandwidth of one switch of tier `tier` (0 = rack): the sum of its downlinks at full
// fanout, divided by the tier's oversubscription. Tier 0's downlinks are its nodes' NICs
// (fanout x nics_per_node x NIC bandwidth); tier k's are the uplinks of tier k-1. The top tier's
// value is the capacity of its (absent) uplink, reported for information only.
double tier_uplink_Bps(const HardwarePreset& preset, int tier);
// One uplink port of tier `tier`, per direction: TierSpec::port_Bps, by default the NIC's rate.
double tier_port_Bps(const HardwarePreset& preset, int tier);
// The ports of that uplink: its bandwidth over one port's, rounded, at least 1. What an ECMP
// switch hashes flows onto (cost/ecmp_collisions.hpp).
std::int64_t tier_uplink_ports(const HardwarePreset& preset, int tier);
// Nodes in one group of tier `tier` at full fanout (product of fanouts up to it), saturating at
// INT64_MAX / 2. The top tier's value is the cluster's capacity in nodes.
std::int64_t tier_capacity_nodes(const HardwarePreset& preset, int tier);

class Topology {
 public:
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, TopoVertex, TopoEdge>;

  // `preset` and `nodes` must already be validated (Cluster's constructor does).
  Topology(const HardwarePreset& preset, int nodes);
  // Not copyable (a copy of a Cluster rebuilds its topology, which is as fast as copying the
  // graph and deterministic); movable.
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  Topology(Topology&&) noexcept = default;
  Topology& operator=(Topology&&) noexcept = default;

  const Graph& graph() const { return graph_; }
  int num_vertices() const { return static_cast<int>(boost::num_vertices(graph_)); }
  int num_links() const { return static_cast<int>(links_.size()); }
  const std::vector<LinkInfo>& links() const { return links_; }
  int link_source(int link) const { return link_source_.at(link); }
  int link_target(int link) const { return link_target_.at(link); }
  int reverse_link(int link) const { return reverse_.at(link); }
  LinkKind link_kind(int link) const { return link_kind_.at(link); }
  // A tier -> tier link's lower switch tier (k for a link between tiers k and k + 1); -1 for
  // every other kind.
  int link_lower_tier(int link) const;
  // Switched scale-up fabric (not a mesh): GPU -> its scale-up switch, and back.
  int scale_up_tx_link(int gpu) const;
  int scale_up_rx_link(int gpu) const;
  // Direct mesh only: the link from src_gpu to dst_gpu of the same domain.
  int mesh_link(int src_gpu, int dst_gpu) const;
  std::string vertex_name(int vertex) const;  // "gpu3", "nvswitch0", "pcie0", "nic5", "rack1"

  int gpu_vertex(int gpu) const { return gpu; }
  int scale_up_switch_vertex(int domain) const;  // -1 for a direct NVLink mesh
  int nic_vertex(int gpu) const;                 // the NIC vertex a GPU sends through
  // The switch of a tier's group; for a rail-optimised tier 0 (one switch per rail) use
  // rail_switch_vertex (std::logic_error here).
  int tier_switch_vertex(int tier, int group) const;
  // Rail-optimised tier 0: the switch of rail `rail` (a NIC vertex's index within its node) in
  // group `group`; without rails, rail 0 is the group's switch.
  int rail_switch_vertex(int group, int rail) const;
  int num_tier_switches(int tier) const;  // groups, times the rails at a rail-optimised tier 0
  int rails() const { return rails_; }    // 1 unless rail-optimised
  int rail_of(int gpu) const;             // the index of its NIC vertex within its node
  int num_tier_groups(int tier) const { return groups_.at(tier); }
  int tier_group_of_node(int node, int tier) const;
  bool direct_mesh() const { return mesh_; }

  // The scale-out tree, computed once by a Boost.Graph breadth-first search from the top tier
  // switch over the downward links: a vertex's parent, the link up to it and the link down
  // from it (-1 at the root, and for scale-up switches, which are not in the tree).
  int parent(int vertex) const { return parent_.at(vertex); }
  int up_link(int vertex) const { return up_link_.at(vertex); }
  int down_link(int vertex) const { return down_link_.at(vertex); }

  // Appends the links from src_gpu to dst_gpu over the scale-up fabric (same domain: 2 links
  // through the switch, 1 in a mesh) or the scale-out tree (up to the lowest common switch and
  // down). O(depth). src != dst. On a rail-optimised fabric a scale-out path to another rail
  // starts with the scale-up path to the source node's GPU on that rail (PXN).
  void append_scale_up_path(int src_gpu, int dst_gpu, std::vector<int>& out) const;
  void append_scale_out_path(int src_gpu, int dst_gpu, std::vector<int>& out) const;

 private:
  int add_vertex(VertexKind kind, int index, int tier);
  // Adds u->v and v->u; returns the id of u->v (the reverse is id + 1).
  int add_link_pair(int u, int v, LinkKind kind, double bandwidth_Bps, double latency_s);
  void compute_tree();

  Graph graph_;
  std::vector<LinkInfo> links_;
  std::vector<int> link_source_;
  std::vector<int> link_target_;
  std::vector<int> reverse_;
  std::vector<LinkKind> link_kind_;
  std::vector<double> traversal_s_;  // per vertex, see the header comment

  int num_gpus_ = 0;
  int gpus_per_node_ = 0;
  int gpus_per_domain_ = 0;
  bool mesh_ = false;
  std::string switch_prefix_;  // "nvswitch" or "pcie"
  std::vector<std::string> tier_names_;
  int switch_base_ = 0;  // first scale-up switch vertex
  int nic_base_ = 0;     // first NIC vertex
  int nic_vertices_per_node_ = 0;
  int gpus_per_nic_vertex_ = 1;
  int rails_ = 1;  // tier-0 switches per group (nic_vertices_per_node_ when rail-optimised)
  std::vector<int> tier_base_;             // first switch vertex of each tier
  std::vector<int> groups_;                // switches of each tier
  std::vector<std::int64_t> group_nodes_;  // nodes per group of each tier
  std::vector<int> mesh_link_;  // mesh only: [domain][i][j] -> id of the link from local GPU i to j

  std::vector<int> parent_;
  std::vector<int> up_link_;
  std::vector<int> down_link_;
};

}  // namespace shardsim
