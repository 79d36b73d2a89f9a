#pragma once
// The YAML level of scenario loading (io-private; the public API is scenario_loader.hpp and
// scenario_document.hpp): overrides applied to a parsed node, a scenario validated from a node,
// and sweep points as nodes. Tests of io/ use these directly.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "shardsim/io/override.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/io/sweep.hpp"

namespace shardsim {

// Applies overrides to a parsed document in order, creating missing map keys. An index past the
// end of a list or a key under a scalar is an InputError naming the override.
// `root` is rebound to a new document; no node of the old one is changed (copy on write along
// each key's path, see yaml_path.hpp), so other handles to it and sweep points built from it
// are unaffected. Override values carry no source position (they come from the command line).
void apply_overrides(YAML::Node& root, const std::vector<Override>& overrides);

// Loads a scenario document. `file` names it in messages.
Scenario load_scenario(const YAML::Node& root, const std::string& file);

// expand_sweep (scenario_loader.hpp) on a node. Points keep the source positions of `root` (each
// shares the subtrees it does not change with `root`): change them only through apply_overrides.
struct YamlSweepPoint {
  std::string label;
  YAML::Node document;
};
std::vector<YamlSweepPoint> expand_sweep(const YAML::Node& root, const std::string& file,
                                         std::size_t max_points = kDefaultMaxSweepPoints);

}  // namespace shardsim
