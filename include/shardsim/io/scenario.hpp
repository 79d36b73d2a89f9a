#pragma once
// A loaded, validated scenario: everything one simulation needs.
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/sim/simulation_options.hpp"

namespace shardsim {

struct ClusterSpec {
  HardwarePreset preset;  // with `cluster.overrides` applied
  int nodes = 1;
};

struct PlacementSpec {
  std::vector<std::string> planners;  // one or more, compared side by side in order
  YAML::Node options;                 // `placement.options` (may be null); validated by planner
  std::string options_file;           // for messages
  std::string options_path = "placement.options";
};

// One axis of a `sweep:` block: a dotted key and its values (as YAML nodes).
struct SweepAxis {
  std::string key;
  std::vector<YAML::Node> values;
};

struct Scenario {
  std::string name;
  std::string source;  // file path, or "<built-in default>"
  ClusterSpec cluster;
  DlrmModel model;
  Workload workload;
  PlacementSpec placement;
  CostParams cost;
  SimulationOptions simulation;  // `simulation:` (defaults when absent)
  std::vector<SweepAxis> sweep;  // empty when no sweep
};

}  // namespace shardsim
