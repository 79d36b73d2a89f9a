#pragma once
// Running a scenario file the way `shardsim baseline` and `shardsim compare` do: every sweep
// point (the scenario itself when it has no sweep block), each for one or more seeds, each
// with every planner (docs/regression.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardsim/cli/resource_guard.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/metrics/report.hpp"

namespace CLI {
class App;
}

namespace shardsim {

// The flags that say how a scenario is run by `baseline` and `compare`.
struct RunFlags {
  std::optional<int> seeds;           // --seeds N
  std::optional<std::uint64_t> seed;  // --seed S
  std::vector<std::string> sets;      // --set key=value
  std::optional<int> iterations;      // --iterations N
  int jobs = 1;                       // --jobs J
  bool timings = false;               // --timings
  GuardFlags guard;                   // --max-memory, --max-points
  bool given() const;                 // any flag other than --jobs and the guard's was given
};
void add_run_flags(CLI::App* cmd, RunFlags& flags);

struct ScenarioRunOptions {
  std::vector<Override> overrides;    // --set, --iterations (applied before the seed)
  std::optional<std::uint64_t> seed;  // --seed: the first seed (default: workload.seed)
  int seed_count = 1;                 // --seeds N: seeds first, first + 1, ..., first + N - 1
  std::vector<std::uint64_t> seeds;   // explicit seeds; when non-empty, seed/seed_count unused
  bool record_timings = false;        // --timings
  int jobs = 1;                       // runs in parallel (results do not depend on it)
  GuardFlags guard;                   // the resource guard's limits
  bool renders_reports = false;       // the caller renders every report as text (baseline)
};

// The options of `flags` (parsing each --set).
ScenarioRunOptions run_options(const RunFlags& flags);

// The seeds a run of `path` uses under `options` (loads the scenario when the first seed comes
// from its workload.seed).
std::vector<std::uint64_t> run_seeds(const std::string& path, const ScenarioRunOptions& options);

// Reports of every sweep point x seed x planner, in that order (points slowest). Each run's
// document is the scenario file with the overrides, the point's values and
// `workload.seed = seed` applied, so its input_hashes.scenario names exactly that document.
// Bad input anywhere, or runs estimated to need more memory than the guard allows, fail before
// any simulation runs.
std::vector<Report> run_scenario_file(const std::string& path, const ScenarioRunOptions& options);

}  // namespace shardsim
