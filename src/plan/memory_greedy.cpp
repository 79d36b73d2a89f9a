// Memory-greedy placement, OPER §6.4's MG baseline: "only focusing on memory balance which
// places the equal size of EMTs on each GPU for model parallelism". The tables, in index order,
// are laid end to end as one sequence of rows and cut into N pieces of equal bytes (weights +
// optimizer state, OPER Eq. 1's footprint); GPU g gets the g-th piece, so a table that straddles
// a cut is split by row ids. Access frequencies are ignored, as in the paper. Memory per GPU
// then differs only by a row and by the activations of the pieces it serves; a GPU over
// capacity is a DoesNotFitError. O(T + N).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/storage_tiers.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace {

class MemoryGreedyPlanner final : public Planner {
 public:
  MemoryGreedyPlanner(double headroom, StorageTierOptions tiers)
      : headroom_(headroom), tiers_(tiers) {}
  std::string name() const override { return "memory_greedy"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto& tables = ctx.model.tables;
    const int n = ctx.cluster.num_gpus();
    // Tables that leave HBM when the model does not fit (plan/storage_tiers.hpp); the pieces
    // are then cut by the bytes each row keeps in HBM.
    const std::vector<ShardStorage> storage = choose_table_storage(ctx, headroom_, tiers_);
    std::vector<double> row_bytes(tables.size());
    double total = 0;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      Shard whole = whole_table_shard(t, tables[t].rows, tables[t].dim);
      whole.storage = storage[t];
      row_bytes[t] = shard_hbm_stored_bytes(whole, ctx.model, ctx.workload.mode) /
                     static_cast<double>(tables[t].rows);
      total += row_bytes[t] * static_cast<double>(tables[t].rows);
    }
    const double per_gpu = total / n;
    MemoryBudget budget(ctx, headroom_);
    Plan plan;
    plan.planner = name();
    double start = 0;  // bytes before this table in the sequence
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const auto rows = tables[t].rows;
      const double size = row_bytes[t] * static_cast<double>(rows);
      // Row at sequence offset x (clamped to the table), rounding cuts to the nearest row.
      auto row_at = [&](double x) {
        const double r = std::round((x - start) / row_bytes[t]);
        return static_cast<std::uint64_t>(std::clamp(r, 0.0, static_cast<double>(rows)));
      };
      const int first = std::min(n - 1, static_cast<int>(std::floor(start / per_gpu)));
      std::vector<Shard> pieces;
      for (int g = first; g < n; ++g) {
        const std::uint64_t b = g == first ? 0 : row_at(g * per_gpu);
        const std::uint64_t e = g == n - 1 ? rows : row_at((g + 1) * per_gpu);
        if (e > b) {
          pieces.push_back(Shard{t,
                                 {b, e},
                                 RowSpace::row_id,
                                 {0, tables[t].dim},
                                 g,
                                 0,
                                 ShardKind::row_wise,
                                 storage[t]});
        }
        if (e >= rows) break;
      }
      for (Shard& sh : pieces) {
        if (pieces.size() == 1) sh.kind = ShardKind::table_wise;
        budget.add_or_fail(sh.gpu, budget.shard_bytes(sh, n), [&] {
          return fmt::format("memory_greedy: table '{}' rows [{}, {})", tables[t].name,
                             sh.rows.begin, sh.rows.end);
        });
        plan.shards.push_back(sh);
      }
      start += size;
    }
    return plan;
  }

 private:
  double headroom_;
  StorageTierOptions tiers_;
};

}  // namespace

OptionSchema memory_greedy_planner_options() {
  return planner_schema(storage_tier_option_specs(), 0.0);
}

std::unique_ptr<Planner> make_memory_greedy_planner(const PlannerOptions& options) {
  return std::make_unique<MemoryGreedyPlanner>(options.number("headroom"),
                                               storage_tier_options_of(options));
}

}  // namespace shardsim
