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
//    AllReduce of the table's gradient (allreduce_s, latency included) on every GPU.
// 3. Proposal: L = (Σ over tables of the cheapest candidate's total) / N is a lower bound on the
//    mean load. Per table, among candidates whose largest part fits an empty GPU, take the
//    cheapest in total whose largest part costs at most L; if none, the one whose largest part is
//    cheapest (so no single shard dominates a GPU).
// 4. Partition: data-parallel and row-wise tables first (their GPUs are fixed), then the others,
//    the table with the costliest part first, each part to the least-loaded GPU with room
//    (table_row_wise: the least-loaded node with room). A table that fits nowhere falls back to
//    its candidates with smaller parts (table_row_wise, then row_wise); if none fits, the planner
//    fails with DoesNotFitError. Every GPU keeps `headroom` of its HBM free (default 10%).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/plan/packing.hpp"
#include "shardsim/plan/planners.hpp"
#include "shardsim/plan/shard_estimate.hpp"
#include "shardsim/plan/splits.hpp"

namespace shardsim {

namespace {

enum class Scheme { table_wise, column_wise, table_row_wise, row_wise, data_parallel };
constexpr const char* kSchemeNames[] = {"table_wise", "column_wise", "table_row_wise", "row_wise",
                                        "data_parallel"};

struct Part {
  Shard shard;  // gpu set for fixed candidates (row_wise, data_parallel)
  double cost_s = 0;
  double bytes = 0;
  double served_gpus = 1;
};

struct Candidate {
  Scheme scheme = Scheme::table_wise;
  std::vector<Part> parts;
  double total_s = 0;
  double max_part_s = 0;
  double max_part_bytes = 0;
  bool fixed() const { return scheme == Scheme::row_wise || scheme == Scheme::data_parallel; }
};

struct HybridOptions {
  bool allowed[5] = {true, true, true, true, true};
  double headroom = 0.1;
  double dp_memory_fraction = 0.02;
};

class HybridPlanner final : public Planner {
 public:
  explicit HybridPlanner(HybridOptions o) : o_(o) {}
  std::string name() const override { return "hybrid"; }
  Plan plan(const PlanningContext& ctx) const override;

 private:
  bool allowed(Scheme s) const { return o_.allowed[static_cast<int>(s)]; }
  HybridOptions o_;
};

class Builder {
  struct Ranges {
    std::vector<RowRange> rows;
    RowSpace space = RowSpace::row_id;
  };

 public:
  Builder(const PlanningContext& ctx, const MemoryBudget& budget)
      : ctx_(ctx),
        budget_(budget),
        n_(ctx.cluster.num_gpus()),
        peers_(all_gpu_peers(ctx.cluster)),
        clustered_(ctx.workload.trace.layout == HotRowLayout::clustered) {}

  Candidate table_wise(std::size_t t) const {
    return make(Scheme::table_wise, t, whole_rows(t), {{0, dim(t)}}, ShardKind::table_wise);
  }
  Candidate column_wise(std::size_t t, std::uint32_t blocks) const {
    return make(Scheme::column_wise, t, whole_rows(t), column_blocks(dim(t), blocks),
                ShardKind::column_wise);
  }
  Candidate table_row_wise(std::size_t t) const {
    return make(Scheme::table_row_wise, t,
                row_ranges(t, static_cast<std::uint64_t>(ctx_.cluster.gpus_per_node())),
                {{0, dim(t)}}, ShardKind::row_wise);
  }
  Candidate row_wise(std::size_t t) const {
    Candidate c = make(Scheme::row_wise, t, row_ranges(t, static_cast<std::uint64_t>(n_)),
                       {{0, dim(t)}}, ShardKind::row_wise);
    for (std::size_t i = 0; i < c.parts.size(); ++i) c.parts[i].shard.gpu = static_cast<int>(i);
    return c;
  }
  Candidate data_parallel(std::size_t t) const {
    Candidate c;
    c.scheme = Scheme::data_parallel;
    Shard sh{t, {0, rows(t)}, RowSpace::row_id, {0, dim(t)}, 0, 0, ShardKind::data_parallel};
    // Each replica serves its own GPU's batch: no pooled-embedding traffic, but the whole
    // table's gradient is AllReduced over all GPUs in training (what the engine simulates).
    const ShardCost one = estimate_shard_cost(ctx_, t, sh.rows, sh.row_space, sh.cols, 1, {});
    double sync_s = 0;
    if (ctx_.workload.mode == Mode::training && n_ > 1) {
      std::vector<int> all(static_cast<std::size_t>(n_));
      std::iota(all.begin(), all.end(), 0);
      const double grad_bytes =
          static_cast<double>(rows(t)) * dim(t) * bytes_per_element(ctx_.model.comm_precision);
      sync_s = allreduce_s(ctx_.cluster, all, grad_bytes, ctx_.cost_params());
    }
    const double bytes = budget_.shard_bytes(sh, 1);
    for (int g = 0; g < n_; ++g) {
      sh.gpu = g;
      sh.replica = g;
      c.parts.push_back(Part{sh, one.total_s() + sync_s, bytes, 1});
    }
    summarise(c);
    return c;
  }

