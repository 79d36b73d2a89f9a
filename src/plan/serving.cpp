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

  for (std::size_t k = 0; k < map.sets.size(); ++k) {
    const ReplicaSet& set = map.sets[k];
    if (set.shards.size() == 1) continue;
    auto& served = map.served_by[k];
    served.assign(n, set.shards.front());
    std::vector<int> holder(n, -1);  // shard index held by each GPU, if any
    for (std::size_t s : set.shards) holder[plan.shards[s].gpu] = static_cast<int>(s);
    for (int gpu = 0; gpu < n; ++gpu) {
      if (holder[gpu] >= 0) {
        served[gpu] = static_cast<std::size_t>(holder[gpu]);
        continue;
      }
      int best_level = 1 << 30;
      int best_gpu = 1 << 30;
      std::size_t best = set.shards.front();
      bool found = false;
      for (std::size_t s : set.shards) {
        const int owner = plan.shards[s].gpu;
        if (map.group_of[owner] != map.group_of[gpu]) continue;
        const int level = cluster.level_between(gpu, owner);
        if (level < best_level || (level == best_level && owner < best_gpu)) {
          best_level = level;
          best_gpu = owner;
          best = s;
          found = true;
        }
      }
      if (!found) {
        // No replica in this GPU's group: fall back to the nearest replica anywhere.
        for (std::size_t s : set.shards) {
          const int owner = plan.shards[s].gpu;
          const int level = cluster.level_between(gpu, owner);
          if (level < best_level || (level == best_level && owner < best_gpu)) {
            best_level = level;
            best_gpu = owner;
            best = s;
          }
        }
      }
      served[gpu] = best;
    }
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
