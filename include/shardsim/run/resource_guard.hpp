#pragma once
// The resource guard before running (io/resource_estimate.hpp, docs/robustness.md): the limits
// a caller sets (`--max-memory`, `--max-points` on the command line) and the checks every runner
// makes before the first plan is made.
#include <cstddef>
#include <span>
#include <string>

#include "shardsim/io/scenario.hpp"
#include "shardsim/io/sweep.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/run/resource_estimate.hpp"

namespace shardsim {

struct ResourceLimits {
  MemoryLimit memory = default_memory_limit();      // runs estimated above it are refused
  std::size_t max_points = kDefaultMaxSweepPoints;  // most sweep points one scenario expands to
};

// The guard's second look, once a plan exists (check_plan): the limit, and what check_runs counted
// besides one run's peak (the reports kept, the profiles, the other runs in flight).
struct PlanGuard {
  MemoryLimit limit{0, ""};  // 0: no second look
  std::string source;
  double other_bytes = 0;
};

// Estimates the memory of `runs` (one scenario per sweep point x seed) and refuses (InputError,
// exit code 2) above the limit. `source` names the scenario file in the message. Returns the
// second look for the runs' plans (RunOptions::plan_guard).
PlanGuard check_runs(std::span<const Scenario> runs, const RunShape& shape,
                     const ResourceLimits& limits, const std::string& source);

// Once `plan` exists for `scenario`: the run's estimate with the plan's term from its own shape
// (plan_shape_of) in place of its planner's bound, refused as check_runs refuses. Planners with
// a loose bound (hybrid, torchrec, two_d) are counted before planning by their plan's records
// alone, and fully only here. No limit in `guard`: no check.
void check_plan(const Scenario& scenario, const Plan& plan, const PlanGuard& guard);

// While the runs of a big sweep are loaded: refuses as soon as the scenarios loaded so far,
// projected to all `total` runs, would exceed the limit on their own (so that a million points
// of a million tables each are refused after the first, not after the memory is gone).
class LoadingGuard {
 public:
  LoadingGuard(std::size_t total, const ResourceLimits& limits, std::string source);
  void loaded(const Scenario& scenario);

 private:
  std::size_t total_;
  std::size_t count_ = 0;
  double bytes_ = 0;
  MemoryLimit limit_;
  std::string source_;
};

}  // namespace shardsim