 private:
  std::uint64_t rows(std::size_t t) const { return ctx_.model.tables[t].rows; }
  std::uint32_t dim(std::size_t t) const { return ctx_.model.tables[t].dim; }

  Ranges whole_rows(std::size_t t) const {
    return Ranges{{RowRange{0, rows(t)}}, RowSpace::row_id};
  }
  Ranges row_ranges(std::size_t t, std::uint64_t parts) const {
    if (clustered_) return {rank_balanced_ranges(ctx_.trace.profile(t), parts), RowSpace::rank};
    return {even_row_ranges(rows(t), parts), RowSpace::row_id};
  }

  Candidate make(Scheme scheme, std::size_t t, const Ranges& ranges,
                 const std::vector<ColRange>& cols, ShardKind kind) const {
    Candidate c;
    c.scheme = scheme;
    const bool whole = ranges.rows.size() == 1 && cols.size() == 1;
    for (const RowRange& r : ranges.rows) {
      // One profile query per row range; its column blocks differ only in width.
      EmbeddingWork work = expected_work(ctx_, t, r, ranges.space, {0, dim(t)}, n_);
      for (const ColRange& col : cols) {
        Shard sh{t, r, ranges.space, col, -1, 0, whole ? ShardKind::table_wise : kind};
        work.cols = col.size();
        const ShardCost cost = cost_of_work(ctx_, work, peers_);
        c.parts.push_back(
            Part{sh, cost.total_s(), budget_.shard_bytes(sh, n_), static_cast<double>(n_)});
      }
    }
    summarise(c);
    return c;
  }
  static void summarise(Candidate& c) {
    for (const Part& p : c.parts) {
      c.total_s += p.cost_s;
      c.max_part_s = std::max(c.max_part_s, p.cost_s);
      c.max_part_bytes = std::max(c.max_part_bytes, p.bytes);
    }
  }

