#pragma once
// io-private. Which fields of a Report exist, so every writer prints the same null / empty / "n/a"
// (docs/report.md, "A plan that does not fit"). The metrics module builds three kinds of report:
// simulated (fits), a plan that does not fit (memory and communication from the plan, never
// simulated), and no plan at all (the planner could not place the tables: only the failing
// GPU's memory need).
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// Timings (iteration times, QPS, imbalance ratio, breakdown, per-GPU busy and idle times) exist
// only for a plan that fit and was simulated.
inline bool report_has_timing(const Report& r) {
  return r.fits_in_memory;
}

// Per-GPU figures derived from a plan (per-GPU memory and its mean, lookups, shards, the degree
// of balance of communication cost) exist only when there is a plan.
inline bool report_has_plan(const Report& r) {
  return !r.per_gpu.empty();
}

}  // namespace shardsim
