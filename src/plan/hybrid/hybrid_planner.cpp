// Hybrid placement in the spirit of TorchRec's planner (enumerate sharding options per table,
// estimate each with a cost model, propose one option per table, partition greedily with memory
// headroom), using this project's cost model. docs/planners.md says where it follows TorchRec
// and where it departs from it.
//
// 1. Candidates per table (those allowed by `schemes`):
//      table_wise      the whole table on one GPU;
//      column_wise     2, 4 or 8 column blocks (multiples of 4), each placed on its own;
//      table_row_wise  row ranges over the GPUs of one node (Neo §4.1's hierarchical scheme);
//      row_wise        row ranges over all GPUs (only for tables the others cannot balance or
//                      fit, since it costs one estimate per GPU);
//      data_parallel   a replica on every GPU (only for tables whose replica takes at most
//                      `dp_memory_fraction` of a GPU's free memory).
//    Row ranges are even row-id ranges under the scattered layout and rank ranges balanced by
//    access (splits.hpp) under the clustered one, where even row-id ranges would put every hot
//    row on the first GPU.
// 2. Each part of a candidate is costed with estimate_shard_cost (shard_estimate.hpp): expected
//    distinct rows from the access profile (skew), roofline forward and backward kernels, and the
//    pooled-embedding traffic at the GPU's own link bandwidths; a data-parallel candidate pays the
//    AllReduce of the table's gradient (allreduce_s, latency included) on every GPU. Each part
//    also carries the indices its peers send it (ShardCost::input_comm_s), kept apart.
// 3. Proposal: L = (Σ over tables of the cheapest candidate's total) / N is a lower bound on the
//    mean load. Per table, among candidates whose largest part fits an empty GPU, take the
//    cheapest in total whose largest part costs at most L; if none, the one whose largest part is
//    cheapest (so no single shard dominates a GPU).
// 4. Partition: data-parallel and row-wise tables first (their GPUs are fixed), then the others,
//    the table with the costliest part first, each part to the least-loaded GPU with room
//    (table_row_wise: the least-loaded node with room), a GPU's load being
//    max(Σ estimated time, Σ received-index time): the input AlltoAll runs beside the GPU's
//    work and shows only where it takes longer (our heuristic; docs/planners.md). A table
//    that fits nowhere falls back to its candidates with smaller parts (table_row_wise, then
//    row_wise). Every GPU keeps `headroom` of its HBM free (default 10%).
// 5. Near capacity, when step 4 strands a table: the same choices placed again memory first (the
//    largest part first, each to the GPU with the most free memory), and if that fails too and
//    row_wise is allowed, memory_greedy's packing (rows cut at equal bytes per GPU; option
//    `pack_fallback`, default true), so hybrid fits whenever memory_greedy does at the same
//    headroom. Else DoesNotFitError from step 4.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "plan/hybrid/hybrid_candidates.hpp"
#include "plan/hybrid/hybrid_placement.hpp"
#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/splits.hpp"
#include "plan/storage_tiers.hpp"
#include "shardsim/core/log.hpp"

namespace shardsim {

namespace {

using hybrid::Candidate;
using hybrid::CandidateBuilder;
using hybrid::kNumSchemes;
using hybrid::kSchemeNames;
using hybrid::Scheme;
using hybrid::Shortfall;

struct HybridOptions {
  bool allowed[kNumSchemes] = {true, true, true, true, true};
  double headroom = 0.1;
  double dp_memory_fraction = 0.02;
  bool pack_fallback = true;  // step 5's last resort (memory_greedy's packing)
  StorageTierOptions tiers;   // tables in host memory when HBM is short (storage_tiers.hpp)
};

// Every table's candidates (steps 1-2), and L, the lower bound on the mean load (step 3).
struct Candidates {
  std::vector<std::vector<Candidate>> of_table;
  double lower_bound_s = 0;
};

class HybridPlanner final : public Planner {
 public:
  explicit HybridPlanner(HybridOptions o) : o_(o) {}
  std::string name() const override { return "hybrid"; }
  Plan plan(const PlanningContext& ctx) const override;

