#pragma once
// The quality metrics `shardsim compare` judges (docs/regression.md): their names, which
// direction is better, their default tolerances, and the summary of one report they are read
// from. The comparison itself is metrics/report_compare.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shardsim/core/input_hashes.hpp"

namespace shardsim {

enum class Better { lower, higher };

// How a value is shown: seconds, bytes, a plain ratio, samples per second, or a yes/no flag.
enum class MetricUnit { seconds, bytes, ratio, per_second, flag };

// In the order of the comparison table, which is the report schema's order
// (metrics/report_schema.hpp: the rows with a compare spec define the metrics).
enum class MetricId : int {
  fits_in_memory,         // 1 when the plan fits (mean over seeds: the fraction that fit)
  iteration_time_mean_s,  // iteration_time_s.mean
  iteration_time_p99_s,   // iteration_time_s.p99
  qps,                    // qps
  imbalance_ratio,        // imbalance_ratio
  degree_of_balance,      // degree_of_balance (DoB)
  planning_time_s,        // planning_time_s (wall clock; only recorded with --timings)
  memory_max_bytes,       // memory_bytes.max: peak memory over GPUs
  comm_total_bytes,       // comm_total_bytes: per_gpu[].comm_sent_bytes summed (fwd + bwd)
  comm_max_gpu_bytes,     // comm_max_gpu_bytes: the most per_gpu[] sent + received
  count
};
inline constexpr std::size_t kMetricCount = static_cast<std::size_t>(MetricId::count);
inline constexpr std::size_t index_of(MetricId id) {
  return static_cast<std::size_t>(id);
}

struct MetricInfo {
  MetricId id;
  std::string_view name;  // in --tolerance, tolerance files, JSON and CSV output
  std::string_view description;
  Better better;
  MetricUnit unit;
  // Relative tolerance: the candidate may be worse by this fraction (0.01 = 1%) and still pass.
  // A flag has none: any change of a flag counts.
  double default_tolerance;
  // Compared only when both reports have it; a report without it is not "missing" (planning
  // time is recorded only on request).
  bool only_when_both;
};

// Every metric, in MetricId order (built from the report schema's rows).
std::span<const MetricInfo> comparison_metrics();
const MetricInfo& metric_info(MetricId id);
// The metric called `name`; nullptr when there is none.
const MetricInfo* find_metric(std::string_view name);

// What `compare` reads from one report (a Report in memory or a report JSON object).
struct ReportSummary {
  std::string scenario;
  std::string planner;
  std::string sweep_point;  // empty when the report is not a sweep point
  std::optional<std::uint64_t> seed;
  // Fields describing the set-up, which must agree for two reports to be comparable
  // (mode, preset, num_gpus, num_nodes, num_tables, global_batch, iterations, warmup), each as
  // text; a field the report does not carry is absent.
  std::vector<std::pair<std::string, std::string>> setup;
  std::string shardsim_version;
  InputHashes input_hashes;  // all empty when the report carries none
  // Each metric, when the report has it (and it is finite).
  std::array<std::optional<double>, kMetricCount> values{};
  std::string origin;  // where it came from, for messages: "base.json: reports[2]"

  std::optional<double> value(MetricId id) const { return values[index_of(id)]; }
};

}  // namespace shardsim
