#include "shardsim/hw/level_table.hpp"

namespace shardsim {

LevelTable::LevelTable(const Cluster& cluster)
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

}  // namespace shardsim
