// The `oper` planner: OPER's optimality-guided fine-grained placement (OPER §4), over rank
// ranges of the access profiles:
//   1. partition every table by access and footprint (§4.1, partitioning.hpp);
//   2. balanced model parallelism with threshold back-off (§4.2, model_parallel.hpp);
//   3. data parallelism within the extra-memory budget: Algorithm 1 for inference, Eq. 4-5 for
//      training (§4.3, data_parallel.hpp);
//   4. the Plan: one shard per partition (rank space, fine_grained; neighbouring partitions of a
//      table on one GPU merged), a replica per copy, and a FetchOverride wherever Algorithm 1's
//      fetch path differs from the default serving rule. Lookups communicate one-sided (§5).
// docs/planners.md, "oper", lists every choice the paper left open.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "plan/oper/data_parallel.hpp"
#include "plan/oper/model_parallel.hpp"
#include "plan/oper/oper_planner.hpp"
#include "plan/oper/partitioning.hpp"
#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace oper {

namespace {

class OperPlanner final : public Planner {
 public:
  explicit OperPlanner(OperOptions o) : o_(o) {}
  std::string name() const override { return "oper"; }
  Plan plan(const PlanningContext& ctx) const override { return oper_plan(ctx, o_); }

 private:
  OperOptions o_;
};

// The replica serving `gpu` by the default rule of plan/serving.hpp: itself if it holds one,
// else the nearest holder (lowest level, then lowest id).
int default_server(const std::vector<int>& holders, int gpu, const CostMatrix& L) {
  // Holders ascend: a holder finds itself by binary search (O(log N) for a partition copied to
  // every GPU, instead of a scan), the others scan for the nearest, ties to the lowest id.
  if (std::binary_search(holders.begin(), holders.end(), gpu)) return gpu;
  int best = -1;
  for (int h : holders) {
    if (best < 0 || L.level(gpu, h) < L.level(gpu, best)) best = h;
  }
  return best;
}

}  // namespace

Plan oper_plan(const PlanningContext& ctx, const OperOptions& o) {
  return oper_plan_detailed(ctx, o).plan;
}

namespace {

// §4.3: the extra-memory budget of each GPU, capped by its free HBM (less, for a pooled plan,
// the activation buffers replicas might add: every table's, serving every GPU).
std::vector<double> replica_memory(const PlanningContext& ctx, const OperOptions& o,
                                   const BackoffResult& mp, const PartitionTotals& totals,
                                   double served) {
  const MemoryBudget& placed = *mp.budget;
  double reserve = 0;
  if (served > 0) {
    for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
      const Shard whole{t, {0, 1}, RowSpace::rank,          {0, ctx.model.tables[t].dim},
                        0, 0,      ShardKind::fine_grained, {}};
      reserve += placed.shard_bytes(whole, served) -
                 (shard_weight_bytes(whole, ctx.model) +
                  shard_optimizer_bytes(whole, ctx.model, ctx.workload.mode));
    }
  }
  const int n = ctx.cluster.num_gpus();
  std::vector<double> free(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) free[g] = std::max(0.0, placed.free_bytes(g) - reserve);
  return available_memory(mp.placement.memory_bytes, totals.bytes, o.extra_memory_ratio, free);
}

// The replicas of partition `p` (replica 0 on the owner, then ascending GPU ids), and a fetch
// override for each GPU that the placement serves from another replica than the default one.
void emit_replicas(const Partition& part, std::size_t p, const Placement& placement,
                   const std::vector<int>& holders, const ColRange& cols, const CostMatrix& L,
                   double served, MemoryBudget& placed, Plan& plan) {
  const int owner = placement.owner[p];
  const std::size_t first = plan.shards.size();
  std::vector<int> ordered = {owner};
  for (int h : holders) {
    if (h != owner) ordered.push_back(h);
  }
  for (std::size_t r = 0; r < ordered.size(); ++r) {
    const Shard s{part.table, part.ranks,          RowSpace::rank,          cols,
                  ordered[r], static_cast<int>(r), ShardKind::fine_grained, {}};
    if (r > 0) placed.place(s.gpu, s, served);
    plan.shards.push_back(s);
  }
  if (placement.on_every_gpu(p)) return;  // every GPU serves itself: the default rule
  for (int g = 0; g < L.num_gpus(); ++g) {
    const int src = placement.source(p, g);
    if (src == default_server(holders, g, L)) continue;
    const auto it = std::find(ordered.begin(), ordered.end(), src);
    plan.fetch_overrides.push_back(
        FetchOverride{first + static_cast<std::size_t>(it - ordered.begin()), g});
  }
}