  const PlanningContext& ctx_;
  const MemoryBudget& budget_;
  int n_;
  ServedPeers peers_;
  bool clustered_;
};

// Where a candidate did not fit: the GPU closest to having room, and what it would hold.
struct Shortfall {
  int gpu = -1;
  double needed_bytes = 0;
};

void note(Shortfall& s, const MemoryBudget& budget, int gpu, double bytes) {
  const double needed = budget.used_bytes(gpu) + bytes;
  if (s.gpu < 0 || needed - budget.capacity_bytes() < s.needed_bytes - budget.capacity_bytes()) {
    s = Shortfall{gpu, needed};
  }
}

// Places every part of `c` (fixed GPUs, one node, or each on the least-loaded GPU with room).
// Changes nothing and says where it fell short when some part has no room.
std::optional<Shortfall> try_place(const Candidate& c, const PlanningContext& ctx,
                                   MemoryBudget& budget, LoadTracker& loads, Plan& plan) {
  Shortfall miss;
  if (c.fixed()) {
    for (const Part& p : c.parts) {
      if (!budget.fits(p.shard.gpu, p.bytes)) note(miss, budget, p.shard.gpu, p.bytes);
    }
    if (miss.gpu >= 0) return miss;
    for (const Part& p : c.parts) {
      budget.add(p.shard.gpu, p.bytes);
      loads.add(p.shard.gpu, p.cost_s);
      plan.shards.push_back(p.shard);
    }
    return std::nullopt;
  }
  if (c.scheme == Scheme::table_row_wise) {
    const int gpn = ctx.cluster.gpus_per_node();
    int best = -1;
    double best_load = 0;
    for (int node = 0; node < ctx.cluster.num_nodes(); ++node) {
      bool fits = true;
      double load = 0;
      for (std::size_t i = 0; i < c.parts.size(); ++i) {
        const int g = node * gpn + static_cast<int>(i);
        if (!budget.fits(g, c.parts[i].bytes)) {
          fits = false;
          note(miss, budget, g, c.parts[i].bytes);
        }
      }
      for (int i = 0; i < gpn; ++i) load += loads.load(node * gpn + i);
      if (fits && (best < 0 || load < best_load)) {
        best = node;
        best_load = load;
      }
    }
    if (best < 0) return miss;
    for (std::size_t i = 0; i < c.parts.size(); ++i) {
      Shard sh = c.parts[i].shard;
      sh.gpu = best * gpn + static_cast<int>(i);
      budget.add(sh.gpu, c.parts[i].bytes);
      loads.add(sh.gpu, c.parts[i].cost_s);
      plan.shards.push_back(sh);
    }
    return std::nullopt;
  }
  // Independent parts: place one by one, undo if one does not fit.
  std::vector<std::pair<int, const Part*>> done;
  for (const Part& p : c.parts) {
    const int g = loads.least_loaded_fitting(budget, p.bytes);
    if (g < 0) {
      int roomiest = 0;
      for (int k = 1; k < budget.num_gpus(); ++k) {
        if (budget.used_bytes(k) < budget.used_bytes(roomiest)) roomiest = k;
      }
      note(miss, budget, roomiest, p.bytes);
      for (auto [dg, dp] : done) {
        budget.add(dg, -dp->bytes);
        loads.add(dg, -dp->cost_s);
      }
      return miss;
    }
    budget.add(g, p.bytes);
    loads.add(g, p.cost_s);
    done.emplace_back(g, &p);
  }
  for (auto [g, p] : done) {
    Shard sh = p->shard;
    sh.gpu = g;
    plan.shards.push_back(sh);
  }
  return std::nullopt;
}

Plan HybridPlanner::plan(const PlanningContext& ctx) const {
  const auto& tables = ctx.model.tables;
  const int n = ctx.cluster.num_gpus();
  MemoryBudget budget(ctx, o_.headroom);
  const Builder build(ctx, budget);
  const double empty_gpu_bytes = budget.capacity_bytes() - budget.base_bytes();

  // 1-2. Candidates (row_wise later, only where needed).
  std::vector<std::vector<Candidate>> cands(tables.size());
  double lower = 0;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    auto& c = cands[t];
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
      Shard replica{t, {0, tables[t].rows},     RowSpace::row_id, {0, tables[t].dim}, 0,
                    0, ShardKind::data_parallel};
      if (budget.shard_bytes(replica, 1) <= o_.dp_memory_fraction * empty_gpu_bytes) {
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
    for (const Candidate& x : cands[t]) {
      good = good || (x.max_part_bytes <= empty_gpu_bytes && x.max_part_s <= lower);
    }
    if (!good) cands[t].push_back(build.row_wise(t));
  }

  // 3. Proposal.
  std::vector<std::size_t> choice(tables.size(), 0);
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& c = cands[t];
    if (c.empty()) throw std::logic_error("hybrid: a table without candidates");
    int best = -1;
    for (std::size_t i = 0; i < c.size(); ++i) {  // cheapest balanced candidate
      if (c[i].max_part_bytes > empty_gpu_bytes || c[i].max_part_s > lower) continue;
      if (best < 0 || c[i].total_s < c[best].total_s) best = static_cast<int>(i);
    }
    if (best < 0) {
      for (std::size_t i = 0; i < c.size(); ++i) {  // else the smallest largest part
        if (c[i].max_part_bytes > empty_gpu_bytes) continue;
        if (best < 0 || c[i].max_part_s < c[best].max_part_s) best = static_cast<int>(i);
      }
    }
    if (best < 0) {  // nothing fits even an empty GPU: the smallest parts, to fail clearly
      best = 0;
      for (std::size_t i = 1; i < c.size(); ++i) {
        if (c[i].max_part_bytes < c[best].max_part_bytes) best = static_cast<int>(i);
      }
    }
    choice[t] = static_cast<std::size_t>(best);
  }

