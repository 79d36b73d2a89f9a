#include "shardsim/plan/serving.hpp"

#include <map>
#include <stdexcept>
#include <tuple>

namespace shardsim {

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

  // Group shards into replica sets by (table, rows, space, cols), in first-appearance order.
  using Key =
      std::tuple<std::size_t, std::uint64_t, std::uint64_t, int, std::uint32_t, std::uint32_t>;
  std::map<Key, std::size_t> index;
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    const Shard& sh = plan.shards[s];
    const Key key{sh.table,      sh.rows.begin, sh.rows.end, static_cast<int>(sh.row_space),
                  sh.cols.begin, sh.cols.end};
    auto [it, inserted] = index.try_emplace(key, map.sets.size());
    if (inserted) map.sets.push_back(ReplicaSet{sh.table, sh.rows, sh.row_space, sh.cols, {}});
    map.sets[it->second].shards.push_back(s);
  }
  map.served_by.resize(map.sets.size());
  map.by_group.resize(map.sets.size());
  std::vector<bool> overridden(map.sets.size(), false);
  for (const FetchOverride& o : plan.fetch_overrides) {
    const Shard& sh = plan.shards.at(o.shard);
    overridden[index.at(Key{sh.table, sh.rows.begin, sh.rows.end, static_cast<int>(sh.row_space),
                            sh.cols.begin, sh.cols.end})] = true;
  }

  const auto groups = static_cast<std::size_t>(map.num_groups);
  std::vector<std::vector<std::size_t>> in_group(groups);  // a set's replicas by group
  std::vector<int> holder(n, -1);                          // shard index held by each GPU
  for (std::size_t k = 0; k < map.sets.size(); ++k) {
    const ReplicaSet& set = map.sets[k];
    if (set.shards.size() == 1) continue;
    for (auto& v : in_group) v.clear();
    for (std::size_t s : set.shards) {
      in_group[static_cast<std::size_t>(map.group_of[plan.shards[s].gpu])].push_back(s);
    }
    bool one_per_group = groups > 1;
    for (const auto& v : in_group) one_per_group = one_per_group && v.size() == 1;
    if (one_per_group && !overridden[k]) {
      // Each group's replica serves its group (itself included): the rule below, in O(groups).
      for (const auto& v : in_group) map.by_group[k].push_back(v.front());
      continue;
    }
    auto& served = map.served_by[k];
    served.assign(n, set.shards.front());
    for (std::size_t s : set.shards) holder[plan.shards[s].gpu] = static_cast<int>(s);
    for (int gpu = 0; gpu < n; ++gpu) {
      if (holder[gpu] >= 0) {
        served[gpu] = static_cast<std::size_t>(holder[gpu]);
        continue;
      }
      // The nearest replica in this GPU's group; with none there, the nearest anywhere.
      const auto& mine = in_group[static_cast<std::size_t>(map.group_of[gpu])];
      const std::vector<std::size_t>& candidates = mine.empty() ? set.shards : mine;
      int best_level = 1 << 30;
      int best_gpu = 1 << 30;
      std::size_t best = set.shards.front();
      for (std::size_t s : candidates) {
        const int owner = plan.shards[s].gpu;
        const int level = cluster.level_between(gpu, owner);
        if (level < best_level || (level == best_level && owner < best_gpu)) {
          best_level = level;
          best_gpu = owner;
          best = s;
        }
      }
      served[gpu] = best;
    }
    for (std::size_t s : set.shards) holder[plan.shards[s].gpu] = -1;
  }
  for (const FetchOverride& o : plan.fetch_overrides) {
    const Shard& sh = plan.shards.at(o.shard);
    const Key key{sh.table,      sh.rows.begin, sh.rows.end, static_cast<int>(sh.row_space),
                  sh.cols.begin, sh.cols.end};
    const std::size_t k = index.at(key);
    if (map.served_by[k].empty()) continue;  // single replica: nothing to override
    map.served_by[k].at(o.requesting_gpu) = o.shard;
  }
  return map;
}

}  // namespace shardsim
