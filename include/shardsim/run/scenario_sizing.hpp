#pragma once
// `shardsim size`'s search on a scenario file (run/sizing_search.hpp with simulations): at each
// probe the scenario's document gets `cluster.preset` (with --presets) and `cluster.nodes`,
// is loaded (a global batch is divided among the probe's GPUs) and every planner is run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardsim/io/override.hpp"
#include "shardsim/io/sizing_report.hpp"
#include "shardsim/run/distributed_runs.hpp"
#include "shardsim/run/point_store.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/run/run_executor.hpp"
#include "shardsim/run/sizing_search.hpp"

namespace shardsim {

struct SizingRequest {
  std::string path;  // the scenario file
  // The document's text when it is not read from `path` (the Python module); `path` names it.
  std::optional<std::string> text;
  std::vector<Override> overrides;   // --set, --seed, --iterations (applied first)
  std::vector<std::string> presets;  // built-in preset names; empty: the scenario's own
  int max_nodes = 128;
  SizingTarget target;
  // Size for the target x (1 + margin_pct / 100): QPS that much higher, iteration time that
  // much shorter (--margin; 0: the target as given). Needs a QPS or iteration-time target.
  double margin_pct = 0;
  // Why this margin when it was not given (default_sizing_margin()); empty: given.
  std::string margin_source;
  bool exhaustive = false;  // probe every node count (the brute force) instead of searching
  int jobs = 1;             // presets searched at once
  ResourceLimits limits;
  // Who simulates the probes: null, this process; else e.g. the ranks of an MPI job
  // (run/distributed_runs.hpp), which then search every preset at once and, with `exhaustive`,
  // probe every node count of a preset at once. The result does not depend on it.
  RunExecutor* executor = nullptr;
  int probes_at_once = 1;  // with an executor: the brute force's probes in flight (its slots)
  // Where finished probes are kept (`size --out DIR`: DIR/points, docs/robustness.md): each probe
  // is taken from it when kept for exactly its inputs, else simulated and handed to it. Null:
  // nothing kept.
  PointStore* store = nullptr;
};

// size's default margin: the measured median error of the build's whole-iteration predictions
// (io/trust_figures.hpp: builtin_trust_figures()), in percent to one decimal, and its source.
struct SizingMargin {
  double pct = 0;
  std::string source;
};
SizingMargin default_sizing_margin();

// The search (or with `exhaustive`, every node count) and its result (io/sizing_report.hpp).
// Bad input is an InputError naming the probe (preset and node count) where it depends on it;
// node counts that cannot be probed (their GPUs do not divide the global batch, not whole
// scale-up domains) are skipped, not errors. The probes' warnings are collected and written
// once each, with their count, when it returns (core/log.hpp's WarningTally).
ScenarioSizing size_scenario(const SizingRequest& request);

// A worker rank's loader for the probes of `request` (run/distributed_runs.hpp): the probe of
// preset p at n nodes is run p * (max_nodes + 1) + n.
RunLoader sizing_run_loader(const SizingRequest& request);

}  // namespace shardsim
