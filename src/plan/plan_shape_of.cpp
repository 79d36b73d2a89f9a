// The shape of a made plan (plan/plan_shape_bound.hpp): O(shards), nothing per GPU.
#include <algorithm>
#include <vector>

#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_shape_bound.hpp"

namespace shardsim {

PlanShapeBound plan_shape_of(const Plan& plan) {
  PlanShapeBound b;
  b.max_shards = static_cast<double>(plan.shards.size());
  std::size_t tables = 0;
  for (const Shard& s : plan.shards) tables = std::max(tables, s.table + 1);
  std::vector<std::uint32_t> blocks(tables, 0);
  std::vector<char> replicated(tables, 0);
  for (const Shard& s : plan.shards) {
    if (s.replica > 0) replicated[s.table] = 1;
    if (s.replica == 0 && s.cols.begin == 0) ++blocks[s.table];
  }
  const auto most = std::max_element(blocks.begin(), blocks.end());
  b.max_blocks_per_table = most == blocks.end() ? 0 : *most;
  b.max_replicated_tables =
      static_cast<double>(std::count(replicated.begin(), replicated.end(), 1));
  b.may_replicate = b.max_replicated_tables > 0;
  return b;
}

}  // namespace shardsim
