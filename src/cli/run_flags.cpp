// --seeds, --seed, --set, --iterations, --jobs, --timings (cli/run_flags.hpp).
#include "cli/run_flags.hpp"

#include <CLI/CLI.hpp>

namespace shardsim {

bool RunFlags::given() const {
  return seeds || seed || !sets.empty() || iterations || timings;
}

void add_run_flags(CLI::App* cmd, RunFlags& f) {
  cmd->add_option("--seeds", f.seeds,
                  "run N seeds (the first: --seed or workload.seed) and compare their means")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", f.seed, "the (first) seed: overrides workload.seed");
  cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  cmd->add_option("--iterations", f.iterations, "override workload.iterations")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--jobs,-j", f.jobs, "runs in parallel (results do not depend on it)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--timings", f.timings,
                "record wall-clock planning time (makes reports differ between runs)");
  add_guard_flags(cmd, f.guard, true);
}

ScenarioRunOptions run_options(const RunFlags& f) {
  ScenarioRunOptions o;
  for (const std::string& s : f.sets) o.overrides.push_back(parse_override(s));
  if (f.iterations) o.overrides.push_back({"workload.iterations", std::to_string(*f.iterations)});
  o.seed = f.seed;
  o.seed_count = f.seeds.value_or(1);
  o.record_timings = f.timings;
  o.jobs = f.jobs;
  o.limits = resource_limits(f.guard);
  return o;
}

}  // namespace shardsim
