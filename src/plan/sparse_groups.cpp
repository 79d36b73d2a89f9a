#include "plan/sparse_groups.hpp"

#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

#include "shardsim/core/error.hpp"

namespace shardsim {

std::string to_string(GroupLayout l) {
  switch (l) {
    case GroupLayout::peers_in_host:
      return "peers_in_host";
    case GroupLayout::contiguous:
      return "contiguous";
  }
  return "?";
}

SparseGroups::SparseGroups(const Cluster& cluster, int num_groups, GroupLayout layout)
    : preset_(cluster.preset()),
      nodes_(cluster.num_nodes()),
      gpus_per_node_(cluster.gpus_per_node()),
      num_groups_(num_groups),
      layout_(layout) {
  const int t = cluster.num_gpus();
  const int g = gpus_per_node_;
  if (num_groups < 1) {
    throw std::invalid_argument(fmt::format("expected at least 1 group, found {}", num_groups));
  }
  if (t % num_groups != 0) {
    throw std::invalid_argument(
        fmt::format("{} GPUs cannot be split into {} groups of equal size", t, num_groups));
  }
  group_size_ = t / num_groups;
  if (layout == GroupLayout::peers_in_host) {
    // M_in = gcd(M, G) peers per host; T % M == 0 makes the host count divisible by M_out.
    peers_per_host_ = std::gcd(num_groups, g);
    host_blocks_ = num_groups / peers_per_host_;
    view_gpus_per_node_ = g / peers_per_host_;
    view_nodes_ = nodes_ / host_blocks_;
  } else if (group_size_ % g == 0) {
    view_gpus_per_node_ = g;
    view_nodes_ = group_size_ / g;
  } else if (g % group_size_ == 0) {
    view_gpus_per_node_ = group_size_;
    view_nodes_ = 1;
    peers_per_host_ = g / group_size_;
  } else {
    throw std::invalid_argument(fmt::format(
        "contiguous groups of {} GPUs are neither whole hosts of {} GPUs nor an even part of one",
        group_size_, g));
  }
  groups_.resize(static_cast<std::size_t>(num_groups));
  for (int m = 0; m < num_groups; ++m) {
    auto& members = groups_[static_cast<std::size_t>(m)];
    members.reserve(static_cast<std::size_t>(group_size_));
    for (int v = 0; v < group_size_; ++v) members.push_back(gpu(m, v));
  }
}

int SparseGroups::gpu(int group, int view_gpu) const {
  if (layout_ == GroupLayout::contiguous) return group * group_size_ + view_gpu;
  const int m_out = group / peers_per_host_;
  const int m_in = group % peers_per_host_;
  const int host = m_out * view_nodes_ + view_gpu / view_gpus_per_node_;
  return host * gpus_per_node_ + m_in * view_gpus_per_node_ + view_gpu % view_gpus_per_node_;
}

std::vector<int> SparseGroups::peers(int view_gpu) const {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(num_groups_));
  for (int m = 0; m < num_groups_; ++m) out.push_back(gpu(m, view_gpu));
  return out;
}

Cluster SparseGroups::view_cluster() const {
  HardwarePreset view = preset_;
  const int g = gpus_per_node_;
  const int gv = view_gpus_per_node_;
  view.name = preset_.name + " (one 2D group)";
  view.gpus_per_node = gv;
  if (gv != g) {
    // The group's GPUs keep their own NICs; a NIC they share with other groups' GPUs counts
    // with the group's share of its bandwidth.
    const int nics = preset_.nics_per_node;
    if ((gv * nics) % g == 0) {
      view.nics_per_node = gv * nics / g;
    } else {
      view.nics_per_node = 1;
      view.nic.bandwidth_Bps *= static_cast<double>(gv) * nics / g;
    }
  }
  try {
    return Cluster(view, view_nodes_);
  } catch (const InputError& e) {
    throw std::invalid_argument(
        fmt::format("one group ({} hosts with {} GPUs each) is not a valid cluster of its own: {}",
                    view_nodes_, gv, e.problem()));
  }
}

}  // namespace shardsim
