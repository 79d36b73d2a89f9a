// A uniform gather to each owner, by containers (sim/uniform_gather.hpp).
#include "sim/uniform_gather.hpp"

#include <algorithm>
#include <stdexcept>

#include "shardsim/core/repeated_sum.hpp"

namespace shardsim {

UniformGather::UniformGather(const Cluster& cluster)
    : n_(cluster.num_gpus()), levels_(cluster.num_levels()) {
  const auto un = static_cast<std::size_t>(n_);
  const auto ul = static_cast<std::size_t>(levels_);
  container_.assign(ul, {});
  size_.assign(ul, {});
  children_.assign(ul, {});
  sums_.assign(ul, {});
  for (int level = 1; level < levels_; ++level) {
    std::vector<int>& c = container_[static_cast<std::size_t>(level)];
    c.resize(un);
    for (int g = 0; g < n_; ++g) {
      c[g] = level == 1 ? cluster.scale_up_domain_of(g) : cluster.tier_group_of(g, level - 2);
    }
    const int count = n_ == 0 ? 0 : *std::max_element(c.begin(), c.end()) + 1;
    size_[static_cast<std::size_t>(level)].assign(static_cast<std::size_t>(count), 0.0);
    for (int g = 0; g < n_; ++g) size_[static_cast<std::size_t>(level)][c[g]] += 1;
  }
  // Nested: a node's GPUs share a domain (LevelTable puts them at level 1), the GPUs of one
  // container share their container at every level above, and the top level has one container.
  if (levels_ < 2 || n_ == 0) {
    nested_ = false;
    return;
  }
  for (int g = 0; g < n_ && nested_; ++g) {
    nested_ = container_[1][g] == container_[1][cluster.node_of(g) * cluster.gpus_per_node()];
  }
  for (int level = 2; level < levels_ && nested_; ++level) {
    const auto ulevel = static_cast<std::size_t>(level);
    std::vector<int> parent(size_[ulevel - 1].size(), -1);
    for (int g = 0; g < n_; ++g) {
      int& p = parent[static_cast<std::size_t>(container_[ulevel - 1][g])];
      if (p < 0) p = container_[ulevel][g];
      if (p != container_[ulevel][g]) nested_ = false;
    }
    children_[ulevel].assign(size_[ulevel].size(), {});
    for (std::size_t child = 0; child < parent.size(); ++child) {
      if (parent[child] >= 0) children_[ulevel][parent[child]].push_back(static_cast<int>(child));
    }
    sums_[ulevel].assign(size_[ulevel - 1].size(), 0.0);
  }
  if (nested_ && size_[ul - 1].size() != 1) nested_ = false;  // GPUs beyond the top level
  if (!nested_) return;
  domain_members_.assign(size_[1].size(), {});
  for (int g = 0; g < n_; ++g) domain_members_[container_[1][g]].push_back(g);
}

void UniformGather::add(LevelTraffic& out, int owner, double bytes) {
  if (!nested_) throw std::logic_error("UniformGather: the cluster's containers do not nest");
  if (owner < 0 || owner >= n_) throw std::out_of_range("UniformGather: owner outside the cluster");
  if (out.num_gpus() != n_ || out.num_levels() != levels_) {
    throw std::invalid_argument("UniformGather: a LevelTraffic of another cluster");
  }
  // Level 1: the owner's domain, pair by pair in GPU order as the loop adds them.
  const int domain = container_[1][owner];
  for (int g : domain_members_[static_cast<std::size_t>(domain)]) {
    if (g != owner) out.add(g, owner, 1, bytes);
  }
  // Level L >= 2: every GPU of the owner's level-L container less its level-(L-1) one; each of
  // those level-(L-1) containers' sums takes the bytes once, the owner receives them that many
  // times, one at a time.
  for (int level = 2; level < levels_; ++level) {
    const auto ul = static_cast<std::size_t>(level);
    const int here = container_[ul][owner];
    const int below = container_[ul - 1][owner];
    const double gpus = size_[ul][here] - size_[ul - 1][below];
    if (gpus == 0) continue;
    for (int c : children_[ul][here]) {
      if (c != below) sums_[ul][c] += bytes;
    }
    out.add_received_repeated(owner, level, bytes, static_cast<std::uint64_t>(gpus));
    pending_ = true;
  }
}

void UniformGather::flush(LevelTraffic& out) {
  if (!pending_) return;
  for (int level = 2; level < levels_; ++level) {
    const auto ul = static_cast<std::size_t>(level);
    for (int g = 0; g < n_; ++g) {
      const double s = sums_[ul][container_[ul - 1][g]];
      if (s != 0) out.add_sent(g, level, s);
    }
    std::fill(sums_[ul].begin(), sums_[ul].end(), 0.0);
  }
  pending_ = false;
}

}  // namespace shardsim
