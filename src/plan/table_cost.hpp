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

// The `cost` option (one of lookup, size, dim, size_lookup, estimated; default lookup), and its
// value in options that declare it.
OptionSpec table_cost_option();
TableCost table_cost_of(const PlannerOptions& options);

// The costs of one plan's tables, by one of the functions above:
//   size        = rows x dim
//   dim         = dim
//   lookup      = dim x E[pooling]
//   size_lookup = dim x E[pooling] x log10(max(rows, 10))
//   estimated   = estimate_shard_cost(whole table, served by all GPUs).total_s()
// `estimated` prices the backward sort over the rows a GPU is expected to hold
// (expected_gpu_rows), an O(tables) sum made once here, not once per table. Whole tables are
// priced once, on construction; column blocks on each call.
class TableCosts {
 public:
  TableCosts(const PlanningContext& ctx, TableCost cost);

  double table(std::size_t table) const;
  // Columns [cols) of `table`: the static functions scale with the share of columns (they are
  // linear in dim); `estimated` is recomputed for the column block.
  double column_block(std::size_t table, ColRange cols) const;
  // Table indices by cost, largest first (ties in index order).
  std::vector<std::size_t> by_cost_desc() const;

 private:
  const PlanningContext& ctx_;
  TableCost cost_;
  double gpu_rows_;            // expected_gpu_rows(ctx_), for `estimated`
  std::vector<double> whole_;  // table(t), in table order
};

}  // namespace shardsim
