#include "plan/table_cost.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "plan/shard_estimate.hpp"

namespace shardsim {

std::string to_string(TableCost c) {
  switch (c) {
    case TableCost::lookup:
      return "lookup";
    case TableCost::size:
      return "size";
    case TableCost::dim:
      return "dim";
    case TableCost::size_lookup:
      return "size_lookup";
    case TableCost::estimated:
      return "estimated";
  }
  return "?";
}

OptionSpec table_cost_option() {
  return OptionSpec::choice("cost", {"lookup", "size", "dim", "size_lookup", "estimated"}, "lookup",
                            "the per-table cost the planner balances");
}

TableCost table_cost_of(const PlannerOptions& options) {
  const std::string& s = options.text("cost");
  if (s == "size") return TableCost::size;
  if (s == "dim") return TableCost::dim;
  if (s == "size_lookup") return TableCost::size_lookup;
  if (s == "estimated") return TableCost::estimated;
  return TableCost::lookup;
}

TableCosts::TableCosts(const PlanningContext& ctx, TableCost cost)
    : ctx_(ctx), cost_(cost), gpu_rows_(cost == TableCost::estimated ? expected_gpu_rows(ctx) : 0) {
  whole_.reserve(ctx.model.tables.size());
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    whole_.push_back(column_block(t, ColRange{0, ctx.model.tables[t].dim}));
  }
}

double TableCosts::table(std::size_t table) const {
  return whole_.at(table);
}

std::vector<std::size_t> TableCosts::by_cost_desc() const {
  std::vector<std::size_t> order(whole_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return whole_[a] > whole_[b]; });
  return order;
}

double TableCosts::column_block(std::size_t table, ColRange cols) const {
  const EmbeddingTable& t = ctx_.model.tables[table];
  const double dim = cols.size();
  const double pooling = t.pooling.expected();
  const double rows = static_cast<double>(t.rows);
  // NeuroShard App. E (cost functions of the greedy baselines).
  switch (cost_) {
    case TableCost::size:
      return rows * dim;
    case TableCost::dim:
      return dim;
    case TableCost::lookup:
      return dim * pooling;
    case TableCost::size_lookup:
      // log10(rows), as NeuroShard's released code computes it (App. E's text says "table
      // size"); clamped at 10 rows so a tiny table keeps a positive cost.
      return dim * pooling * std::log10(std::max(10.0, rows));
    case TableCost::estimated:
      return estimate_shard_cost(ctx_, table, RowRange{0, t.rows}, RowSpace::row_id, cols,
                                 ctx_.cluster.num_gpus(), all_gpu_peers(ctx_.cluster), gpu_rows_)
          .total_s();
  }
  return 0;
}

}  // namespace shardsim
