#pragma once
// Reading a planner's `placement.options` against the schema it declares
// (plan/planner_options.hpp): the one place YAML becomes typed planner options. Errors name the
// file, line and key: an unknown key (with a "did you mean" and the planner's keys), a value of the
// wrong kind, out of range or not among the choices, an unknown planner name.
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

// `options` may be null (no options given). Options of kind planner_options are read against the
// schema of the planner their `planner_key` names.
PlannerOptions read_planner_options(const YamlValue& options, const OptionSchema& schema);

// `communication` and `replica_sync` values (options and plan-file keys of those names).
LookupComm read_lookup_comm(const YamlValue& v);
ReplicaSync read_replica_sync(const YamlValue& v);

}  // namespace shardsim