 private:
  bool allowed(Scheme s) const { return o_.allowed[static_cast<int>(s)]; }
  Candidates candidates(const PlanningContext& ctx, const MemoryBudget& budget,
                        const CandidateBuilder& build) const;
  void place_table(std::size_t t, const std::vector<Candidate>& c, std::size_t choice,
                   const PlanningContext& ctx, const CandidateBuilder& build, MemoryBudget& budget,
                   LoadTracker& loads, Plan& plan, hybrid::Rule rule) const;
  Plan partition(const PlanningContext& ctx, std::span<const ShardStorage> storage,
                 const Candidates& cands, const std::vector<std::size_t>& choice,
                 hybrid::Rule rule) const;
  Plan packed(const PlanningContext& ctx) const;
  HybridOptions o_;
};

// 1-2. Candidates (row_wise later, only where needed).
Candidates HybridPlanner::candidates(const PlanningContext& ctx, const MemoryBudget& budget,
                                     const CandidateBuilder& build) const {
  const auto& tables = ctx.model.tables;
  const int n = ctx.cluster.num_gpus();
  const double empty_bytes = budget.largest_room_bytes();
  Candidates all;
  all.of_table.resize(tables.size());
  double lower = 0;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    auto& c = all.of_table[t];
    if (allowed(Scheme::table_wise)) c.push_back(build.table_wise(t));
    if (allowed(Scheme::column_wise)) {
      for (std::uint32_t k : {2u, 4u, 8u}) {
        if (k <= tables[t].dim / kColumnAlignment && static_cast<int>(k) <= n) {
          c.push_back(build.column_wise(t, k));
        }
      }
    }
    if (allowed(Scheme::table_row_wise) && ctx.cluster.gpus_per_node() > 1 &&
        tables[t].rows >= static_cast<std::uint64_t>(ctx.cluster.gpus_per_node())) {
      c.push_back(build.table_row_wise(t));
    }
    if (allowed(Scheme::data_parallel) && n > 1) {
      Shard replica{t,
                    {0, tables[t].rows},
                    RowSpace::row_id,
                    {0, tables[t].dim},
                    0,
                    0,
                    ShardKind::data_parallel,
                    {}};
      if (budget.shard_bytes(replica, 1) <= o_.dp_memory_fraction * budget.smallest_room_bytes()) {
        c.push_back(build.data_parallel(t));
      }
    }
    if (c.empty() && allowed(Scheme::data_parallel)) c.push_back(build.data_parallel(t));
    double cheapest = 0;
    bool any = false;
    for (const Candidate& x : c) {
      if (!any || x.total_s < cheapest) cheapest = x.total_s;
      any = true;
    }
    lower += cheapest;
  }
  lower /= n;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (!allowed(Scheme::row_wise)) continue;
    bool good = false;
    for (const Candidate& x : all.of_table[t]) {
      good = good || (x.max_part_bytes <= empty_bytes && x.max_part_s <= lower);
    }
    if (!good) all.of_table[t].push_back(build.row_wise(t, /*keep_parts=*/false));
  }
  all.lower_bound_s = lower;
  return all;
}

// 3. Proposal: the index of the chosen candidate of one table.
std::size_t propose(const std::vector<Candidate>& c, double lower_bound_s, double empty_bytes) {
  if (c.empty()) throw std::logic_error("hybrid: a table without candidates");
  int best = -1;
  for (std::size_t i = 0; i < c.size(); ++i) {  // cheapest balanced candidate
    if (c[i].max_part_bytes > empty_bytes || c[i].max_part_s > lower_bound_s) continue;
    if (best < 0 || c[i].total_s < c[best].total_s) best = static_cast<int>(i);
  }
  if (best < 0) {
    for (std::size_t i = 0; i < c.size(); ++i) {  // else the smallest largest part
      if (c[i].max_part_bytes > empty_bytes) continue;
      if (best < 0 || c[i].max_part_s < c[best].max_part_s) best = static_cast<int>(i);
    }
  }
  if (best < 0) {  // nothing fits even an empty GPU: the smallest parts, to fail clearly
    best = 0;
    for (std::size_t i = 1; i < c.size(); ++i) {
      if (c[i].max_part_bytes < c[best].max_part_bytes) best = static_cast<int>(i);
    }
  }
  return static_cast<std::size_t>(best);
}

