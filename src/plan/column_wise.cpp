// Column-wise placement (Neo §4.1, Fig. 5c): every table split along its embedding dimension
// into column blocks that are placed as tables of their own, largest cost first, each on the
// least-loaded GPU that fits (the greedy of table_wise over the blocks). Every block receives
// all of the table's indices (column-wise sharding duplicates the input indices).
// Block bounds are multiples of 4 columns (splits.hpp). Inside two_d with `sync_aware`, each
// block's replica sync is balanced as table_wise balances it (pack_with_replica_sync): added to
// a cost in seconds, kept beside a heuristic cost as a second load.
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/peer_sync_pricing.hpp"
#include "plan/planners.hpp"
#include "plan/splits.hpp"
#include "plan/table_cost.hpp"

namespace shardsim {

namespace {

class ColumnWisePlanner final : public Planner {
 public:
  ColumnWisePlanner(TableCost cost, std::uint32_t cols_per_shard, double headroom)
      : cost_(cost), cols_per_shard_(cols_per_shard), headroom_(headroom) {}
  std::string name() const override { return "column_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    MemoryBudget budget(ctx, headroom_);
    std::vector<PackItem> items;
    std::vector<double> sync_s;  // per block: its replica sync under a sync-aware two_d
    const TableCosts costs(ctx, cost_);
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      const std::vector<ColRange> blocks =
          cols_per_shard_ > 0 ? fixed_column_blocks(table.dim, cols_per_shard_)
                              : column_blocks(table.dim, static_cast<std::uint32_t>(n));
      for (const ColRange& c : blocks) {
        Shard sh;
        sh.table = t;
        sh.rows = {0, table.rows};
        sh.cols = c;
        sh.kind = blocks.size() > 1 ? ShardKind::column_wise : ShardKind::table_wise;
        items.push_back(PackItem{
            sh, costs.column_block(t, c), static_cast<double>(n),
            fmt::format("column_wise: table '{}' columns [{}, {})", table.name, c.begin, c.end)});
        sync_s.push_back(peer_sync_time_s(ctx, t, sh.rows, RowSpace::row_id, c.size()));
      }
    }
    Plan plan;
    plan.planner = name();
    pack_with_replica_sync(std::move(items), sync_s, cost_ == TableCost::estimated, budget, plan);
    return plan;
  }

 private:
  TableCost cost_;
  std::uint32_t cols_per_shard_;  // 0: as many blocks as GPUs (at least 4 columns each)
  double headroom_;
};

}  // namespace

OptionSchema column_wise_planner_options() {
  return planner_schema({table_cost_option(),
                         OptionSpec::integer("cols_per_shard", OptionKind::positive_int,
                                             std::nullopt, "columns per block, a multiple of 4")},
                        0.0);
}

std::unique_ptr<Planner> make_column_wise_planner(const PlannerOptions& options) {
  std::uint32_t cols = 0;
  if (options.has("cols_per_shard")) {
    const std::uint64_t v = options.integer("cols_per_shard");
    if (v % kColumnAlignment != 0 || v > (1u << 20)) {
      throw options.error(
          "cols_per_shard",
          fmt::format("cols_per_shard must be a multiple of {} (found {})", kColumnAlignment, v),
          "embedding kernels load rows in 4-column vectors; try 16, 32 or 64");
    }
    cols = static_cast<std::uint32_t>(v);
  }
  return std::make_unique<ColumnWisePlanner>(table_cost_of(options), cols,
                                             options.number("headroom"));
}

}  // namespace shardsim
