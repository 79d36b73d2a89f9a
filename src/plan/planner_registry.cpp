#include <fmt/format.h>

#include <algorithm>

#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planners.hpp"

namespace shardsim {

void expect_no_options(const YamlValue& options) {
  if (!options.is_null()) options.expect_keys({});
}

const std::vector<PlannerInfo>& planner_registry() {
  static const std::vector<PlannerInfo> registry = {
      {"table_wise", "whole tables to GPUs, greedy by estimated lookup cost (Neo §4.1)",
       make_table_wise_planner},
      {"row_wise", "every table split into even contiguous row ranges across all GPUs (Neo §4.1)",
       make_row_wise_planner},
      {"data_parallel", "every table replicated on every GPU (Neo §4.1)",
       make_data_parallel_planner},
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
