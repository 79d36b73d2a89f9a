#pragma once
// The flags that say how `baseline` and `compare` run a scenario file (run/scenario_runs.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/resource_guard.hpp"
#include "shardsim/run/scenario_runs.hpp"

namespace CLI {
class App;
}

namespace shardsim {

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

// The options of `flags` (parsing each --set).
ScenarioRunOptions run_options(const RunFlags& flags);

}  // namespace shardsim
