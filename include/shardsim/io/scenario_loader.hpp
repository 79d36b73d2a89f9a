#pragma once
// Scenario YAML (DESIGN.md §3) -> Scenario. Every key validated; unknown keys are errors with a
// "did you mean"; every error names the file, line and key. The YAML-level functions (applying
// overrides to a parsed node, loading from a node) are io-private: src/io/scenario_yaml.hpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/io/override.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/io/scenario_document.hpp"
#include "shardsim/io/sweep.hpp"

namespace shardsim {

// Loads and validates a scenario document.
Scenario load_scenario(const ScenarioDocument& document);
// What `shardsim size` needs of a document before it chooses node counts: the cluster's
// hardware (preset or preset file with cluster.overrides), and workload.global_batch (0 when the
// document gives batch_per_gpu instead). Bad values are InputErrors as in load_scenario.
HardwarePreset load_scenario_preset(const ScenarioDocument& document);
std::uint64_t written_global_batch(const ScenarioDocument& document);
Scenario load_scenario_file(const std::string& path, const std::vector<Override>& overrides = {});
Scenario load_scenario_text(std::string_view text, const std::string& file,
                            const std::vector<Override>& overrides = {});

// The built-in default scenario: 2 x dgx-a100, 26 Criteo-Kaggle-shaped tables, planners
// table_wise, row_wise and data_parallel side by side (scenarios/default.yaml, compiled in).
std::string_view default_scenario_text();
// What the built-in default is called in messages and in Scenario::source.
inline constexpr std::string_view kBuiltinDefaultSource = "<built-in default>";
// load_scenario_text(default_scenario_text(), kBuiltinDefaultSource, overrides).
Scenario load_default_scenario(const std::vector<Override>& overrides = {});

// The points of a sweep: the Cartesian product of the axes, first axis slowest. Each point is
// the document with the sweep block removed and the point's values set, plus a label such as
// "cluster.nodes=2,workload.batch_per_gpu=1024" (values as written; lists and maps in flow
// style). Without a `sweep:` block: one point, the document itself, with an empty label.
// A syntactically bad key, a key under `sweep`, a key swept twice, a non-list or empty list of
// values, or more than `max_points` points (io/sweep.hpp) is an InputError here; a key that
// is not in the scenario schema is reported when the point is loaded (load_scenario), at the
// line of the sweep key.
struct SweepPoint {
  std::string label;
  ScenarioDocument document;
};
std::vector<SweepPoint> expand_sweep(const ScenarioDocument& document,
                                     std::size_t max_points = kDefaultMaxSweepPoints);

}  // namespace shardsim
