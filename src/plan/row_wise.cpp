// Row-wise placement: every table split into even contiguous row-id ranges, one per GPU
// (Neo §4.1). Tables with fewer rows than GPUs get one row per GPU on the first GPUs.
#include <algorithm>

#include "shardsim/plan/planners.hpp"

namespace shardsim {

namespace {

class RowWisePlanner final : public Planner {
 public:
  std::string name() const override { return "row_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto n = static_cast<std::uint64_t>(ctx.cluster.num_gpus());
    Plan plan;
    plan.planner = name();
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      const std::uint64_t parts = std::min<std::uint64_t>(n, table.rows);
      const std::uint64_t base = table.rows / parts, extra = table.rows % parts;
      std::uint64_t begin = 0;
      for (std::uint64_t g = 0; g < parts; ++g) {
        const std::uint64_t size = base + (g < extra ? 1 : 0);
        Shard sh;
        sh.table = t;
        sh.rows = {begin, begin + size};
        sh.cols = {0, table.dim};
        sh.gpu = static_cast<int>(g);
        sh.kind = ShardKind::row_wise;
        plan.shards.push_back(sh);
        begin += size;
      }
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<Planner> make_row_wise_planner(const YamlValue& options) {
  expect_no_options(options);
  return std::make_unique<RowWisePlanner>();
}

}  // namespace shardsim
