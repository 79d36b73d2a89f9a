// OPER §4.2: balanced model parallelism with threshold back-off.
#include "plan/oper/model_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "plan/oper/partitioning.hpp"
#include "shardsim/core/log.hpp"

namespace shardsim::oper {

double ModelParallel::balance() const {
  return std::min(degree_of_balance(lookup_s), degree_of_balance(memory_bytes));
}

ModelParallel balanced_model_parallel(const PlanningContext& ctx,
                                      std::span<const Partition> partitions, const CostMatrix& L,
                                      MemoryBudget& budget, double served_gpus) {
  const int n = L.num_gpus();
  ModelParallel mp;
  mp.owner.assign(partitions.size(), -1);
  LoadTracker lookups(n), memory(n);
  // Access-bounded first (largest access first), then memory-bounded (largest bytes first).
  std::vector<std::size_t> order(partitions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto key = [&](std::size_t p) {
    const Partition& x = partitions[p];
    return x.access_bound ? x.access : x.bytes;
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Partition& x = partitions[a];
    const Partition& y = partitions[b];
    if (x.access_bound != y.access_bound) return x.access_bound;
    if (key(a) != key(b)) return key(a) > key(b);
    if (x.table != y.table) return x.table < y.table;
    return x.ranks.begin < y.ranks.begin;
  });
  for (std::size_t p : order) {
    const Partition& part = partitions[p];
    const Shard shard{
        part.table, part.ranks, RowSpace::rank,          {0, ctx.model.tables[part.table].dim},
        0,          0,          ShardKind::fine_grained, {}};
    LoadTracker& by = part.access_bound ? lookups : memory;
    const int g = by.least_loaded_fitting(budget, shard, served_gpus);
    if (g < 0) {
      budget.fail(fmt::format("oper: table '{}' ranks [{}, {})", ctx.model.tables[part.table].name,
                              part.ranks.begin, part.ranks.end),
                  budget.shard_bytes(shard, served_gpus));
    }
    Shard placed = shard;
    placed.gpu = g;
    budget.place(g, placed, served_gpus);
    mp.owner[p] = g;
    // Eq. 2: all n GPUs fetch the partition from its owner (no replicas yet).
    lookups.add(g, part.access * n * L.row_s(g, g, part.row_bytes));
    memory.add(g, part.bytes);
  }
  mp.lookup_s = lookups.loads();
  mp.memory_bytes = memory.loads();
  return mp;
}

double lookup_balance_bound(const PlanningContext& ctx, const CostMatrix& L) {
  const int n = L.num_gpus();
  if (n < 2) return 1;
  // Per row size, the cheapest and the dearest local lookup over the GPUs (equal on a
  // homogeneous cluster), so that the bound holds wherever the rows go.
  std::map<double, std::pair<double, double>> local_s;
  double total = 0, hottest = 0;
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    const double bytes = row_fetch_bytes(ctx, t);
    auto [it, fresh] = local_s.try_emplace(bytes, std::numeric_limits<double>::infinity(), 0.0);
    if (fresh) {
      for (int g = 0; g < n; ++g) {
        const double r = L.row_s(g, g, bytes);
        it->second.first = std::min(it->second.first, r);
        it->second.second = std::max(it->second.second, r);
      }
    }
    const double access = ctx.workload.batch_per_gpu * ctx.model.tables[t].pooling.expected();
    total += access * n * it->second.second;
    const double hot_row = ctx.trace.profile(t).mass({0, 1}, RowSpace::rank);
    hottest = std::max(hottest, access * hot_row * n * it->second.first);
  }
  if (!(hottest > 0)) return 1;
  return std::clamp((total - hottest) / ((n - 1) * hottest), 0.0, 1.0);
}

BackoffResult model_parallel_with_backoff(const PlanningContext& ctx, const CostMatrix& L,
                                          double threshold, double balance_target,
                                          const MemoryBudget& budget, double served_gpus) {
  BackoffResult best;
  double best_balance = -1;
  double thr = threshold;
  // A target the hottest row already rules out (it is one partition whatever the threshold)
  // becomes that share of the bound (docs/planners.md, "oper": back-off).
  const double bound = lookup_balance_bound(ctx, L);
  if (bound < balance_target) {
    log_info(
        "oper: no partitioning can reach the balance target {:g}: the hottest row alone bounds "
        "the degree of balance of the lookup workload at {:.4f}; backing off to {:.4f} "
        "({:g} of the bound)",
        balance_target, bound, balance_target * bound, balance_target);
    balance_target *= bound;
  }
  // At thousands of GPUs each partitioning takes seconds (docs/performance.md).
  Progress progress("oper: partitionings of the threshold back-off",
                    static_cast<std::uint64_t>(kMaxBackoffs + 1));
  for (int attempt = 0; attempt <= kMaxBackoffs; ++attempt, thr /= 2) {
    progress.advance();
    std::vector<Partition> parts = partition_tables(ctx, thr);
    MemoryBudget fresh = budget;
    ModelParallel mp = balanced_model_parallel(ctx, parts, L, fresh, served_gpus);
    const double balance = mp.balance();
    log_debug("oper: threshold {:g}: {} partitions, balance {:.4f} (target {:g})", thr,
              parts.size(), balance, balance_target);
    const bool reached = balance >= balance_target;
    if (reached || balance > best_balance) {
      best_balance = balance;
      best.threshold = thr;
      best.reached = reached;
      best.partitions = std::move(parts);
      best.placement = std::move(mp);
      best.budget.emplace(std::move(fresh));
    }
    best.attempts = attempt + 1;
    if (reached) break;
  }
  progress.finish();
  if (!best.reached) {
    log_warn(
        "oper: balance target {:g} not reached after {} partitionings (threshold down to {:g}); "
        "keeping the most balanced one ({:.4f}, threshold {:g})",
        balance_target, best.attempts, thr * 2, best_balance, best.threshold);
  }
  return best;
}

}  // namespace shardsim::oper
