#pragma once
// Who serves whom: for every block of rows of every table, which replica serves each GPU's
// lookups. The rule: a GPU in the same group holding a replica serves itself; otherwise the
// replica in the same group on the nearest GPU (lowest level, then lowest GPU id) serves it;
// FetchOverrides replace the rule for a (block, GPU). Used by the iteration builder and by
// memory accounting, so both agree.
#include <vector>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// The shards of one table that cover the same rows and columns (the replicas of one block).
struct ReplicaSet {
  std::size_t table = 0;
  RowRange rows;
  RowSpace row_space = RowSpace::row_id;
  ColRange cols;
  std::vector<std::size_t> shards;  // indices into Plan::shards
};

struct ServingMap {
  std::vector<ReplicaSet> sets;
  // served_by[set][gpu]: index into Plan::shards of the replica serving `gpu`'s lookups. Empty
  // for a set with a single replica (it serves every GPU) and for a set served group by group.
  std::vector<std::vector<std::size_t>> served_by;
  // by_group[set][group]: the replica serving every GPU of `group`, for a set with exactly one
  // replica in each group and no fetch override (2D plans): O(groups) memory instead of O(GPUs),
  // the same answer as the rule above. Empty otherwise.
  std::vector<std::vector<std::size_t>> by_group;
  // group_of[gpu]: the group index of each GPU (0 when the plan has no groups).
  std::vector<int> group_of;
  int num_groups = 1;

  // One replica serves every GPU.
  bool single_server(std::size_t set) const {
    return served_by[set].empty() && by_group[set].empty();
  }
  std::size_t server(std::size_t set, int gpu) const {
    if (!served_by[set].empty()) return served_by[set][static_cast<std::size_t>(gpu)];
    if (!by_group[set].empty()) {
      return by_group[set][static_cast<std::size_t>(group_of[static_cast<std::size_t>(gpu)])];
    }
    return sets[set].shards.front();
  }
};

ServingMap build_serving_map(const Plan& plan, const Cluster& cluster);

// The pooled-embedding transfers of a pooled (send-based) plan, forward: for every replica set
// k and every GPU g that a replica on another GPU serves, f(k, owner, g), in set order then GPU
// order. Plan statistics and the iteration's AlltoAlls both sum what this visits, so they agree
// on which pairs exchange pooled vectors; each accumulates its own view (per GPU and level, per
// group, per pair). Backward, gradients go the same pairs in reverse.
template <typename F>
void for_each_pooled_transfer(const Plan& plan, const ServingMap& serving, int num_gpus, F&& f) {
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    for (int g = 0; g < num_gpus; ++g) {
      const int owner = plan.shards[serving.server(k, g)].gpu;
      if (owner != g) f(k, owner, g);
    }
  }
}

}  // namespace shardsim
