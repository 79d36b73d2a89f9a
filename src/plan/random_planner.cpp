// Random placement (NeuroShard §4 / App. E's "random sharding" baseline): every whole table to a
// GPU drawn uniformly among those with room for it, tables in index order. Seeded: the same
// seed gives the same plan.
#include <fmt/format.h>

#include <optional>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "shardsim/core/rng.hpp"

namespace shardsim {

namespace {

// Purpose key of the planner's random stream (stream_seed).
constexpr std::uint64_t kRandomPlannerStream = 0x52414e44504c4eULL;  // "RANDPLN"

class RandomPlanner final : public Planner {
 public:
  RandomPlanner(std::optional<std::uint64_t> seed, double headroom)
      : seed_(seed), headroom_(headroom) {}
  std::string name() const override { return "random"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    MemoryBudget budget(ctx, headroom_);
    Rng rng(stream_seed(seed_.value_or(ctx.workload.seed), {kRandomPlannerStream}));
    Plan plan;
    plan.planner = name();
    std::vector<int> fitting;
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const auto& table = ctx.model.tables[t];
      Shard sh = whole_table_shard(t, table.rows, table.dim);
      const double bytes = budget.shard_bytes(sh, n);
      // A first draw over all GPUs; if it has no room, a draw among those that have. Either
      // way every GPU with room is equally likely.
      int g = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
      if (!budget.fits(g, bytes)) {
        fitting.clear();
        for (int k = 0; k < n; ++k) {
          if (budget.fits(k, bytes)) fitting.push_back(k);
        }
        if (fitting.empty()) budget.fail(fmt::format("random: table '{}'", table.name), bytes);
        g = fitting[rng.below(fitting.size())];
      }
      sh.gpu = g;
      budget.add(g, bytes);
      plan.shards.push_back(sh);
    }
    return plan;
  }

 private:
  std::optional<std::uint64_t> seed_;
  double headroom_;
};

}  // namespace

OptionSchema random_planner_options() {
  return planner_schema({OptionSpec::integer("seed", OptionKind::nonnegative_int, std::nullopt,
                                             "the draw's seed (default: the scenario's)")},
                        0.0);
}

std::unique_ptr<Planner> make_random_planner(const PlannerOptions& options) {
  std::optional<std::uint64_t> seed;
  if (options.has("seed")) seed = options.integer("seed");
  return std::make_unique<RandomPlanner>(seed, options.number("headroom"));
}

}  // namespace shardsim
