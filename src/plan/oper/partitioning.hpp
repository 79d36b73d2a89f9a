#pragma once
// OPER §4.1, access- and memory-aware adaptive partitioning: each table's rows, hottest first
// (popularity ranks), are cut into partitions whose access and footprint both stay within a
// `threshold` fraction of the totals. A partition is access-bounded when its access is the
// larger fraction of its threshold, memory-bounded otherwise. Over rank ranges of the access
// profiles, never over single rows: O(log rows) profile queries per partition.
#include <vector>

#include "plan/oper/oper_model.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::oper {

// What one row of a table occupies (Eq. 1's S_k: weights + optimizer state in training) and
// what a get moves (dim × bytes of the table precision).
double row_footprint_bytes(const PlanningContext& ctx, std::size_t table);
double row_fetch_bytes(const PlanningContext& ctx, std::size_t table);

// The totals the threshold is a fraction of: all lookups of one GPU's batch per iteration, and
// every table's footprint.
struct PartitionTotals {
  double access = 0;
  double bytes = 0;
};
PartitionTotals partition_totals(const PlanningContext& ctx);

// Cuts every table, in table order, each from its hottest rank on: a partition [b, e) ends at
// the largest e with access(b, e) <= threshold · total access and footprint <= threshold · total
// footprint, but holds at least one row (a row hotter than the threshold is a partition of its
// own). threshold in (0, 1].
std::vector<Partition> partition_tables(const PlanningContext& ctx, double threshold);

}  // namespace shardsim::oper
