// Table-wise placement: whole tables to GPUs, largest cost first, each to the least-loaded GPU
// that still has room. Neo §4.1's greedy heuristic with the cost functions of NeuroShard App. E
// (table_cost.hpp); ties to the lower GPU id.
#include <fmt/format.h>

#include "shardsim/plan/packing.hpp"
#include "shardsim/plan/planners.hpp"
#include "shardsim/plan/table_cost.hpp"

namespace shardsim {

namespace {

class TableWisePlanner final : public Planner {
 public:
  TableWisePlanner(TableCost cost, double headroom) : cost_(cost), headroom_(headroom) {}
  std::string name() const override { return "table_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    MemoryBudget budget(ctx, headroom_);
    LoadTracker loads(n);
    std::vector<PackItem> items;
    const TableCosts costs(ctx, cost_);
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      const Shard sh = whole_table_shard(t, table.rows, table.dim);
      items.push_back(PackItem{sh, costs.table(t), static_cast<double>(n),
                               fmt::format("table_wise: table '{}'", table.name)});
    }
    sort_largest_first(items, budget);
    Plan plan;
    plan.planner = name();
    pack_least_loaded(items, budget, loads, plan);
    return plan;
  }

 private:
  TableCost cost_;
  double headroom_;
};

}  // namespace

std::unique_ptr<Planner> make_table_wise_planner(const YamlValue& options) {
  const PlannerOptions opts(options, {"cost"});
  return std::make_unique<TableWisePlanner>(read_table_cost(opts, TableCost::lookup),
                                            opts.headroom(0));
}

}  // namespace shardsim
