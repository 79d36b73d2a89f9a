#include <limits>

#include "io/report_balance.hpp"

namespace shardsim {

double Spread::max_over_mean() const {
  if (mean == 0) return std::numeric_limits<double>::quiet_NaN();
  return max / mean;
}

Spread spread_of(std::span<const GpuReport> gpus, double (*value)(const GpuReport&)) {
  Spread s;
  if (gpus.empty()) return s;
  double sum = 0;
  for (const GpuReport& g : gpus) {
    const double v = value(g);
    if (s.count == 0 || v < s.min) {
      s.min = v;
      s.min_gpu = g.gpu;
    }
    if (s.count == 0 || v > s.max) {
      s.max = v;
      s.max_gpu = g.gpu;
    }
    sum += v;
    ++s.count;
  }
  s.mean = sum / s.count;
  return s;
}

double gpu_memory_bytes(const GpuReport& g) {
  return g.memory_bytes;
}
double gpu_lookups(const GpuReport& g) {
  return g.lookups;
}
double gpu_comm_bytes(const GpuReport& g) {
  return g.comm_sent_bytes + g.comm_received_bytes;
}

}  // namespace shardsim
