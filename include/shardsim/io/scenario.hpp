#pragma once
// A loaded, validated scenario: everything one simulation needs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/core/input_hashes.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/sim/simulation_options.hpp"

namespace shardsim {

struct ClusterSpec {
  HardwarePreset preset;  // with `cluster.overrides` applied
  int nodes = 1;
  // `cluster.price_per_gpu_hour` (currency-free, docs/scenario.md); 0: none given.
  double price_per_gpu_hour = 0;
};

struct PlacementSpec {
  std::vector<std::string> planners;  // zero or more, compared side by side in order
  // `placement.options` (null when absent; its file and path name it in messages); validated by
  // the planner it is routed to (run/planner_options.hpp).
  YamlValue options = YamlValue::absent("", "placement.options");
  // `placement.file`: a plan file (docs/planners.md "Plan files") simulated after the planners;
  // resolved against the scenario's folder. Empty when none. At least one planner or a file.
  std::string plan_file;
  SourceLocation plan_file_location;  // where `file:` was written, for messages
  // `placement.bottom_mlp_gpu`: the GPU that runs the bottom MLP for the global batch, applied
  // to every plan the scenario simulates (Plan::bottom_mlp_gpu); -1 when absent.
  int bottom_mlp_gpu = -1;
  SourceLocation bottom_mlp_location;
};

// One axis of a `sweep:` block: a dotted key and its values. The keys of a zip group
// (`sweep: {zip: {...}}`, docs/scenario.md) follow each other, share `zip_group` and have
// lists of one length: point i of the group takes value i of each.
struct SweepAxis {
  std::string key;
  std::vector<YamlValue> values;
  int zip_group = -1;  // index of its zip group in the sweep block; -1: an axis of its own
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
  InputHashes hashes;            // what the reports record as `input_hashes` (docs/report.md)
  // The resolved document as dotted keys and canonical values (core/yaml_reader.hpp's
  // flatten_yaml): the reports' `scenario_values`, which `shardsim diff` compares.
  std::vector<std::pair<std::string, std::string>> values;
};

}  // namespace shardsim
