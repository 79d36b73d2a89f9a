#pragma once
// The QPS scaling factor of a sweep over the GPU count (2D paper §4.3: "the ratio of the QPS
// speed-up over the multiplier of GPU number increasing"), against the first point.
#include <span>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

// For every report of a sweep point (non-empty sweep_point) with a QPS: its reference is the
// first report in `reports` (sweep order) of the same planner and seed that has a QPS; the
// scaling factor is (qps / reference qps) / (num_gpus / reference num_gpus). It stays NaN for
// the reference itself, for a report with the reference's GPU count (the sweep varies something
// else), and for reports without a QPS (not simulated). O(reports²) in the worst case.
void assign_scaling_factors(std::span<Report> reports);

}  // namespace shardsim
