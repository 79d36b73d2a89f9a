// Data-parallel placement: every table replicated on every GPU (Neo §4.1). Lookups are local;
// the gradients of the replicas are synchronised by AllReduce in the backward pass. Each
// replica serves only its own GPU's batch (the serving rule of plan/serving.hpp).
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/planners.hpp"

namespace shardsim {

namespace {

class DataParallelPlanner final : public Planner {
 public:
  explicit DataParallelPlanner(double headroom) : headroom_(headroom) {}
  std::string name() const override { return "data_parallel"; }

  Plan plan(const PlanningContext& ctx) const override {
    MemoryBudget budget(ctx, headroom_);
    Plan plan;
    plan.planner = name();
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      for (int g = 0; g < ctx.cluster.num_gpus(); ++g) {
        Shard sh = whole_table_shard(t, table.rows, table.dim, ShardKind::data_parallel);
        sh.gpu = g;
        sh.replica = g;
        budget.add_or_fail(g, budget.shard_bytes(sh, 1), [&] {
          return fmt::format("data_parallel: the replica of table '{}'", table.name);
        });
        plan.shards.push_back(sh);
      }
    }
    return plan;
  }

 private:
  double headroom_;
};

}  // namespace

OptionSchema data_parallel_planner_options() {
  return planner_schema({}, 0.0);
}

std::unique_ptr<Planner> make_data_parallel_planner(const PlannerOptions& options) {
  return std::make_unique<DataParallelPlanner>(options.number("headroom"));
}

}  // namespace shardsim
