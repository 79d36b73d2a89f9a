// Memory tiers before placement (plan/storage_tiers.hpp; docs/planners.md "Memory tiers").
#include "plan/storage_tiers.hpp"

#include <algorithm>
#include <numeric>

#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace {
// The share of the cluster's free HBM the estimate may fill: the packer balances load, not
// bytes, and needs room to do so. A documented choice (docs/planners.md), not a measured value.
constexpr double kFillFraction = 0.9;
}  // namespace

std::vector<OptionSpec> storage_tier_option_specs() {
  const StorageTierOptions d;
  // cache_fraction strictly inside (0, 1): 1 would be an HBM shard, 0 a uvm one.
  return {OptionSpec::choice("host_tables", {"auto", "never"}, "auto",
                             "whether the planner may move tables to host memory"),
          OptionSpec::number("cache_fraction", 0.001, 0.999, d.cache_fraction,
                             "HBM cache of a table in host memory, as a fraction of its rows"),
          OptionSpec::choice("cache_policy", {"lru", "lfu"}, to_string(d.policy),
                             "the cache's policy")};
}

StorageTierOptions storage_tier_options_of(const PlannerOptions& options) {
  StorageTierOptions o;
  o.allow_host = options.text("host_tables") == "auto";
  o.cache_fraction = options.number("cache_fraction");
  o.policy = *parse_cache_policy(options.text("cache_policy"));
  return o;
}

std::vector<ShardStorage> choose_table_storage(const PlanningContext& ctx, double headroom,
                                               const StorageTierOptions& options) {
  const auto& tables = ctx.model.tables;
  std::vector<ShardStorage> storage(tables.size());
  if (!options.allow_host || !ctx.cluster.preset().host.present()) return storage;
  const Mode mode = ctx.workload.mode;
  const int n = ctx.cluster.num_gpus();
  const double global_samples = static_cast<double>(n) * ctx.workload.batch_per_gpu;
  const double base = base_gpu_memory(ctx.cluster, ctx.model, ctx.workload).total_bytes();
  double free_bytes =
      n * std::max(0.0, ctx.cluster.gpu().hbm_capacity_bytes * (1.0 - headroom) - base);
  if (ctx.bottom_mlp_gpu >= 0) {  // the bottom MLP's global batch on one GPU, less on the others
    for (double b : bottom_mlp_memory_delta_bytes(ctx.bottom_mlp_gpu, n, ctx.model, ctx.workload)) {
      free_bytes -= b;
    }
    free_bytes = std::max(0.0, free_bytes);
  }
  const double budget = kFillFraction * free_bytes;

  ShardStorage cached;
  cached.kind = StorageKind::uvm_caching;
  cached.cache_fraction = options.cache_fraction;
  cached.policy = options.policy;

  std::vector<double> hbm(tables.size()), saving(tables.size()), density(tables.size());
  double need = 0;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    Shard whole = whole_table_shard(t, tables[t].rows, tables[t].dim);
    const double pooling = tables[t].pooling.expected();
    const double activations =
        shard_activation_bytes(whole, ctx.model, mode, global_samples, pooling);
    const double stored = shard_hbm_stored_bytes(whole, ctx.model, mode);
    whole.storage = cached;
    saving[t] = stored - shard_hbm_stored_bytes(whole, ctx.model, mode);
    hbm[t] = stored + activations;
    density[t] = stored > 0 ? pooling / stored : 0.0;
    need += hbm[t];
  }
  if (need <= budget) return storage;
  std::vector<std::size_t> order(tables.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return density[a] < density[b]; });
  for (std::size_t t : order) {
    if (need <= budget) break;
    if (!(saving[t] > 0)) continue;  // a table whose cache is no smaller than itself
    storage[t] = cached;
    need -= saving[t];
  }
  return storage;
}

}  // namespace shardsim
