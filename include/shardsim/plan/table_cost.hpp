#pragma once
// Per-table cost functions that greedy planners balance. The first four are NeuroShard App. E's
// (and its released code: size_lookup uses log10(rows)); `estimated` is this project's cost
// model (shard_estimate.hpp): expected seconds of the whole table on one GPU serving every GPU.
#include <cstddef>
#include <string>
#include <vector>

#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

enum class TableCost { lookup, size, dim, size_lookup, estimated };
std::string to_string(TableCost c);

// The `cost` option (one of lookup, size, dim, size_lookup, estimated).
TableCost read_table_cost(const PlannerOptions& options, TableCost default_cost);

//   size        = rows x dim
//   dim         = dim
//   lookup      = dim x E[pooling]
//   size_lookup = dim x E[pooling] x log10(max(rows, 10))
//   estimated   = estimate_shard_cost(whole table, served by all GPUs).total_s()
double table_cost(const PlanningContext& ctx, std::size_t table, TableCost cost);

// Table indices by table_cost, largest first (ties in index order).
std::vector<std::size_t> tables_by_cost_desc(const PlanningContext& ctx, TableCost cost);

// The cost of columns [cols) of `table`: the static functions scale with the share of columns
// (they are linear in dim); `estimated` is recomputed for the column block.
double column_block_cost(const PlanningContext& ctx, std::size_t table, ColRange cols,
                         TableCost cost);

}  // namespace shardsim
