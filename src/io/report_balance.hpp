#pragma once
// Spread of one per-GPU quantity across the GPUs of a report: min, mean and max with the GPUs
// that hold the extremes. OPER §6.4 (Fig. 10) judges placements by the max, mean and min of
// memory, lookup workload and communication per GPU; DESIGN.md §6 reports the balance as
// max - min and as max / mean.
#include <span>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

struct Spread {
  double min = 0;
  double mean = 0;
  double max = 0;
  int min_gpu = -1;  // GpuReport::gpu of the first GPU holding the minimum; -1 with no GPUs
  int max_gpu = -1;  // likewise for the maximum
  int count = 0;     // number of GPUs

  double max_minus_min() const { return max - min; }
  // NaN when the mean is 0 (nothing to balance), so writers print null / "n/a".
  double max_over_mean() const;
};

// `value` picks the quantity, e.g. [](const GpuReport& g) { return g.memory_bytes; }.
// An empty span gives count 0 and zeros.
Spread spread_of(std::span<const GpuReport> gpus, double (*value)(const GpuReport&));

// The per-GPU quantities OPER §6.4 compares. Communication is bytes sent plus received per
// iteration (forward + backward).
double gpu_memory_bytes(const GpuReport& g);
double gpu_lookups(const GpuReport& g);
double gpu_comm_bytes(const GpuReport& g);

}  // namespace shardsim
