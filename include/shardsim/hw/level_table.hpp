#pragma once
// The level between every pair of nodes (Cluster::level_between's rule), as a table built once,
// so that a pass over GPU pairs does one look-up per pair. Level 1 = same scale-up domain,
// 2 + k = lowest common switch at tier k. A domain is a set of whole nodes, so the GPUs of one
// node are always at level 1 of each other.
#include <cstdint>
#include <vector>

#include "shardsim/hw/cluster.hpp"

namespace shardsim {

class LevelTable {
 public:
  explicit LevelTable(const Cluster& cluster);

  // The level between two distinct GPUs (0 for the same GPU).
  int level(int src_gpu, int dst_gpu) const {
    if (src_gpu == dst_gpu) return 0;
    return row_of(src_gpu)[node_of(dst_gpu)];
  }
  // The levels from `src`'s node to every node; index with node_of(dst). Not for src == dst.
  const std::uint8_t* row_of(int src_gpu) const {
    return table_.data() + std::size_t{gpu_node_[static_cast<std::size_t>(src_gpu)]} * nodes_;
  }
  std::uint32_t node_of(int gpu) const { return gpu_node_[static_cast<std::size_t>(gpu)]; }
  std::size_t num_nodes() const { return nodes_; }
  // The GPUs of each node, and of each scale-up domain (nodes at level 1 of each other), in
  // ascending order; domains numbered 0, 1, ... by their first node.
  const std::vector<std::vector<int>>& node_gpus() const { return node_gpus_; }
  const std::vector<std::vector<int>>& domain_gpus() const { return domain_gpus_; }
  std::uint32_t domain_of_node(std::uint32_t node) const { return node_domain_[node]; }

 private:
  std::size_t nodes_;
  std::vector<std::uint32_t> gpu_node_;
  std::vector<std::uint8_t> table_;  // [src node * nodes + dst node]
  std::vector<std::vector<int>> node_gpus_, domain_gpus_;
  std::vector<std::uint32_t> node_domain_;
};

}  // namespace shardsim
