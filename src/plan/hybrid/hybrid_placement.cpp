#include "plan/hybrid/hybrid_placement.hpp"

#include <utility>
#include <vector>

namespace shardsim::hybrid {

void note_shortfall(Shortfall& s, const MemoryBudget& budget, int gpu, double bytes) {
  const double needed = budget.used_bytes(gpu) + bytes;
  if (s.gpu < 0 || needed - budget.capacity_bytes() < s.needed_bytes - budget.capacity_bytes()) {
    s = Shortfall{gpu, needed};
  }
}

namespace {

// Row-wise and data-parallel candidates: their GPUs are fixed.
std::optional<Shortfall> place_fixed(const Candidate& c, MemoryBudget& budget, LoadTracker& loads,
                                     Plan& plan) {
  Shortfall miss;
  // Each part at its GPU, or a data-parallel part on every GPU (Candidate::every_gpu).
  const auto for_each_placed = [&](auto&& f) {
    for (const Part& p : c.parts) {
      if (c.every_gpu == 0) {
        f(p, p.shard);
        continue;
      }
      Shard sh = p.shard;
      for (int g = 0; g < c.every_gpu; ++g) {
        sh.gpu = g;
        sh.replica = g;
        f(p, sh);
      }
    }
  };
  for_each_placed([&](const Part& p, const Shard& sh) {
    if (!budget.fits(sh.gpu, p.bytes)) note_shortfall(miss, budget, sh.gpu, p.bytes);
  });
  if (miss.gpu >= 0) return miss;
  for_each_placed([&](const Part& p, const Shard& sh) {
    budget.add(sh.gpu, p.bytes);
    loads.add(sh.gpu, p.cost_s, p.input_s);
    plan.shards.push_back(sh);
  });
  return std::nullopt;
}

// table_row_wise: part i on GPU i of the node with room for every part that is least loaded
// (least_loaded) or has the least memory in use (most_free).
std::optional<Shortfall> place_on_node(const Candidate& c, const PlanningContext& ctx,
                                       MemoryBudget& budget, LoadTracker& loads, Plan& plan,
                                       Rule rule) {
  Shortfall miss;
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
        note_shortfall(miss, budget, g, c.parts[i].bytes);
      }
    }
    for (int i = 0; i < gpn; ++i) {
      const int g = node * gpn + i;
      load += rule == Rule::most_free ? budget.used_bytes(g) : loads.load(g);
    }
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
    loads.add(sh.gpu, c.parts[i].cost_s, c.parts[i].input_s);
    plan.shards.push_back(sh);
  }
  return std::nullopt;
}

// The GPU with the least memory in use that has room for `bytes` (ties: lower id), or -1.
int most_free_fitting(const MemoryBudget& budget, double bytes) {
  int best = -1;
  for (int g = 0; g < budget.num_gpus(); ++g) {
    if (budget.fits(g, bytes) && (best < 0 || budget.used_bytes(g) < budget.used_bytes(best))) {
      best = g;
    }
  }
  return best;
}

// Independent parts: place one by one, undo if one does not fit.
std::optional<Shortfall> place_each(const Candidate& c, MemoryBudget& budget, LoadTracker& loads,
                                    Plan& plan, Rule rule) {
  Shortfall miss;
  std::vector<std::pair<int, const Part*>> done;
  for (const Part& p : c.parts) {
    const int g = rule == Rule::most_free ? most_free_fitting(budget, p.bytes)
                                          : loads.least_loaded_fitting(budget, p.bytes);
    if (g < 0) {
      int roomiest = 0;
      for (int k = 1; k < budget.num_gpus(); ++k) {
        if (budget.used_bytes(k) < budget.used_bytes(roomiest)) roomiest = k;
      }
      note_shortfall(miss, budget, roomiest, p.bytes);
      for (auto [dg, dp] : done) {
        budget.add(dg, -dp->bytes);
        loads.add(dg, -dp->cost_s, -dp->input_s);
      }
      return miss;
    }
    budget.add(g, p.bytes);
    loads.add(g, p.cost_s, p.input_s);
    done.emplace_back(g, &p);
  }
  for (auto [g, p] : done) {
    Shard sh = p->shard;
    sh.gpu = g;
    plan.shards.push_back(sh);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Shortfall> try_place(const Candidate& c, const PlanningContext& ctx,
                                   MemoryBudget& budget, LoadTracker& loads, Plan& plan,
                                   Rule rule) {
  if (c.fixed()) return place_fixed(c, budget, loads, plan);
  if (c.scheme == Scheme::table_row_wise) return place_on_node(c, ctx, budget, loads, plan, rule);
  return place_each(c, budget, loads, plan, rule);
}

}  // namespace shardsim::hybrid
