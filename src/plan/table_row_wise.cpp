// Table-row-wise placement, Neo §4.1's hierarchical "table-wise then row-wise" scheme: tables
// go to nodes (largest cost first, each to the least-loaded node with room), and inside its
// node a table is split into even contiguous row ranges, one per GPU of the node. The AlltoAll
// then carries partial sums from the node's GPUs (fast NVLink inside the node); fewer tables
// share a node than a GPU, which evens out the load.
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/splits.hpp"
#include "plan/table_cost.hpp"

namespace shardsim {

namespace {

class TableRowWisePlanner final : public Planner {
 public:
  TableRowWisePlanner(TableCost cost, double headroom) : cost_(cost), headroom_(headroom) {}
  std::string name() const override { return "table_row_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto& tables = ctx.model.tables;
    const TableCosts costs(ctx, cost_);
    const std::vector<std::size_t> order = costs.by_cost_desc();
    // Rows in id order across the node's GPUs in id order (the first range on the first GPU).
    const NodeSplit split = [&](std::size_t t, const std::vector<int>& gpus) {
      std::vector<int> by_id = gpus;
      std::sort(by_id.begin(), by_id.end());
      const auto ranges = even_row_ranges(tables[t].rows, by_id.size());
      std::vector<PlacedShard> out;
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        Shard sh;
        sh.table = t;
        sh.rows = ranges[i];
        sh.cols = {0, tables[t].dim};
        sh.gpu = by_id[i];
        sh.kind = ranges.size() > 1 ? ShardKind::row_wise : ShardKind::table_wise;
        const double share =
            static_cast<double>(ranges[i].size()) / static_cast<double>(tables[t].rows);
        out.push_back(PlacedShard{sh, costs.table(t) * share});
      }
      return out;
    };
    return plan_tables_on_nodes(ctx, order, split, name(), headroom_,
                                cost_ == TableCost::estimated);
  }

 private:
  TableCost cost_;
  double headroom_;
};

}  // namespace

OptionSchema table_row_wise_planner_options() {
  return planner_schema({table_cost_option()}, 0.0);
}

std::unique_ptr<Planner> make_table_row_wise_planner(const PlannerOptions& options) {
  return std::make_unique<TableRowWisePlanner>(table_cost_of(options), options.number("headroom"));
}

}  // namespace shardsim
