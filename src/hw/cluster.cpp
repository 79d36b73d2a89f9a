#include "shardsim/hw/cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

namespace {

// Far above any cluster anyone will simulate, and far below int overflow in GPU ids.
constexpr std::int64_t kMaxGpus = 1 << 22;

InputError nodes_error(const HardwarePreset& preset, std::string problem, std::string hint) {
  return InputError(SourceLocation{}, "cluster.nodes",
                    fmt::format("{} (preset '{}')", problem, preset.name), std::move(hint));
}

}  // namespace

void check_cluster_nodes(const HardwarePreset& preset, int nodes) {
  if (nodes < 1) {
    throw nodes_error(preset, fmt::format("expected at least 1 node, found {}", nodes),
                      "set cluster.nodes to a positive number of hosts");
  }
  const std::int64_t gpus = static_cast<std::int64_t>(nodes) * preset.gpus_per_node;
  if (gpus > kMaxGpus) {
    throw nodes_error(preset,
                      fmt::format("{} nodes x {} GPUs = {} GPUs exceeds the supported {}", nodes,
                                  preset.gpus_per_node, gpus, kMaxGpus),
                      "simulate fewer nodes");
  }
  if (nodes % preset.scale_up_domain_nodes != 0) {
    const int d = preset.scale_up_domain_nodes;
    const int lower = nodes / d * d;
    throw nodes_error(
        preset, fmt::format("{} nodes do not fill whole scale-up domains of {} nodes", nodes, d),
        lower > 0 ? fmt::format("use a multiple of {}, e.g. {} or {}", d, lower, lower + d)
                  : fmt::format("use a multiple of {}, e.g. {}", d, d));
  }
  const int top = static_cast<int>(preset.tiers.size()) - 1;
  const std::int64_t capacity = tier_capacity_nodes(preset, top);
  if (nodes > capacity) {
    throw nodes_error(
        preset,
        fmt::format("{} nodes exceed the network's capacity of {} nodes (product of the tier "
                    "fanouts)",
                    nodes, capacity),
        fmt::format("raise the fanout of tier '{}' or add a tier in cluster.overrides.tiers",
                    preset.tiers.back().name));
  }
}

Cluster::Cluster(HardwarePreset preset, int nodes) : preset_(std::move(preset)), num_nodes_(nodes) {
  validate_hardware_preset(preset_);
  check_cluster_nodes(preset_, nodes);
  topology_ = std::make_unique<Topology>(preset_, num_nodes_);
}

Cluster::~Cluster() = default;
Cluster::Cluster(Cluster&&) noexcept = default;
Cluster& Cluster::operator=(Cluster&&) noexcept = default;

Cluster::Cluster(const Cluster& other)
    : preset_(other.preset_),
      num_nodes_(other.num_nodes_),
      topology_(other.topology_ ? std::make_unique<Topology>(preset_, num_nodes_) : nullptr) {}

Cluster& Cluster::operator=(const Cluster& other) {
  if (this != &other) {
    Cluster copy(other);
    *this = std::move(copy);
  }
  return *this;
}

int Cluster::gpus_per_scale_up_domain() const {
  return preset_.gpus_per_node * preset_.scale_up_domain_nodes;
}

int Cluster::num_scale_up_domains() const {
  return num_nodes_ / preset_.scale_up_domain_nodes;
}

int Cluster::scale_up_domain_of(int gpu) const {
  return gpu / gpus_per_scale_up_domain();
}

double Cluster::scale_out_Bps_per_gpu() const {
  return preset_.nic_delivered_Bps() * preset_.nics_per_node / preset_.gpus_per_node;
}

int Cluster::tier_group_of(int gpu, int tier) const {
  return topology_->tier_group_of_node(node_of(gpu), tier);
}

int Cluster::num_tier_groups(int tier) const {
  return topology_->num_tier_groups(tier);
}

double Cluster::tier_uplink_Bps(int tier) const {
  return shardsim::tier_uplink_Bps(preset_, tier);
}

int Cluster::level_between(int src_gpu, int dst_gpu) const {
  if (src_gpu < 0 || src_gpu >= num_gpus() || dst_gpu < 0 || dst_gpu >= num_gpus()) {
    throw std::out_of_range(
        fmt::format("GPU pair ({}, {}) outside a cluster of {}", src_gpu, dst_gpu, num_gpus()));
  }
  if (src_gpu == dst_gpu) return 0;
  if (scale_up_domain_of(src_gpu) == scale_up_domain_of(dst_gpu)) return 1;
  const int src_node = node_of(src_gpu);
  const int dst_node = node_of(dst_gpu);
  for (int k = 0; k < num_tiers(); ++k) {
    if (topology_->tier_group_of_node(src_node, k) == topology_->tier_group_of_node(dst_node, k)) {
      return 2 + k;
    }
  }
  return 1 + num_tiers();  // unreachable: the top tier has a single group
}

std::string Cluster::level_name(int level) const {
  if (level == 0) return "self";
  if (level == 1) return "scale_up";
  if (level >= 2 && level < num_levels()) {
    return preset_.tiers[static_cast<std::size_t>(level - 2)].name;
  }
  throw std::out_of_range(fmt::format("level {} of {}", level, num_levels()));
}

Route Cluster::route(int src_gpu, int dst_gpu) const {
  Route r;
  r.level = level_between(src_gpu, dst_gpu);
  if (r.level == 0) return r;
  r.links.reserve(static_cast<std::size_t>(2 * (2 + num_tiers())));
  if (r.level == 1) {
    topology_->append_scale_up_path(src_gpu, dst_gpu, r.links);
  } else {
    topology_->append_scale_out_path(src_gpu, dst_gpu, r.links);
  }
  const std::vector<LinkInfo>& all = topology_->links();
  r.bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (int id : r.links) {
    const LinkSpec& s = all[static_cast<std::size_t>(id)].spec;
    r.bottleneck_Bps = std::min(r.bottleneck_Bps, s.bandwidth_Bps);
    r.latency_s += s.latency_s;
  }
  return r;
}

const std::vector<LinkInfo>& Cluster::links() const {
  return topology_->links();
}

std::vector<int> all_gpu_ids(int num_gpus) {
  std::vector<int> ids(static_cast<std::size_t>(num_gpus));
  for (int g = 0; g < num_gpus; ++g) ids[static_cast<std::size_t>(g)] = g;
  return ids;
}

}  // namespace shardsim
