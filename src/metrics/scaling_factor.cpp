#include "shardsim/metrics/scaling_factor.hpp"

#include <cmath>

namespace shardsim {

namespace {
bool has_qps(const Report& r) {
  return r.fits_in_memory && !r.iteration_times_s.empty() && r.qps > 0 && std::isfinite(r.qps);
}
}  // namespace

void assign_scaling_factors(std::span<Report> reports) {
  for (std::size_t i = 0; i < reports.size(); ++i) {
    Report& r = reports[i];
    r.scaling_factor = std::nan("");
    if (r.sweep_point.empty() || !has_qps(r)) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const Report& ref = reports[j];
      if (ref.sweep_point.empty() || ref.planner != r.planner || ref.seed != r.seed ||
          !has_qps(ref)) {
        continue;
      }
      if (ref.num_gpus != r.num_gpus) {
        r.scaling_factor = (r.qps / ref.qps) / (static_cast<double>(r.num_gpus) / ref.num_gpus);
      }
      break;  // the first such report is the reference
    }
  }
}

}  // namespace shardsim
