// Row-wise placement (Neo §4.1): every table split into contiguous row ranges, one per GPU, the
// first range on GPU 0. Two ways to cut (option `split`):
//   even: equal row-id ranges (Neo); balanced in accesses only when hot rows are scattered
//         (workload.trace.layout: scattered);
//   rank: ranges of popularity ranks (RowSpace::rank), cut so each GPU gets the same share of
//         (accesses + rows) / 2 (splits.hpp): balanced in accesses whatever the layout, at the
//         price of uneven row counts (up to 2x the mean).
// Tables with fewer rows than GPUs get one row on each of the first GPUs.
#include <fmt/format.h>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/splits.hpp"

namespace shardsim {

namespace {

class RowWisePlanner final : public Planner {
 public:
  RowWisePlanner(bool by_rank, double headroom) : by_rank_(by_rank), headroom_(headroom) {}
  std::string name() const override { return "row_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    MemoryBudget budget(ctx, headroom_);
    Plan plan;
    plan.planner = name();
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      const std::vector<RowRange> ranges =
          by_rank_ ? rank_balanced_ranges(ctx.trace.profile(t), static_cast<std::uint64_t>(n))
                   : even_row_ranges(table.rows, static_cast<std::uint64_t>(n));
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        Shard sh;
        sh.table = t;
        sh.rows = ranges[i];
        sh.row_space = by_rank_ ? RowSpace::rank : RowSpace::row_id;
        sh.cols = {0, table.dim};
        sh.gpu = static_cast<int>(i);
        sh.kind = ShardKind::row_wise;
        budget.add_or_fail(sh.gpu, budget.shard_bytes(sh, n), [&] {
          return fmt::format("row_wise: table '{}' {} [{}, {})", table.name,
                             by_rank_ ? "ranks" : "rows", sh.rows.begin, sh.rows.end);
        });
        plan.shards.push_back(sh);
      }
    }
    return plan;
  }

 private:
  bool by_rank_;
  double headroom_;
};

}  // namespace

OptionSchema row_wise_planner_options() {
  return planner_schema({OptionSpec::choice("split", {"even", "rank"}, "even",
                                            "equal row-id ranges, or popularity-rank ranges")},
                        0.0);
}

std::unique_ptr<Planner> make_row_wise_planner(const PlannerOptions& options) {
  const bool by_rank = options.text("split") == "rank";
  return std::make_unique<RowWisePlanner>(by_rank, options.number("headroom"));
}

}  // namespace shardsim
