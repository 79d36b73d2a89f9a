#include "shardsim/sim/comm_traffic.hpp"

namespace shardsim {

MatrixUnits comm_matrix_units(const Cluster& cluster, int max_units) {
  MatrixUnits u;
  const int n = cluster.num_gpus();
  if (n <= max_units) {
    u.granularity = "gpu";
    u.count = n;
    u.unit_of.resize(static_cast<std::size_t>(n));
    for (int g = 0; g < n; ++g) u.unit_of[static_cast<std::size_t>(g)] = g;
    return u;
  }
  if (cluster.num_nodes() <= max_units) {
    u.granularity = "node";
    u.count = cluster.num_nodes();
    u.unit_of.resize(static_cast<std::size_t>(n));
    for (int g = 0; g < n; ++g) u.unit_of[static_cast<std::size_t>(g)] = cluster.node_of(g);
    return u;
  }
  for (int k = 0; k < cluster.num_tiers(); ++k) {
    if (cluster.num_tier_groups(k) > max_units) continue;
    u.granularity = cluster.preset().tiers[static_cast<std::size_t>(k)].name;
    u.count = cluster.num_tier_groups(k);
    u.unit_of.resize(static_cast<std::size_t>(n));
    for (int g = 0; g < n; ++g)
      u.unit_of[static_cast<std::size_t>(g)] = cluster.tier_group_of(g, k);
    return u;
  }
  u.granularity = "none";
  return u;
}

}  // namespace shardsim
