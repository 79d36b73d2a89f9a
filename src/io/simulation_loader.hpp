#pragma once
// The scenario's `simulation:` map -> SimulationOptions (docs/scenario.md, "simulation").
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/sim/simulation_options.hpp"

namespace shardsim {

// `node` is the `simulation:` value (null: the defaults). `num_gpus` is the cluster's size, to
// check straggler GPU ids and the per-flow model's limit. Every problem is an InputError naming
// the key.
SimulationOptions load_simulation_options(const YamlValue& node, int num_gpus);

}  // namespace shardsim
