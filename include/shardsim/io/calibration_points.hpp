#pragma once
// Measured collective times as a CSV, for `shardsim calibrate --points FILE` (docs/model.md,
// "Calibration"; tests/data/collectives/points.csv is one): one measurement a line, each on its
// own cluster, so that one fit can span several machines. Columns, by header name, any order
// (others, such as source_url or notes, are ignored):
//   collective   allreduce | allgather | reduce_scatter | alltoall | sendrecv
//   size_bytes   nccl-tests' size column (> 0)
//   time_us      the measured time (> 0); may be empty where busbw_gbps and ranks are given
//   preset       a built-in hardware preset; empty for a point no preset stands for, with the
//                reason in `unmatched` (the point is then left out, and listed)
//   nodes        nodes of it (>= 1)
//   sets         optional: scenario overrides for the cluster (and the NCCL choices the run
//                forced), `key=value` joined by ';' (e.g. cluster.overrides.nics_per_node=4)
//   label        optional: a name for reports (default: file:line)
//   busbw_gbps   optional: nccl-tests' busbw (GB/s); with an empty time_us, the time is
//                size_bytes / (busbw_gbps / busbw factor of `ranks`), as nccl-tests computes busbw
//   ranks        the ranks of that busbw factor (>= 2)
//   unmatched    optional: why no preset stands for the point (with an empty preset)
// A field in double quotes may hold commas ("" for a quote). Bad input: InputError with
// file:line and column.
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

// A point left out: its row had no preset, for `reason`.
struct UnmatchedCollective {
  SourceLocation where;
  std::string label;
  std::string reason;
};

struct CalibrationPoints {
  std::vector<MeasuredCollective> points;  // in the file's order; never empty
  std::vector<UnmatchedCollective> unmatched;
};

CalibrationPoints read_calibration_points(const std::string& path);
CalibrationPoints parse_calibration_points_file(const std::string& text, const std::string& file);
// The points alone.
std::vector<MeasuredCollective> parse_calibration_points(const std::string& text,
                                                         const std::string& file);

}  // namespace shardsim