// The plan's shards, table by table in rank order: consecutive partitions held by one owner
// alone merge into one shard. Returns how many partitions were replicated.
int emit_shards(const PlanningContext& ctx, const std::vector<Partition>& parts,
                const Placement& placement, const CostMatrix& L, double served,
                MemoryBudget& placed, Plan& plan) {
  const int n = ctx.cluster.num_gpus();
  std::vector<std::size_t> order(parts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return parts[a].table != parts[b].table ? parts[a].table < parts[b].table
                                            : parts[a].ranks.begin < parts[b].ranks.begin;
  });
  // Reserved up front: a partition copied to every GPU is n shards, and growing a vector of
  // millions of shards by doubling copies them all again (16,384 GPUs: 17 M shards, 1.2 GB).
  // A copied partition that continues the previous one merges with it below, so it adds none:
  // counting n for each would reserve (prefix partitions) x n shards.
  std::size_t upper = plan.shards.size();
  const Partition* last_copied = nullptr;
  for (std::size_t p : order) {
    const Partition& part = parts[p];
    if (placement.on_every_gpu(p)) {
      const bool merges = last_copied != nullptr && last_copied->table == part.table &&
                          last_copied->ranks.end == part.ranks.begin;
      if (!merges) upper += static_cast<std::size_t>(n);
      last_copied = &part;
      continue;
    }
    last_copied = nullptr;
    upper += placement.fetch[p].empty() ? 1 : placement.holders(p, n).size();
  }
  plan.shards.reserve(upper);
  bool last_single = false;      // the last shard is a partition held by its owner alone
  bool last_everywhere = false;  // the last n shards are a partition held by every GPU
  int replicated = 0;
  for (std::size_t p : order) {
    const Partition& part = parts[p];
    const std::vector<int> holders = placement.holders(p, n);
    const int owner = placement.owner[p];
    const ColRange cols{0, ctx.model.tables[part.table].dim};
    if (holders.size() == 1) {
      last_everywhere = false;
      if (last_single) {
        Shard& prev = plan.shards.back();
        if (prev.table == part.table && prev.gpu == owner && prev.rows.end == part.ranks.begin) {
          prev.rows.end = part.ranks.end;
          continue;
        }
      }
      plan.shards.push_back(Shard{
          part.table, part.ranks, RowSpace::rank, cols, owner, 0, ShardKind::fine_grained, {}});
      last_single = true;
      continue;
    }
    last_single = false;
    ++replicated;
    const bool everywhere = static_cast<int>(holders.size()) == n;
    // Consecutive ranks of one table copied to every GPU (the training rule's hot prefix, cut
    // into many partitions by a small threshold) are one range on each GPU, which serves itself
    // from it: their n copies merge, as the single-holder partitions above do. The copies'
    // memory is counted all the same.
    if (everywhere && last_everywhere) {
      const auto first = plan.shards.end() - n;
      if (first->table == part.table && first->rows.end == part.ranks.begin) {
        // Without activation buffers to share (served == 0: one-sided), every copy adds the
        // same bytes: computed once, not once per GPU (place() per copy is 170 M calls at 4096
        // GPUs, ~2 s of the hybrid-4096 run; docs/performance.md).
        const Shard copy{part.table, part.ranks, RowSpace::rank,          cols,
                         owner,      1,          ShardKind::fine_grained, {}};
        const double copy_bytes = served > 0 ? 0.0 : placed.shard_bytes(copy, served);
        for (auto it = first; it != plan.shards.end(); ++it) {
          it->rows.end = part.ranks.end;
          if (it->gpu == owner) continue;
          if (served > 0) {
            placed.place(it->gpu,
                         Shard{part.table,
                               part.ranks,
                               RowSpace::rank,
                               cols,
                               it->gpu,
                               1,
                               ShardKind::fine_grained,
                               {}},
                         served);
          } else {
            placed.add(it->gpu, copy_bytes);
          }
        }
        continue;
      }
    }
    emit_replicas(part, p, placement, holders, cols, L, served, placed, plan);
    last_everywhere = everywhere;
  }
  // A table held whole reads as table-wise, or as data-parallel when it has copies.
  std::vector<bool> copied(ctx.model.tables.size(), false);
  for (const Shard& s : plan.shards) copied[s.table] = copied[s.table] || s.replica > 0;
  for (Shard& s : plan.shards) {
    if (s.rows.begin != 0 || s.rows.end != ctx.model.tables[s.table].rows) continue;
    s.kind = copied[s.table] ? ShardKind::data_parallel : ShardKind::table_wise;
  }
  return replicated;
}

}  // namespace