// 4. One table: its chosen candidate, else the fallbacks; DoesNotFitError if nothing fits.
void HybridPlanner::place_table(std::size_t t, const std::vector<Candidate>& c, std::size_t choice,
                                const PlanningContext& ctx, const CandidateBuilder& build,
                                MemoryBudget& budget, LoadTracker& loads, Plan& plan,
                                hybrid::Rule rule) const {
  Shortfall closest;
  auto attempt = [&](const Candidate& x) {
    const auto miss = x.summary_only
                          ? hybrid::try_place(build.row_wise(t), ctx, budget, loads, plan, rule)
                          : hybrid::try_place(x, ctx, budget, loads, plan, rule);
    if (!miss) return true;
    if (closest.gpu < 0 || miss->needed_bytes - budget.capacity_bytes() <
                               closest.needed_bytes - budget.capacity_bytes()) {
      closest = *miss;
    }
    return false;
  };
  if (attempt(c[choice])) return;
  // Fallbacks: the other candidates (not data-parallel), largest parts first.
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i != choice && c[i].scheme != Scheme::data_parallel) rest.push_back(i);
  }
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
    return c[a].max_part_bytes > c[b].max_part_bytes;
  });
  for (std::size_t i : rest) {
    if (attempt(c[i])) return;
  }
  if (allowed(Scheme::row_wise) && std::none_of(c.begin(), c.end(), [](const Candidate& x) {
        return x.scheme == Scheme::row_wise;
      })) {
    if (attempt(build.row_wise(t))) return;
  }
  throw DoesNotFitError(
      closest.gpu, closest.needed_bytes, budget.capacity_bytes(),
      fmt::format("hybrid: no allowed scheme fits table '{}' (the closest: GPU {} would "
                  "need {:.3f} GB of its {:.3f} GB{}); {}",
                  ctx.model.tables[t].name, closest.gpu, closest.needed_bytes / 1e9,
                  budget.capacity_bytes() / 1e9,
                  budget.headroom_fraction() > 0 ? ", after the headroom" : "",
                  !allowed(Scheme::row_wise) ? "try more GPUs (cluster.nodes) or allow row_wise"
                  : budget.headroom_fraction() > 0
                      ? "try more GPUs (cluster.nodes) or a smaller headroom"
                      : "try more GPUs (cluster.nodes)"));
}

// 4. Partition with `rule`: fixed placements first, then the others, the table with the costliest
// part first (least_loaded) or the largest part first (most_free).
Plan HybridPlanner::partition(const PlanningContext& ctx, std::span<const ShardStorage> storage,
                              const Candidates& cands, const std::vector<std::size_t>& choice,
                              hybrid::Rule rule) const {
  const std::size_t num_tables = ctx.model.tables.size();
  MemoryBudget budget(ctx, o_.headroom);
  const CandidateBuilder build(ctx, budget, storage);
  std::vector<std::size_t> order(num_tables);
  std::iota(order.begin(), order.end(), 0);
  const bool by_bytes = rule == hybrid::Rule::most_free;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Candidate& x = cands.of_table[a][choice[a]];
    const Candidate& y = cands.of_table[b][choice[b]];
    if (x.fixed() != y.fixed()) return x.fixed();
    const double kx = by_bytes ? x.max_part_bytes : x.max_part_s;
    const double ky = by_bytes ? y.max_part_bytes : y.max_part_s;
    if (kx != ky) return kx > ky;
    return a < b;
  });
  LoadTracker loads(ctx.cluster.num_gpus());
  Plan plan;
  plan.planner = name();
  for (std::size_t t : order) {
    place_table(t, cands.of_table[t], choice[t], ctx, build, budget, loads, plan, rule);
  }
  return plan;
}

