// Data-parallel placement: every table replicated on every GPU (Neo §4.1). Lookups are local;
// the gradients of the replicas are synchronised by AllReduce in the backward pass.
#include "shardsim/plan/planners.hpp"

namespace shardsim {

namespace {

class DataParallelPlanner final : public Planner {
 public:
  std::string name() const override { return "data_parallel"; }

  Plan plan(const PlanningContext& ctx) const override {
    Plan plan;
    plan.planner = name();
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      for (int g = 0; g < ctx.cluster.num_gpus(); ++g) {
        Shard sh;
        sh.table = t;
        sh.rows = {0, table.rows};
        sh.cols = {0, table.dim};
        sh.gpu = g;
        sh.replica = g;
        sh.kind = ShardKind::data_parallel;
        plan.shards.push_back(sh);
      }
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<Planner> make_data_parallel_planner(const YamlValue& options) {
  expect_no_options(options);
  return std::make_unique<DataParallelPlanner>();
}

}  // namespace shardsim
