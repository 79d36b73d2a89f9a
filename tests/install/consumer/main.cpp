// Runs the built-in default scenario through the installed library's API and prints one line
// per report; exits 1 if there is none.
#include <cstdio>

#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/run/run_scenario.hpp"

int main() {
  const shardsim::Scenario scenario = shardsim::load_default_scenario({{"workload.iterations", "2"}});
  const std::vector<shardsim::Report> reports = shardsim::run_scenario(scenario);
  for (const shardsim::Report& r : reports) {
    std::printf("%s: %d GPUs, %.0f QPS\n", r.planner.c_str(), r.num_gpus, r.qps);
  }
  return reports.empty() ? 1 : 0;
}
