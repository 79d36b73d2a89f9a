// The distinct row blocks of a plan's tables (plan/plan_row_blocks.hpp).
#include "shardsim/plan/plan_row_blocks.hpp"

#include <map>
#include <utility>

namespace shardsim {

PlanRowBlocks plan_row_blocks(const ServingMap& serving, std::size_t num_tables) {
  PlanRowBlocks out;
  out.of_table.resize(num_tables);
  out.block_of_set.resize(serving.sets.size());
  out.sets_of_table.resize(num_tables);
  std::vector<std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t>> seen(num_tables);
  for (const ReplicaSet& set : serving.sets) {
    seen[set.table].try_emplace({set.rows.begin, set.rows.end}, 0);
  }
  std::vector<RowSpace> space_of_table(num_tables, RowSpace::row_id);
  for (const ReplicaSet& set : serving.sets) space_of_table[set.table] = set.row_space;
  for (std::size_t t = 0; t < num_tables; ++t) {
    for (auto& [range, idx] : seen[t]) {
      idx = out.of_table[t].size();
      out.of_table[t].push_back(RowBlock{{range.first, range.second}, space_of_table[t]});
    }
  }
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    out.block_of_set[k] = seen[set.table].at({set.rows.begin, set.rows.end});
    out.sets_of_table[set.table].push_back(k);
  }
  return out;
}

}  // namespace shardsim
