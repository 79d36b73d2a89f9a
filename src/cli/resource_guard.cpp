// --max-memory and --max-points, and the checks before running (cli/resource_guard.hpp).
#include "shardsim/cli/resource_guard.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "shardsim/io/sweep.hpp"

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

MemoryLimit memory_limit(const GuardFlags& flags) {
  return flags.max_memory.empty() ? default_memory_limit() : parse_memory_limit(flags.max_memory);
}

std::size_t max_points(const GuardFlags& flags) {
  return flags.max_points.value_or(kDefaultMaxSweepPoints);
}

void check_runs(std::span<const Scenario> runs, const RunShape& shape, const GuardFlags& flags,
                const std::string& source) {
  const MemoryLimit limit = memory_limit(flags);
  const ResourceEstimate e = estimate_memory(runs, shape);
  spdlog::debug("estimated memory of {} run(s): {} (limit {}: {})", runs.size(),
                human_bytes(e.total_bytes), limit.bytes > 0 ? human_bytes(limit.bytes) : "none",
                limit.origin);
  check_memory(e, limit, source);
}

LoadingGuard::LoadingGuard(std::size_t total, const GuardFlags& flags, std::string source)
    : total_(total), limit_(memory_limit(flags)), source_(std::move(source)) {}

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
