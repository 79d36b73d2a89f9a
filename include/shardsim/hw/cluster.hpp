#pragma once
// A cluster: nodes x GPUs per node, scale-up domains, NICs and switch tiers, held as a
// Boost.Graph graph of GPUs, switches and NICs; routes between any two GPUs.
#include <memory>
#include <string>
#include <vector>

#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

class Topology;  // the Boost.Graph graph (hw/topology.hpp)

// How far apart two GPUs are. Levels are ordered: a larger level is farther.
//   0: same GPU; 1: same scale-up (NVLink) domain; 2+k: different scale-up domains whose lowest
//   common switch is tier k (0 = rack), reached through the NICs. A preset declares at least
//   one tier; the top tier has a single group that spans the whole cluster (its fanout is a
//   capacity used only for validation).
struct Route {
  int level = 0;
  std::vector<int> links;     // ids of the directed links traversed, in order (Topology ids)
  double bottleneck_Bps = 0;  // min bandwidth along the path (0 for the same GPU)
  double latency_s = 0;       // sum of link latencies along the path
};

// Each directed link of the topology, for per-link accounting.
struct LinkInfo {
  int id = 0;
  std::string name;  // e.g. "gpu3->nvswitch0", "nic5->rack0", "rack0->pod0"
  LinkSpec spec;
};

// The checks the Cluster constructor makes on `nodes` for `preset` (at least one node, whole
// scale-up domains, within the top tier's capacity, at most 2^22 GPUs): InputErrors keyed
// `cluster.nodes` without a location, which the scenario loader places at the `nodes:` line.
void check_cluster_nodes(const HardwarePreset& preset, int nodes);

class Cluster {
 public:
  Cluster(HardwarePreset preset, int nodes);
  ~Cluster();
  Cluster(Cluster&&) noexcept;
  Cluster& operator=(Cluster&&) noexcept;
  Cluster(const Cluster&);
  Cluster& operator=(const Cluster&);

  const HardwarePreset& preset() const { return preset_; }
  const GpuSpec& gpu() const { return preset_.gpu; }  // homogeneous clusters for now
  int num_gpus() const { return num_nodes_ * preset_.gpus_per_node; }
  int num_nodes() const { return num_nodes_; }
  int gpus_per_node() const { return preset_.gpus_per_node; }
  int node_of(int gpu) const { return gpu / preset_.gpus_per_node; }
  int scale_up_domain_of(int gpu) const;
  int num_scale_up_domains() const;
  int gpus_per_scale_up_domain() const;

  // Per-GPU share of each level, per direction.
  double scale_up_Bps_per_gpu() const { return preset_.scale_up.bandwidth_Bps; }
  double scale_out_Bps_per_gpu() const;  // delivered NIC rate x NICs per node / GPUs per node

  // Tier k (0 = rack): the group a GPU belongs to, how many groups, and the uplink bandwidth of
  // one group's switch (children's bandwidth / oversubscription).
  int num_tiers() const { return static_cast<int>(preset_.tiers.size()); }
  int tier_group_of(int gpu, int tier) const;
  int num_tier_groups(int tier) const;
  double tier_uplink_Bps(int tier) const;

  int num_levels() const { return 2 + num_tiers(); }  // self, scale-up, one per tier
  int level_between(int src_gpu, int dst_gpu) const;
  std::string level_name(int level) const;
  Route route(int src_gpu, int dst_gpu) const;  // O(depth), from the graph

  const Topology& topology() const { return *topology_; }
  const std::vector<LinkInfo>& links() const;

 private:
  HardwarePreset preset_;
  int num_nodes_ = 0;
  std::unique_ptr<Topology> topology_;
};

// GPU ids 0..num_gpus-1, the participants of a collective over the whole cluster.
std::vector<int> all_gpu_ids(int num_gpus);

}  // namespace shardsim
