#pragma once
// The distinct row ranges of each table's replica sets: what the trace draws lookups for, each
// iteration (and what the expectations of a one-sided plan are split over). Part of the per-plan
// analysis (plan/plan_analysis.hpp).
#include <cstddef>
#include <vector>

#include "shardsim/plan/serving.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

// Sorted by begin within a table. Sets that differ only in columns share a block (the same
// lookups reach every column shard).
struct PlanRowBlocks {
  std::vector<std::vector<RowBlock>> of_table;          // per table
  std::vector<std::size_t> block_of_set;                // per replica set: its block in its table
  std::vector<std::vector<std::size_t>> sets_of_table;  // per table: its replica sets, in order
};

PlanRowBlocks plan_row_blocks(const ServingMap& serving, std::size_t num_tables);

}  // namespace shardsim