  // 4. Partition: fixed placements first, then costliest part first.
  std::vector<std::size_t> order(tables.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Candidate& x = cands[a][choice[a]];
    const Candidate& y = cands[b][choice[b]];
    if (x.fixed() != y.fixed()) return x.fixed();
    if (x.max_part_s != y.max_part_s) return x.max_part_s > y.max_part_s;
    return a < b;
  });
  LoadTracker loads(n);
  Plan plan;
  plan.planner = name();
  for (std::size_t t : order) {
    const auto& c = cands[t];
    Shortfall closest;
    auto attempt = [&](const Candidate& x) {
      const auto miss = try_place(x, ctx, budget, loads, plan);
      if (!miss) return true;
      if (closest.gpu < 0 || miss->needed_bytes - budget.capacity_bytes() <
                                 closest.needed_bytes - budget.capacity_bytes()) {
        closest = *miss;
      }
      return false;
    };
    if (attempt(c[choice[t]])) continue;
    // Fallbacks: the other candidates (not data-parallel), largest parts first.
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (i != choice[t] && c[i].scheme != Scheme::data_parallel) rest.push_back(i);
    }
    std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
      return c[a].max_part_bytes > c[b].max_part_bytes;
    });
    bool placed = false;
    for (std::size_t i : rest) {
      if (attempt(c[i])) {
        placed = true;
        break;
      }
    }
    if (!placed && allowed(Scheme::row_wise) &&
        std::none_of(c.begin(), c.end(),
                     [](const Candidate& x) { return x.scheme == Scheme::row_wise; })) {
      placed = attempt(build.row_wise(t));
    }
    if (!placed) {
      throw DoesNotFitError(
          closest.gpu, closest.needed_bytes, budget.capacity_bytes(),
          fmt::format("hybrid: no allowed scheme fits table '{}' (the closest: GPU {} would "
                      "need {:.3f} GB of its {:.3f} GB{}); try more GPUs or allow row_wise",
                      tables[t].name, closest.gpu, closest.needed_bytes / 1e9,
                      budget.capacity_bytes() / 1e9,
                      budget.headroom_fraction() > 0 ? ", after the headroom" : ""));
    }
  }
  return plan;
}

}  // namespace

std::unique_ptr<Planner> make_hybrid_planner(const YamlValue& options) {
  const PlannerOptions opts(options, {"schemes", "dp_memory_fraction"});
  HybridOptions o;
  o.headroom = opts.headroom(0.1);
  o.dp_memory_fraction = opts.number_in("dp_memory_fraction", 0.0, 1.0, 0.02);
  if (auto s = opts.find("schemes")) {
    s->expect_sequence();
    if (s->size() == 0) throw s->error("the list of schemes is empty", "name at least one");
    for (bool& a : o.allowed) a = false;
    for (const YamlValue& v : s->elements()) {
      const std::string name =
          v.as_choice({"table_wise", "column_wise", "table_row_wise", "row_wise", "data_parallel"});
      for (int i = 0; i < 5; ++i) {
        if (name == kSchemeNames[i]) o.allowed[i] = true;
      }
    }
  }
  return std::make_unique<HybridPlanner>(o);
}

}  // namespace shardsim
