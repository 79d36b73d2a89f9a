// Table-column-wise placement (TorchRec's TWCW; a hierarchical scheme in the sense of Neo §4.1):
// tables go to nodes (largest cost first, each to the least-loaded node with room), and inside
// its node a table is split into column blocks (multiples of 4), one per GPU of the node, the
// widest block on the node's least-loaded GPU.
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/splits.hpp"
#include "plan/table_cost.hpp"

namespace shardsim {

namespace {

class TableColumnWisePlanner final : public Planner {
 public:
  TableColumnWisePlanner(TableCost cost, double headroom) : cost_(cost), headroom_(headroom) {}
  std::string name() const override { return "table_column_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto& tables = ctx.model.tables;
    const auto gpn = static_cast<std::uint32_t>(ctx.cluster.gpus_per_node());
    const TableCosts costs(ctx, cost_);
    const std::vector<std::size_t> order = costs.by_cost_desc();
    const NodeSplit split = [&](std::size_t t, const std::vector<int>& gpus) {
      const auto blocks = column_blocks(tables[t].dim, gpn);
      std::vector<PlacedShard> out;
      for (std::size_t i = 0; i < blocks.size(); ++i) {  // blocks are widest first
        Shard sh;
        sh.table = t;
        sh.rows = {0, tables[t].rows};
        sh.cols = blocks[i];
        sh.gpu = gpus[i];
        sh.kind = blocks.size() > 1 ? ShardKind::column_wise : ShardKind::table_wise;
        out.push_back(PlacedShard{sh, costs.column_block(t, blocks[i])});
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

OptionSchema table_column_wise_planner_options() {
  return planner_schema({table_cost_option()}, 0.0);
}

std::unique_ptr<Planner> make_table_column_wise_planner(const PlannerOptions& options) {
  return std::make_unique<TableColumnWisePlanner>(table_cost_of(options),
                                                  options.number("headroom"));
}

}  // namespace shardsim
