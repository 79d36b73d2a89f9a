#pragma once
// The QPS scaling factor of a sweep over the GPU count (2D paper §4.3: "the ratio of the QPS
// speed-up over the multiplier of GPU number increasing"), along the swept key that changes the
// GPU count, with the other swept keys held.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

// A sweep point's keys and values, in the sweep's key order (io's sweep_point_parts).
using SweepCoordinates = std::vector<std::pair<std::string, std::string>>;

// For every report of a sweep point (non-empty sweep_point) with a QPS, `coords[i]` being report
// i's coordinates: its reference is the report of the same planner and seed at the same point but
// for one axis set to its first values (those of the first report of that planner and seed), the
// first axis in key order whose point ran with a QPS and another GPU count. An axis is a key, or
// keys whose values determine each other over the sweep (a zip group). The scaling factor is
// (qps / reference qps) / (num_gpus / reference num_gpus); it stays NaN where no reference exists
// (the first point, a sweep that does not change the GPU count, a held point that did not fit).
// O(reports x keys²).
void assign_scaling_factors(std::span<Report> reports, std::span<const SweepCoordinates> coords);

// The same with each report's whole sweep-point label as its one coordinate: the reference is
// the first report of the planner and seed, when it has another GPU count.
void assign_scaling_factors(std::span<Report> reports);

}  // namespace shardsim
