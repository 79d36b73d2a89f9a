// --max-memory and --max-points (cli/resource_guard.hpp).
#include "cli/resource_guard.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "shardsim/io/sweep.hpp"
#include "shardsim/run/resource_loading_estimate.hpp"

namespace shardsim {

void add_guard_flags(CLI::App* cmd, GuardFlags& flags, bool points) {
  cmd->add_option("--max-memory", flags.max_memory,
                  "refuse runs estimated to need more memory than SIZE (e.g. 8G; 0: no limit; "
                  "default: half of this machine's memory)");
  if (points) {
    cmd->add_option("--max-points", flags.max_points,
                    fmt::format("most sweep points to expand (default {})", kDefaultMaxSweepPoints))
        ->check(CLI::PositiveNumber);
  }
}

ResourceLimits resource_limits(const GuardFlags& flags) {
  ResourceLimits limits;
  if (!flags.max_memory.empty()) limits.memory = parse_memory_limit(flags.max_memory);
  limits.max_points = flags.max_points.value_or(kDefaultMaxSweepPoints);
  // The documents read from now on are checked against the same limit before they are loaded.
  guard_yaml_loading(limits.memory);
  return limits;
}

}  // namespace shardsim
