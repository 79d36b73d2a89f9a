// Round-robin placement: table t (in index order) to the next GPU in cyclic order, skipping
// GPUs without room for it. OPER §6.4's "Table-wise" baseline: "the GPUs will have roughly the
// same number of EMTs".
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/planners.hpp"

namespace shardsim {

namespace {

class RoundRobinPlanner final : public Planner {
 public:
  explicit RoundRobinPlanner(double headroom) : headroom_(headroom) {}
  std::string name() const override { return "round_robin"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    MemoryBudget budget(ctx, headroom_);
    Plan plan;
    plan.planner = name();
    int next = 0;
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      Shard sh = whole_table_shard(t, table.rows, table.dim);
      const double bytes = budget.shard_bytes(sh, n);
      int g = -1;
      for (int k = 0; k < n && g < 0; ++k) {
        if (budget.fits((next + k) % n, bytes)) g = (next + k) % n;
      }
      if (g < 0) budget.fail(fmt::format("round_robin: table '{}'", table.name), bytes);
      sh.gpu = g;
      budget.add(g, bytes);
      plan.shards.push_back(sh);
      next = (g + 1) % n;
    }
    return plan;
  }

 private:
  double headroom_;
};

}  // namespace

OptionSchema round_robin_planner_options() {
  return planner_schema({}, 0.0);
}

std::unique_ptr<Planner> make_round_robin_planner(const PlannerOptions& options) {
  return std::make_unique<RoundRobinPlanner>(options.number("headroom"));
}

}  // namespace shardsim
