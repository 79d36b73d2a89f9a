// Table-wise placement: whole tables to GPUs, largest first, each to the least-loaded GPU that
// still has room (Neo §4.1's greedy; cost functions of NeuroShard App. E).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/planners.hpp"

namespace shardsim {

namespace {

enum class TableCost { lookup, size, dim, size_lookup };

// NeuroShard App. E cost functions: size = rows x dim, dim, lookup = dim x pooling,
// size_lookup = dim x pooling x log10(rows).
double table_cost(const EmbeddingTable& t, TableCost c) {
  const double pooling = t.pooling.expected();
  switch (c) {
    case TableCost::size:
      return static_cast<double>(t.rows) * t.dim;
    case TableCost::dim:
      return t.dim;
    case TableCost::lookup:
      return t.dim * pooling;
    case TableCost::size_lookup:
      return t.dim * pooling * std::log10(std::max<double>(10.0, static_cast<double>(t.rows)));
  }
  return 0;
}

class TableWisePlanner final : public Planner {
 public:
  explicit TableWisePlanner(TableCost cost) : cost_(cost) {}
  std::string name() const override { return "table_wise"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    const auto& tables = ctx.model.tables;
    std::vector<std::size_t> order(tables.size());
    std::iota(order.begin(), order.end(), 0);
    // Largest cost first; ties by size then index, so the result is deterministic.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double ca = table_cost(tables[a], cost_), cb = table_cost(tables[b], cost_);
      if (ca != cb) return ca > cb;
      return tables[a].rows * tables[a].dim > tables[b].rows * tables[b].dim;
    });

    const double capacity = ctx.cluster.gpu().hbm_capacity_bytes;
    const double base = base_gpu_memory(ctx.cluster, ctx.model, ctx.workload).total_bytes();
    std::vector<double> load(n, 0.0), used(n, base);
    const double served_samples = static_cast<double>(n) * ctx.workload.batch_per_gpu;

    Plan plan;
    plan.planner = name();
    for (std::size_t t : order) {
      Shard sh;
      sh.table = t;
      sh.rows = {0, tables[t].rows};
      sh.cols = {0, tables[t].dim};
      sh.kind = ShardKind::table_wise;
      const double bytes = shard_weight_bytes(sh, ctx.model) +
                           shard_optimizer_bytes(sh, ctx.model, ctx.workload.mode) +
                           shard_activation_bytes(sh, ctx.model, ctx.workload.mode, served_samples,
                                                  tables[t].pooling.expected());
      int best = -1;
      for (int g = 0; g < n; ++g) {
        if (used[g] + bytes > capacity) continue;
        if (best < 0 || load[g] < load[best]) best = g;
      }
      if (best < 0) {
        const int roomiest =
            static_cast<int>(std::min_element(used.begin(), used.end()) - used.begin());
        throw DoesNotFitError(
            roomiest, used[roomiest] + bytes, capacity,
            fmt::format("table_wise cannot place table '{}' ({:.3f} GB with optimizer state and "
                        "activations) on any GPU; try row_wise or more GPUs",
                        tables[t].name, bytes / 1e9));
      }
      sh.gpu = best;
      load[best] += table_cost(tables[t], cost_);
      used[best] += bytes;
      plan.shards.push_back(sh);
    }
    return plan;
  }

 private:
  TableCost cost_;
};

}  // namespace

std::unique_ptr<Planner> make_table_wise_planner(const YamlValue& options) {
  TableCost cost = TableCost::lookup;
  if (!options.is_null()) {
    options.expect_keys({"cost"});
    if (auto c = options.find("cost")) {
      const std::string s = c->as_choice({"lookup", "size", "dim", "size_lookup"});
      cost = s == "size"          ? TableCost::size
             : s == "dim"         ? TableCost::dim
             : s == "size_lookup" ? TableCost::size_lookup
                                  : TableCost::lookup;
    }
  }
  return std::make_unique<TableWisePlanner>(cost);
}

}  // namespace shardsim
