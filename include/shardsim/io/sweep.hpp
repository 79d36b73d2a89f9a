#pragma once
// The `sweep:` block of a scenario: dotted keys -> lists of values (DESIGN.md §3). The points
// themselves come from expand_sweep (scenario_loader.hpp).
#include <cstddef>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/scenario.hpp"

namespace shardsim {

// Most points one sweep may expand to unless the command says otherwise (`--max-points N`): a
// guard against a typo multiplying into millions of scenarios ("sweep hundreds of scenarios in
// minutes", DESIGN.md §1). The memory of the points that pass is the resource guard's
// (run/resource_estimate.hpp).
inline constexpr std::size_t kDefaultMaxSweepPoints = 10000;

// Checks a `sweep:` node (null or absent: no axes): a mapping of syntactically valid dotted keys
// (not under `sweep` itself) to non-empty lists, with at most `max_points` points in all.
// Whether each key exists in the scenario schema is checked when a point is loaded.
// A zip group (key `zip`: a mapping of keys to lists of one length, or a list of such
// mappings) is one axis whose points set several keys; its keys come out one SweepAxis each,
// sharing `zip_group`.
std::vector<SweepAxis> parse_sweep_axes(const YamlValue& sweep,
                                        std::size_t max_points = kDefaultMaxSweepPoints);

// The points `axes` expand to: the product over plain axes and zip groups of their lengths.
std::size_t sweep_point_count(const std::vector<SweepAxis>& axes);

}  // namespace shardsim
