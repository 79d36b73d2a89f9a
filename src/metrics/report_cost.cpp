// The cost of a report at a price per GPU-hour (metrics/report.hpp, docs/report.md "Cost").
#include <cmath>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

CostReport report_cost(const Report& r, double price_per_gpu_hour, std::uint64_t dataset_samples) {
  constexpr double kSecondsPerHour = 3600.0;
  CostReport c;
  c.price_per_gpu_hour = price_per_gpu_hour;
  c.dataset_samples = dataset_samples;
  const bool timed = !r.iteration_times_s.empty() && r.qps > 0 && std::isfinite(r.qps);
  if (!timed) return c;
  const double price_per_s = price_per_gpu_hour * r.num_gpus / kSecondsPerHour;  // cluster
  c.cost_per_million_samples = price_per_s * (1e6 / r.qps);
  if (dataset_samples > 0) {
    c.cost_per_epoch = price_per_s * (static_cast<double>(dataset_samples) / r.qps);
  }
  return c;
}

}  // namespace shardsim
