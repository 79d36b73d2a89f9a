#include <fmt/format.h>

#include <algorithm>

#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planners.hpp"

namespace shardsim {

const std::vector<PlannerInfo>& planner_registry() {
  static const std::vector<PlannerInfo> registry = {
      {"random", "whole tables to random GPUs with room (NeuroShard App. E baseline)",
       make_random_planner},
      {"round_robin", "whole tables to GPUs in turn (OPER §6.4's table-wise baseline)",
       make_round_robin_planner},
      {"table_wise",
       "whole tables, largest cost first, to the least-loaded GPU with room (Neo §4.1; "
       "NeuroShard App. E costs)",
       make_table_wise_planner},
      {"row_wise", "every table split into contiguous row ranges across all GPUs (Neo §4.1)",
       make_row_wise_planner},
      {"column_wise", "every table split into column blocks placed greedily (Neo §4.1)",
       make_column_wise_planner},
      {"data_parallel", "every table replicated on every GPU (Neo §4.1)",
       make_data_parallel_planner},
      {"table_row_wise", "tables to nodes, rows across the node's GPUs (Neo §4.1 hierarchical)",
       make_table_row_wise_planner},
      {"table_column_wise", "tables to nodes, columns across the node's GPUs (TorchRec TWCW)",
       make_table_column_wise_planner},
      {"karmarkar_karp", "whole tables by multi-way largest differencing (Neo §4.1)",
       make_karmarkar_karp_planner},
      {"memory_greedy", "equal bytes of embedding rows on every GPU (OPER §6.4 MG)",
       make_memory_greedy_planner},
      {"access_greedy",
       "hottest rank chunks first to the GPU with the fewest lookups (OPER §6.4 AG)",
       make_access_greedy_planner},
      {"hybrid",
       "per table TW / CW / TWRW / RW / DP by the cost model, packed greedily (TorchRec-like)",
       make_hybrid_planner},
      {"two_d",
       "2D sparse parallelism: M groups of T/M GPUs, each a replica sharded by an inner planner, "
       "synchronised across groups (2D paper §3)",
       make_two_d_planner},
  };
  return registry;
}

std::vector<std::string> planner_names() {
  std::vector<std::string> names;
  for (const auto& p : planner_registry()) names.push_back(p.name);
  return names;
}

const PlannerInfo& find_planner(const std::string& name, const SourceLocation& where,
                                const std::string& key) {
  const auto& reg = planner_registry();
  auto it = std::find_if(reg.begin(), reg.end(), [&](const auto& p) { return p.name == name; });
  if (it != reg.end()) return *it;
  std::string list;
  for (const auto& n : planner_names()) list += (list.empty() ? "" : ", ") + n;
  auto best = did_you_mean(name, planner_names());
  throw InputError(where, key, fmt::format("unknown planner '{}'", name),
                   best ? fmt::format("did you mean '{}'? planners: {}", *best, list)
                        : fmt::format("planners: {}", list));
}

}  // namespace shardsim
