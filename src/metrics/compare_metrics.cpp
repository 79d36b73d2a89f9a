// The metric catalogue of `shardsim compare` (docs/regression.md, "Metrics and tolerances").
#include "shardsim/metrics/compare_metrics.hpp"

#include <stdexcept>

namespace shardsim {

namespace {

// Default tolerances. The simulator is deterministic for a seed, so a tolerance is not there to
// absorb noise: it decides how small a deliberate change (a cost-model tweak, a planner's
// tie-break) may move a result without failing a check. Times, QPS, memory and bytes: 1%; the
// tail (p99) and the balance ratios, which move more with small placement changes: 2%; planning
// time, which is wall-clock time on whatever machine ran it: 50%.
constexpr std::array<MetricInfo, kMetricCount> kMetrics{{
    {MetricId::fits_in_memory, "fits_in_memory", "every GPU's memory fits", Better::higher,
     MetricUnit::flag, 0.0, false},
    {MetricId::iteration_time_mean_s, "iteration_time_mean_s", "mean iteration time", Better::lower,
     MetricUnit::seconds, 0.01, false},
    {MetricId::iteration_time_p99_s, "iteration_time_p99_s", "p99 iteration time", Better::lower,
     MetricUnit::seconds, 0.02, false},
    {MetricId::qps, "qps", "samples per second", Better::higher, MetricUnit::per_second, 0.01,
     false},
    {MetricId::imbalance_ratio, "imbalance_ratio", "max/mean lookup time over GPUs", Better::lower,
     MetricUnit::ratio, 0.02, false},
    {MetricId::degree_of_balance, "degree_of_balance", "DoB: min/max communication cost",
     Better::higher, MetricUnit::ratio, 0.02, false},
    {MetricId::memory_max_bytes, "memory_max_bytes", "peak memory over GPUs", Better::lower,
     MetricUnit::bytes, 0.01, false},
    {MetricId::comm_total_bytes, "comm_total_bytes", "bytes sent per iteration, all GPUs",
     Better::lower, MetricUnit::bytes, 0.01, false},
    {MetricId::comm_max_gpu_bytes, "comm_max_gpu_bytes",
     "most bytes one GPU sends + receives per iteration", Better::lower, MetricUnit::bytes, 0.01,
     false},
    {MetricId::planning_time_s, "planning_time_s", "planner wall time", Better::lower,
     MetricUnit::seconds, 0.5, true},
}};

constexpr bool in_id_order() {
  for (std::size_t i = 0; i < kMetrics.size(); ++i) {
    if (index_of(kMetrics[i].id) != i) return false;
  }
  return true;
}
static_assert(in_id_order(), "kMetrics must list the metrics in MetricId order");

}  // namespace

std::span<const MetricInfo> comparison_metrics() {
  return kMetrics;
}

const MetricInfo& metric_info(MetricId id) {
  const std::size_t i = index_of(id);
  if (i >= kMetrics.size()) throw std::logic_error("metric_info: not a metric");
  return kMetrics[i];
}

const MetricInfo* find_metric(std::string_view name) {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace shardsim
