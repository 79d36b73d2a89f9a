// The checks before running (run/resource_guard.hpp).
#include "shardsim/run/resource_guard.hpp"

#include <fmt/format.h>

#include "shardsim/core/log.hpp"

namespace shardsim {

PlanGuard check_runs(std::span<const Scenario> runs, const RunShape& shape,
                     const ResourceLimits& limits, const std::string& source) {
  const MemoryLimit& limit = limits.memory;
  const ResourceEstimate e = estimate_memory(runs, shape);
  log_debug("estimated memory of {} run(s): {} (limit {}: {})", runs.size(),
            human_bytes(e.total_bytes), limit.bytes > 0 ? human_bytes(limit.bytes) : "none",
            limit.origin);
  check_memory(e, limit, source);
  return PlanGuard{limit, source, e.total_bytes - e.run_peak_bytes};
}

void check_plan(const Scenario& scenario, const Plan& plan, const PlanGuard& guard) {
  if (guard.limit.bytes <= 0) return;
  const MadePlan made{plan.planner, plan_shape_of(plan)};
  const RunFootprint f = run_footprint(scenario, &made);
  ResourceEstimate e;
  e.total_bytes = guard.other_bytes + f.peak_bytes();
  e.items = f.peak;
  e.items.push_back(
      {"the reports kept, the trace profiles and any other runs at once", guard.other_bytes});
  sort_largest_first(e.items);
  log_debug("estimated memory with the plan of '{}' ({} shards): {} (limit {})", plan.planner,
            plan.shards.size(), human_bytes(e.total_bytes), human_bytes(guard.limit.bytes));
  check_memory(e, guard.limit, guard.source,
               fmt::format("once its plan '{}' is made ({} shards), the run", plan.planner,
                           plan.shards.size()));
}

LoadingGuard::LoadingGuard(std::size_t total, const ResourceLimits& limits, std::string source)
    : total_(total), limit_(limits.memory), source_(std::move(source)) {}

void LoadingGuard::loaded(const Scenario& scenario) {
  const RunFootprint f = run_footprint(scenario);
  bytes_ += f.kept.empty() ? 0 : f.kept.front().bytes;  // the loaded model
  ++count_;
  if (limit_.bytes <= 0 || total_ <= 1) return;
  const double projected = bytes_ / static_cast<double>(count_) * static_cast<double>(total_);
  if (projected <= limit_.bytes) return;
  ResourceEstimate e;
  e.total_bytes = projected;
  e.items.push_back({fmt::format("{} loaded scenarios of about {} tables each", total_,
                                 scenario.model.tables.size()),
                     projected});
  check_memory(e, limit_, source_);
}

}  // namespace shardsim
