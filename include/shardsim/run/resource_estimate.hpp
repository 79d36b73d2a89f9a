#pragma once
// The resource guard (docs/robustness.md "Resource guards"): before anything runs, an estimate of
// the memory shardsim itself will need for a set of runs, compared with a limit (`--max-memory`,
// by default half of this machine's memory), so that an absurd scenario is refused with a clear
// message (exit code 2) instead of being killed by the kernel half-way.
//
// The estimate adds up the terms that grow with the inputs — the GPU x GPU communication matrices
// (per report, in the builder, in the plan statistics and as output text), the shards and
// serving maps of the plans, the per-iteration task graphs, the per-table draws, the distinct-row
// sets of sampled traces, the loaded scenarios of a sweep — each with its count in the item's
// text. Every constant and count is in resource_estimate.cpp, next to the code it mirrors, and is
// checked against hand counts in tests/run/resource_estimate_test.cpp. It is an estimate within a
// small factor (docs/robustness.md compares it with measured peak memory), not an allocator.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/io/scenario.hpp"
#include "shardsim/plan/plan_shape_bound.hpp"

namespace shardsim {

struct MemoryItem {
  std::string what;  // e.g. "communication matrices: 3 reports x 2 x 4096^2 x 8 B"
  double bytes = 0;
};
// Orders `items` largest first, equal ones as given (the order a refusal names them in).
void sort_largest_first(std::vector<MemoryItem>& items);

// What one run (one scenario: one sweep point and seed) needs, in three parts that combine
// differently across runs: `kept` stays until the command ends (loaded scenario, reports),
// `peak` is the largest working set while one plan is made and simulated (freed after), `output`
// is the text of the report files rendered at once by `--out` (counted once, for all runs),
// `chrome_trace` the text `run --trace-out` accumulates over all plans before writing it.
// `shared` is what the runs of a process share when their tables are the same (the synthetic
// trace's power-law profiles, trace/shared_profiles.hpp): the largest run's, counted once when
// every run has the same tables, else once for each run in flight and once more for the last
// finished run's, kept for the next.
struct RunFootprint {
  std::vector<MemoryItem> kept;
  std::vector<MemoryItem> peak;
  std::vector<MemoryItem> output;
  std::vector<MemoryItem> chrome_trace;
  std::vector<MemoryItem> shared;
  double kept_bytes() const;
  double peak_bytes() const;
  double output_bytes() const;
  double shared_bytes() const;
};

struct RunShape {
  int jobs = 1;                      // runs simulated at once (--jobs)
  bool writes_out_dir = false;       // --out DIR: every report rendered as text before writing
  bool writes_chrome_trace = false;  // run --trace-out: every plan's events kept as JSON text
};

struct ResourceEstimate {
  double total_bytes = 0;
  // The terms, largest first (for the message): kept terms summed over runs, the peak of the
  // largest run times the runs in flight, the largest shared terms times the sets held at once,
  // output text summed over runs.
  std::vector<MemoryItem> items;
  double run_peak_bytes = 0;  // the largest run's peak, once (in total_bytes x runs in flight)
};

// A plan that exists: its planner's name (empty: the plan file) and its shape (plan_shape_of).
struct MadePlan {
  std::string planner;
  PlanShapeBound shape;
};

// The footprint of one run of `scenario` (all its planners and its plan file), or with `made`
// the footprint while that plan is simulated: its term from the plan's own shape.
RunFootprint run_footprint(const Scenario& scenario, const MadePlan* made = nullptr);

// The estimate for running `runs` (one entry per sweep point x seed) with `shape`.
ResourceEstimate estimate_memory(std::span<const Scenario> runs, const RunShape& shape);

// The bound on the plan `planner` makes for `scenario`, as the planner declares it in its
// PlannerInfo (plan/plan_shape_bound.hpp) with the options routed to it; a plan file
// (`placement.file`, named by an empty `planner`) gets worst_case_shape.
PlanShapeBound plan_shape_bound(const std::string& planner, const Scenario& scenario);

// The memory limit: `--max-memory` when given (0: no limit), else the default.
struct MemoryLimit {
  double bytes = 0;    // 0: unlimited
  std::string origin;  // "--max-memory 8G" or "half of this machine's 31.3 GiB"
};
// Half of the smaller of physical memory and the cgroup limit (memory.max), if any.
MemoryLimit default_memory_limit();
// "8G", "512M", "1.5T", "2GiB", "1e9", "100000" (bytes); "0", "none", "unlimited": no limit.
// Anything else is an InputError naming `flag`.
MemoryLimit parse_memory_limit(std::string_view text, const std::string& flag = "--max-memory");

// Throws InputError (exit 2) when `estimate` exceeds `limit`: the message names what (`subject`)
// would need the estimate, the limit and where it came from, the largest terms, and a hint
// (fewer GPUs, planners, iterations or jobs; trace mode expected; or a higher --max-memory).
void check_memory(const ResourceEstimate& estimate, const MemoryLimit& limit,
                  const std::string& source, const std::string& subject = "the run");

// Renders a byte count for messages: "1.07 GB" (decimal units, as the fit errors).
std::string human_bytes(double bytes);

}  // namespace shardsim