OperResult oper_plan_detailed(const PlanningContext& ctx, const OperOptions& o) {
  const int n = ctx.cluster.num_gpus();
  const Mode mode = o.mode.value_or(ctx.workload.mode);
  const CostMatrix L(ctx.cluster, ctx.cost_params());
  // A one-sided plan keeps no activation buffers per shard (plan/memory.hpp).
  const double served = o.communication == LookupComm::one_sided ? 0.0 : n;
  MemoryBudget budget(ctx, o.headroom);

  // §4.1-4.2.
  BackoffResult mp =
      model_parallel_with_backoff(ctx, L, o.threshold, o.balance_target, budget, served);
  MemoryBudget& placed = *mp.budget;

  // §4.3.
  const PartitionTotals totals = partition_totals(ctx);
  const std::vector<double> available = replica_memory(ctx, o, mp, totals, served);
  std::vector<Partition> parts;
  Placement placement;
  if (mode == Mode::inference) {
    InferenceDataParallel dp =
        inference_data_parallel(mp.partitions, mp.placement.owner, L, available);
    parts = std::move(mp.partitions);
    placement = std::move(dp.placement);
    log_debug("oper: Algorithm 1 made {} duplications", dp.steps.size());
  } else {
    const double sync_bytes = o.extra_memory_ratio * totals.bytes / n;
    TrainingDataParallel dp = training_data_parallel(ctx, mp.partitions, mp.placement.owner, L,
                                                     available, sync_bytes, o.duplicate);
    parts = std::move(dp.partitions);
    placement = std::move(dp.placement);
  }

  Plan plan;
  plan.planner = "oper";
  plan.lookup_comm = o.communication;
  plan.replica_sync = ReplicaSync::local_aggregated;
  const int replicated = emit_shards(ctx, parts, placement, L, served, placed, plan);
  log_debug(
      "oper: {} mode, threshold {:g} ({} attempt(s)), {} partitions, {} replicated, "
      "{} shards, {} fetch overrides",
      to_string(mode), mp.threshold, mp.attempts, parts.size(), replicated, plan.shards.size(),
      plan.fetch_overrides.size());
  OperResult out;
  out.plan = std::move(plan);
  out.partitions = std::move(parts);
  out.placement = std::move(placement);
  out.threshold = mp.threshold;
  out.attempts = mp.attempts;
  out.balance_reached = mp.reached;
  return out;
}

}  // namespace oper

// The partition threshold of `options` when it is valid (the planner rejects the rest), else the
// default: about 2/threshold + T partitions (docs/planners.md, "oper"), each possibly copied to
// every GPU in training (Eq. 4-5).
PlanShapeBound oper_shape_bound(const PlanShapeInput& in) {
  double threshold = in.options.number("threshold");
  if (!(threshold > 0)) threshold = oper::OperOptions{}.threshold;  // 0: the planner refuses it
  const double partitions = 2.0 / threshold + in.tables;  // one table may hold most of them
  return {partitions * in.gpus, partitions, true};
}

OptionSchema oper_planner_options() {
  const oper::OperOptions d;
  return planner_schema(
      {OptionSpec::number("threshold", 0.0, 1.0, d.threshold,
                          "the largest share of lookups and footprint one partition holds (> 0)"),
       OptionSpec::number("extra_memory_ratio", 0.0, 10.0, d.extra_memory_ratio,
                          "the share of the tables' footprint replicas may take"),
       OptionSpec::number("balance_target", 0.0, 1.0, d.balance_target,
                          "halve the threshold until the degree of balance reaches it"),
       OptionSpec::choice("mode", {"training", "inference"}, std::nullopt,
                          "which data parallelism (default: the workload's mode)"),
       OptionSpec::choice("duplicate", {"partitions", "hot_rows"}, "partitions",
                          "training: copy whole partitions or only their hot rows")},
      0.0);
}

std::unique_ptr<Planner> make_oper_planner(const PlannerOptions& options) {
  oper::OperOptions o;
  o.threshold = options.number("threshold");
  if (!(o.threshold > 0)) {
    throw options.error(
        "threshold", "the partitioning threshold must be above 0",
        "a fraction of the total access and footprint, e.g. 0.001 (0.1%, OPER §6.1)");
  }
  o.extra_memory_ratio = options.number("extra_memory_ratio");
  o.balance_target = options.number("balance_target");
  if (options.has("mode")) {
    o.mode = options.text("mode") == "inference" ? Mode::inference : Mode::training;
  }
  o.duplicate = options.text("duplicate") == "hot_rows" ? oper::DuplicationUnit::hot_rows
                                                        : oper::DuplicationUnit::partitions;
  o.headroom = options.number("headroom");
  o.communication = options.lookup_comm().value_or(LookupComm::one_sided);
  return std::make_unique<oper::OperPlanner>(o);
}

}  // namespace shardsim
