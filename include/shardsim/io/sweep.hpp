#pragma once
// The `sweep:` block of a scenario: dotted keys -> lists of values (DESIGN.md §3). The points
// themselves come from expand_sweep (scenario_loader.hpp).
#include <cstddef>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/scenario.hpp"

namespace shardsim {

// Most points one sweep may expand to: a guard against a typo multiplying into billions of
// scenarios ("sweep hundreds of scenarios in minutes", DESIGN.md §1).
inline constexpr std::size_t kMaxSweepPoints = 100000;

// Checks a `sweep:` node (null or absent: no axes): a mapping of syntactically valid dotted keys
// (not under `sweep` itself) to non-empty lists, with at most kMaxSweepPoints points in all.
// Whether each key exists in the scenario schema is checked when a point is loaded.
std::vector<SweepAxis> parse_sweep_axes(const YamlValue& sweep);

}  // namespace shardsim
