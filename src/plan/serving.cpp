#include "shardsim/plan/serving.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace shardsim {

namespace {

// A replica set's identity: (table, rows, space, cols).
using SetKey =
    std::tuple<std::size_t, std::uint64_t, std::uint64_t, int, std::uint32_t, std::uint32_t>;

SetKey set_key(const Shard& sh) {
  return SetKey{sh.table,      sh.rows.begin, sh.rows.end, static_cast<int>(sh.row_space),
                sh.cols.begin, sh.cols.end};
}

// The nearest of `candidates` (shard indices) to `gpu`: lowest level, then lowest GPU id.
std::size_t nearest_replica(const Plan& plan, const Cluster& cluster, int gpu,
                            const std::vector<std::size_t>& candidates, std::size_t fallback) {
  int best_level = 1 << 30;
  int best_gpu = 1 << 30;
  std::size_t best = fallback;
  for (std::size_t s : candidates) {
    const int owner = plan.shards[s].gpu;
    const int level = cluster.level_between(gpu, owner);
    if (level < best_level || (level == best_level && owner < best_gpu)) {
      best_level = level;
      best_gpu = owner;
      best = s;
    }
  }
  return best;
}

// Which replica of set k serves each GPU (by_group or served_by; see serving.hpp).
// `in_group` and `holder` are scratch buffers, `holder` all -1 on entry and on return.
void serve_set(const Plan& plan, const Cluster& cluster, std::size_t k, bool overridden,
               std::vector<std::vector<std::size_t>>& in_group, std::vector<int>& holder,
               ServingMap& map) {
  const int n = cluster.num_gpus();
  const ReplicaSet& set = map.sets[k];
  for (auto& v : in_group) v.clear();
  for (std::size_t s : set.shards) {
    in_group[static_cast<std::size_t>(map.group_of[plan.shards[s].gpu])].push_back(s);
  }
  bool one_per_group = in_group.size() > 1;
  for (const auto& v : in_group) one_per_group = one_per_group && v.size() == 1;
  if (one_per_group && !overridden) {
    // Each group's replica serves its group (itself included): the rule below, in O(groups).
    for (const auto& v : in_group) map.by_group[k].push_back(v.front());
    return;
  }
  auto& served = map.served_by[k];
  served.assign(n, static_cast<std::uint32_t>(set.shards.front()));
  for (std::size_t s : set.shards) holder[plan.shards[s].gpu] = static_cast<int>(s);
  for (int gpu = 0; gpu < n; ++gpu) {
    if (holder[gpu] >= 0) {
      served[gpu] = static_cast<std::uint32_t>(holder[gpu]);
      continue;
    }
    // The nearest replica in this GPU's group; with none there, the nearest anywhere.
    const auto& mine = in_group[static_cast<std::size_t>(map.group_of[gpu])];
    served[gpu] = static_cast<std::uint32_t>(
        nearest_replica(plan, cluster, gpu, mine.empty() ? set.shards : mine, set.shards.front()));
  }
  for (std::size_t s : set.shards) holder[plan.shards[s].gpu] = -1;
}

// The table-row-wise families of `map` (serving.hpp, ServingMap::host_slices).
void find_host_slices(const Plan& plan, const Cluster& cluster, ServingMap& map) {
  const int n = cluster.num_gpus();
  map.gpus_per_node = cluster.gpus_per_node();
  map.local_rank.assign(static_cast<std::size_t>(n), 0);
  // The GPUs of each (group, node), ascending.
  std::map<std::pair<int, int>, std::vector<int>> slice_gpus;
  for (int g = 0; g < n; ++g) {
    auto& v = slice_gpus[{map.group_of[static_cast<std::size_t>(g)], cluster.node_of(g)}];
    map.local_rank[static_cast<std::size_t>(g)] = static_cast<int>(v.size());
    v.push_back(g);
  }
  map.host_reduced.assign(map.sets.size(), 0);
  // Families: the sets of one table, space and column range.
  std::map<std::tuple<std::size_t, int, std::uint32_t, std::uint32_t>, std::vector<std::size_t>>
      families;
  for (std::size_t k = 0; k < map.sets.size(); ++k) {
    const ReplicaSet& set = map.sets[k];
    families[{set.table, static_cast<int>(set.row_space), set.cols.begin, set.cols.end}].push_back(
        k);
  }
  std::map<std::pair<int, int>, std::uint64_t> cols_of_slice;
  std::vector<std::vector<int>> servers(static_cast<std::size_t>(map.num_groups));
  for (const auto& [key, sets] : families) {
    if (sets.size() < 2) continue;
    for (auto& v : servers) v.clear();
    bool ok = true;
    for (std::size_t k : sets) {
      if (map.single_server(k) && map.num_groups == 1) {
        servers[0].push_back(plan.shards[map.sets[k].shards.front()].gpu);
      } else if (!map.by_group[k].empty()) {
        for (std::size_t grp = 0; grp < map.by_group[k].size(); ++grp) {
          servers[grp].push_back(plan.shards[map.by_group[k][grp]].gpu);
        }
      } else {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    // In every group: the servers are exactly the group's GPUs on one node, one block each.
    std::vector<int> node_of_group(servers.size(), -1);
    for (std::size_t grp = 0; grp < servers.size() && ok; ++grp) {
      auto& v = servers[grp];
      std::sort(v.begin(), v.end());
      if (v.size() != sets.size() || v.empty()) {
        ok = false;
        break;
      }
      const int node = cluster.node_of(v.front());
      const auto it = slice_gpus.find({static_cast<int>(grp), node});
      ok = it != slice_gpus.end() && it->second == v;
      node_of_group[grp] = node;
    }
    if (!ok) continue;
    const std::uint32_t cols = std::get<3>(key) - std::get<2>(key);
    for (std::size_t grp = 0; grp < servers.size(); ++grp) {
      cols_of_slice[{static_cast<int>(grp), node_of_group[grp]}] += cols;
    }
    for (std::size_t k : sets) map.host_reduced[k] = 1;
  }
  for (const auto& [slice, cols] : cols_of_slice) {
    map.host_slices.push_back(
        ServingMap::HostSlice{slice.first, slice.second, slice_gpus.at(slice), cols});
  }
}

}  // namespace

ServingMap build_serving_map(const Plan& plan, const Cluster& cluster) {
  const int n = cluster.num_gpus();
  ServingMap map;
  map.group_of.assign(n, 0);
  if (!plan.groups.empty()) {
    map.num_groups = static_cast<int>(plan.groups.size());
    for (int g = 0; g < map.num_groups; ++g) {
      for (int gpu : plan.groups[g]) map.group_of.at(gpu) = g;
    }
  }

  if (plan.shards.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error(
        fmt::format("the plan has {} shards; at most 2^32 - 1 can be simulated (served_by's "
                    "32-bit indices, plan/serving.hpp); try fewer GPUs (cluster.nodes) or a "
                    "planner that copies fewer blocks",
                    plan.shards.size()));
  }
  // Group shards into replica sets by (table, rows, space, cols), in first-appearance order.
  // Replicas of a block usually come one after another (a block copied to every GPU of 16,384
  // is 16,384 shards in a row): the previous shard's set is tried before the map.
  std::map<SetKey, std::size_t> index;
  SetKey last_key{};
  std::size_t last_set = 0;
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    const Shard& sh = plan.shards[s];
    const SetKey key = set_key(sh);
    if (s == 0 || key != last_key) {
      auto [it, inserted] = index.try_emplace(key, map.sets.size());
      if (inserted) map.sets.push_back(ReplicaSet{sh.table, sh.rows, sh.row_space, sh.cols, {}});
      last_key = key;
      last_set = it->second;
    }
    map.sets[last_set].shards.push_back(s);
  }
  map.served_by.resize(map.sets.size());
  map.by_group.resize(map.sets.size());
  std::vector<bool> overridden(map.sets.size(), false);
  for (const FetchOverride& o : plan.fetch_overrides) {
    overridden[index.at(set_key(plan.shards.at(o.shard)))] = true;
  }

  std::vector<std::vector<std::size_t>> in_group(static_cast<std::size_t>(map.num_groups));
  std::vector<int> holder(n, -1);  // shard index held by each GPU
  for (std::size_t k = 0; k < map.sets.size(); ++k) {
    if (map.sets[k].shards.size() == 1) continue;
    serve_set(plan, cluster, k, overridden[k], in_group, holder, map);
  }
  for (const FetchOverride& o : plan.fetch_overrides) {
    const std::size_t k = index.at(set_key(plan.shards.at(o.shard)));
    if (map.served_by[k].empty()) continue;  // single replica: nothing to override
    map.served_by[k].at(o.requesting_gpu) = static_cast<std::uint32_t>(o.shard);
  }
  find_host_slices(plan, cluster, map);
  return map;
}

std::vector<double> served_gpu_counts(const Plan& plan, const ServingMap& serving, int n) {
  std::vector<double> served(plan.shards.size(), 0.0);
  // Counts of GPUs: whole numbers, exact in a double whatever the order of the additions.
  std::vector<double> group_size(static_cast<std::size_t>(serving.num_groups), 0.0);
  for (int g = 0; g < n; ++g) group_size[static_cast<std::size_t>(serving.group_of[g])] += 1;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    if (serving.single_server(k)) {
      served[serving.sets[k].shards.front()] += n;
    } else if (!serving.by_group[k].empty()) {
      for (std::size_t grp = 0; grp < serving.by_group[k].size(); ++grp) {
        served[serving.by_group[k][grp]] += group_size[grp];
      }
    } else {
      for (int g = 0; g < n; ++g) served[serving.served_by[k][static_cast<std::size_t>(g)]] += 1;
    }
  }
  return served;
}

}  // namespace shardsim
