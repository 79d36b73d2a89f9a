#pragma once
// Measured collective times as a CSV, for `shardsim calibrate --points FILE` (docs/model.md,
// "Calibration"): one measurement a line, each on its own cluster, so that one fit can span
// several machines (tests/data/collectives/ is turned into this form by
// scripts/validate_collectives.py). Columns, by header name, any order:
//   collective   allreduce | allgather | reduce_scatter | alltoall | sendrecv
//   size_bytes   nccl-tests' size column (> 0)
//   time_us      the measured time (> 0)
//   preset       a built-in hardware preset
//   nodes        nodes of it (>= 1)
//   sets         optional: scenario overrides for the cluster, `key=value` joined by ';'
//                (e.g. cluster.overrides.nics_per_node=4)
//   label        optional: a name for reports (default: file:line)
// No quoting: a field may not contain a comma. Bad input: InputError with file:line and column.
#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/io/override.hpp"

namespace shardsim {

struct MeasuredCollective {
  SourceLocation where;
  std::string label;
  CollectiveOp op = CollectiveOp::allreduce;
  double size_bytes = 0;
  double time_s = 0;
  std::string preset;
  int nodes = 1;
  std::vector<Override> sets;
};

std::vector<MeasuredCollective> read_calibration_points(const std::string& path);
std::vector<MeasuredCollective> parse_calibration_points(const std::string& text,
                                                         const std::string& file);

}  // namespace shardsim
