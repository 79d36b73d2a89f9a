#pragma once
// The command-line side of the resource guard (io/resource_estimate.hpp, docs/robustness.md):
// `--max-memory SIZE` and `--max-points N`, and the checks every command that runs scenarios
// makes before the first plan is made.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "shardsim/io/resource_estimate.hpp"
#include "shardsim/io/scenario.hpp"

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

MemoryLimit memory_limit(const GuardFlags& flags);
std::size_t max_points(const GuardFlags& flags);

// Estimates the memory of `runs` (one scenario per sweep point x seed) and refuses (InputError,
// exit code 2) above the limit. `source` names the scenario file in the message.
void check_runs(std::span<const Scenario> runs, const RunShape& shape, const GuardFlags& flags,
                const std::string& source);

// While the runs of a big sweep are loaded: refuses as soon as the scenarios loaded so far,
// projected to all `total` runs, would exceed the limit on their own (so that a million points
// of a million tables each are refused after the first, not after the memory is gone).
class LoadingGuard {
 public:
  LoadingGuard(std::size_t total, const GuardFlags& flags, std::string source);
  void loaded(const Scenario& scenario);

 private:
  std::size_t total_;
  std::size_t count_ = 0;
  double bytes_ = 0;
  MemoryLimit limit_;
  std::string source_;
};

}  // namespace shardsim