// The last resort near capacity: memory_greedy's packing (rows laid end to end, cut at equal
// bytes per GPU), with this planner's headroom.
Plan HybridPlanner::packed(const PlanningContext& ctx) const {
  Plan plan =
      make_planner("memory_greedy", {{"headroom", o_.headroom},
                                     {"host_tables", o_.tiers.allow_host ? "auto" : "never"},
                                     {"cache_fraction", o_.tiers.cache_fraction},
                                     {"cache_policy", to_string(o_.tiers.policy)}})
          ->plan(ctx);
  plan.planner = name();
  return plan;
}

Plan HybridPlanner::plan(const PlanningContext& ctx) const {
  const std::size_t num_tables = ctx.model.tables.size();
  const MemoryBudget budget(ctx, o_.headroom);
  const std::vector<ShardStorage> storage = choose_table_storage(ctx, o_.headroom, o_.tiers);
  const CandidateBuilder build(ctx, budget, storage);
  const Candidates cands = candidates(ctx, budget, build);

  std::vector<std::size_t> choice(num_tables, 0);
  for (std::size_t t = 0; t < num_tables; ++t) {
    choice[t] = propose(cands.of_table[t], cands.lower_bound_s, budget.largest_room_bytes());
  }
  try {
    return partition(ctx, storage, cands, choice, hybrid::Rule::least_loaded);
  } catch (const DoesNotFitError& by_time) {
    // Near capacity the placement by estimated time can strand a table that a memory-first one
    // places (docs/planners.md, "hybrid": near capacity).
    log_info(
        "hybrid: placing by estimated time does not fit ({}); placing again, largest parts "
        "first, each on the GPU with the most free memory",
        by_time.what());
    try {
      return partition(ctx, storage, cands, choice, hybrid::Rule::most_free);
    } catch (const DoesNotFitError&) {
      if (!allowed(Scheme::row_wise) || !o_.pack_fallback) throw by_time;
    }
    try {
      Plan plan = packed(ctx);
      log_warn(
          "hybrid: no placement of its candidates fits; falling back to memory_greedy's "
          "packing (equal bytes of rows per GPU, access ignored)");
      return plan;
    } catch (const DoesNotFitError&) {
      throw by_time;
    }
  }
}

}  // namespace

OptionSchema hybrid_planner_options() {
  std::vector<OptionSpec> own = {
      OptionSpec::choice_list("schemes", {std::begin(kSchemeNames), std::end(kSchemeNames)},
                              "the schemes enumerated per table"),
      OptionSpec::number("dp_memory_fraction", 0.0, 1.0, 0.02,
                         "DP only for tables whose replica takes at most this share of a GPU"),
      OptionSpec::boolean("pack_fallback", true, "memory_greedy's packing near capacity")};
  for (OptionSpec& s : storage_tier_option_specs()) own.push_back(std::move(s));
  return planner_schema(std::move(own), 0.1);
}

std::unique_ptr<Planner> make_hybrid_planner(const PlannerOptions& options) {
  HybridOptions o;
  o.tiers = storage_tier_options_of(options);
  o.headroom = options.number("headroom");
  o.dp_memory_fraction = options.number("dp_memory_fraction");
  o.pack_fallback = options.boolean("pack_fallback");
  const OptionList& schemes = options.list("schemes");
  for (int i = 0; i < kNumSchemes; ++i) {
    o.allowed[i] = std::find(schemes.begin(), schemes.end(), kSchemeNames[i]) != schemes.end();
  }
  return std::make_unique<HybridPlanner>(o);
}

}  // namespace shardsim
