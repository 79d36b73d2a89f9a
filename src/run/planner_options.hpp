#pragma once
// One rule for routing `placement.options` to planners, used by every command that runs one
// (`run`, `sweep`, `baseline`, `compare`, `plan`; docs/planners.md "Options").
#include <string>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

// The options planner `name` gets from `placement.options`:
// - When any key of the options names a registered planner, the options are keyed by planner
//   name ({table_wise: {cost: size}, two_d: {groups: 4}}): every key must then be a planner
//   listed in placement.planner or `name` itself (otherwise an InputError at that key), and
//   `name` gets its entry, or no options when it has none.
// - Otherwise they are one set of options for the listed planner(s): a listed `name` gets them
//   all; a planner that is not listed (`shardsim plan --planner NAME`) runs without them, with
//   a warning, since they were written for another planner.
YamlValue planner_options_yaml(const PlacementSpec& placement, const std::string& name);

// Those options read against the schema of planner `name` (io/planner_options_reader.hpp): what
// its factory (PlannerInfo::make) and shape bound take.
PlannerOptions planner_options(const PlacementSpec& placement, const std::string& name);

}  // namespace shardsim
