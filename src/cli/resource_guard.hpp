#pragma once
// The command-line side of the resource guard (run/resource_guard.hpp): `--max-memory SIZE` and
// `--max-points N`.
#include <cstddef>
#include <optional>
#include <string>

#include "shardsim/run/resource_guard.hpp"

namespace CLI {
class App;
}

namespace shardsim {

struct GuardFlags {
  std::string max_memory;                 // --max-memory SIZE (empty: the default)
  std::optional<std::size_t> max_points;  // --max-points N (sweeps)
};
// Adds --max-memory (and, with `points`, --max-points) to `cmd`.
void add_guard_flags(CLI::App* cmd, GuardFlags& flags, bool points);

// The limits the flags give (defaults for flags not given); a bad SIZE is an InputError. The memory
// limit is also installed for the YAML documents read from then on (guard_yaml_loading).
ResourceLimits resource_limits(const GuardFlags& flags);

}  // namespace shardsim
