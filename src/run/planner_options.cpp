// Routing placement.options to planners (run/planner_options.hpp).
#include "run/planner_options.hpp"

#include <algorithm>

#include "shardsim/core/log.hpp"
#include "shardsim/io/planner_options_reader.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

YamlValue planner_options_yaml(const PlacementSpec& placement, const std::string& name) {
  const YamlValue& options = placement.options;
  const YamlValue none = YamlValue::absent(options.file(), options.path());
  if (options.is_null() || !options.is_map()) {
    return contains(placement.planners, name) ? options : none;
  }
  const std::vector<std::string> registered = planner_names();
  const std::vector<std::string> keys = options.keys();
  const bool keyed = std::any_of(keys.begin(), keys.end(),
                                 [&](const std::string& k) { return contains(registered, k); });
  if (keyed) {
    // Options of a planner that is not run this time (`--set placement.planner=...`, the
    // Python module's planners=) wait for it; a key that names no planner is an error.
    for (const std::string& k : keys) {
      if (k != name && !contains(registered, k)) {
        throw options.get(k).error(
            "options are keyed by planner name here, but this key is not a planner",
            "key every option by a planner's name, or give options for all of them without "
            "planner keys");
      }
    }
    if (auto o = options.find(name)) return *o;
    return YamlValue::absent(options.file(), options.path() + "." + name);
  }
  if (contains(placement.planners, name)) return options;
  log_warn("{}: placement.options are for {}; planner '{}' runs without them", options.file(),
           placement.planners.empty() ? std::string("no planner") : placement.planners.front(),
           name);
  return none;
}

PlannerOptions planner_options(const PlacementSpec& placement, const std::string& name) {
  const PlannerInfo& info =
      find_planner(name, SourceLocation{placement.options.file(), 0, 0}, "placement.planner");
  return read_planner_options(planner_options_yaml(placement, name), info.options);
}

}  // namespace shardsim
