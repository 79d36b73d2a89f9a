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
  node_gpus_.resize(nodes_);
  for (int g = 0; g < cluster.num_gpus(); ++g) node_gpus_[gpu_node_[std::size_t(g)]].push_back(g);
  node_domain_.assign(nodes_, 0);
  std::vector<std::uint32_t> dense_id;  // by the cluster's domain id
  for (std::size_t node = 0; node < nodes_; ++node) {
    const auto d = static_cast<std::size_t>(domain[node]);
    if (d >= dense_id.size()) dense_id.resize(d + 1, ~std::uint32_t{0});
    if (dense_id[d] == ~std::uint32_t{0}) {
      dense_id[d] = static_cast<std::uint32_t>(domain_gpus_.size());
      domain_gpus_.emplace_back();
    }
    node_domain_[node] = dense_id[d];
  }
  for (int g = 0; g < cluster.num_gpus(); ++g) {
    domain_gpus_[node_domain_[gpu_node_[std::size_t(g)]]].push_back(g);
  }
}

}  // namespace shardsim
