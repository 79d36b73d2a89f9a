#include "plan/neuroshard/beam_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "shardsim/core/log.hpp"

namespace shardsim::neuroshard {

namespace {

// The indices of the `n` largest values (ties: the lower index).
std::vector<std::size_t> top_n(const std::vector<double>& values, int n) {
  std::vector<std::size_t> idx(values.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  const auto k = std::min(idx.size(), static_cast<std::size_t>(n));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) {
                      return values[a] != values[b] ? values[a] > values[b] : a < b;
                    });
  idx.resize(k);
  return idx;
}

struct Beam {
  std::vector<std::size_t> column_plan;
  SubTableSet tables;
  double cost_s = 0;
  // For plans the grid could not place (cost +infinity): how far they are from fitting, so the
  // beam moves toward plans that fit (our choice: the paper and its code rank all such plans
  // alike, and the beam then keeps whichever came first). See overshoot_of.
  double overshoot = 0;
};

// How far an unplaceable column plan is from fitting: the greedy's unplaced share (of bytes plus
// of dims, the least over the grid: packing failures) plus Σ over sub-tables of the excess of
// dim / (the grid's largest max dim) and of bytes / (the largest room a GPU has) over 1
// (sub-tables that fit under no grid value, however packed, and how far).
double overshoot_of(const SubTableSet& set, const Placement& p, int num_gpus, double room_bytes,
                    const GridOptions& grid) {
  const double max_dim = grid_scales(grid).back() * static_cast<double>(set.total_dim) / num_gpus;
  double excess = p.unplaced;
  for (std::size_t i = 0; i < set.size(); ++i) {
    excess += std::max(0.0, set.subs[i].dim() / max_dim - 1) +
              std::max(0.0, set.bytes[i] / room_bytes - 1);
  }
  return excess;
}

}  // namespace

std::vector<std::size_t> split_candidates(const SubTableSet& set, int n) {
  std::vector<std::size_t> merged;
  if (static_cast<std::size_t>(n) >= set.size()) {
    merged.resize(set.size());
    std::iota(merged.begin(), merged.end(), std::size_t{0});
  } else {
    merged = top_n(set.single_compute_s, n);
    const std::vector<std::size_t> largest = top_n(set.bytes, n);
    merged.insert(merged.end(), largest.begin(), largest.end());
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  }
  std::erase_if(merged, [&](std::size_t i) { return !can_halve(set.subs[i]); });
  return merged;
}

SearchResult beam_search(const PlanningContext& ctx, const MemoryBudget& budget,
                         const BeamOptions& o, ComputeCost& compute,
                         const PlanCostBackend& backend) {
  const int n = ctx.cluster.num_gpus();
  std::vector<double> room(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) room[static_cast<std::size_t>(g)] = budget.room_bytes(g);
  const double largest_room = budget.largest_room_bytes();
  auto expired = [&] { return o.deadline && std::chrono::steady_clock::now() > *o.deadline; };

  SearchResult best;
  best.tables = initial_sub_tables(ctx, budget, compute);
  best.placement = greedy_grid_search(best.tables, room, o.grid, compute, backend);
  best.inner_searches = 1;
  std::vector<Beam> beams{Beam{{}, best.tables, best.placement.cost_s}};

  Progress progress(fmt::format("neuroshard: beam search (N={}, K={}, L={}, M={})", o.candidates,
                                o.beam_width, o.steps, o.grid.steps),
                    static_cast<std::uint64_t>(std::max(o.steps, 0)));
  for (int step = 0; step < o.steps && !best.stopped_by_deadline; ++step) {
    std::vector<Beam> next;
    for (const Beam& beam : beams) {
      for (std::size_t i : split_candidates(beam.tables, o.candidates)) {
        if (expired()) {
          best.stopped_by_deadline = true;
          break;
        }
        Beam extended{beam.column_plan, halved(beam.tables, i, budget, compute), 0};
        extended.column_plan.push_back(i);
        Placement p = greedy_grid_search(extended.tables, room, o.grid, compute, backend);
        ++best.inner_searches;
        extended.cost_s = p.cost_s;
        if (!p.found())
          extended.overshoot = overshoot_of(extended.tables, p, n, largest_room, o.grid);
        if (p.found() && (!best.placement.found() || p.cost_s < best.placement.cost_s)) {
          best.column_plan = extended.column_plan;
          best.tables = extended.tables;
          best.placement = std::move(p);
        }
        next.push_back(std::move(extended));
      }
      if (best.stopped_by_deadline) break;
    }
    if (best.stopped_by_deadline || next.empty()) break;
    std::stable_sort(next.begin(), next.end(), [](const Beam& a, const Beam& b) {
      return a.cost_s != b.cost_s ? a.cost_s < b.cost_s : a.overshoot < b.overshoot;
    });
    if (next.size() > static_cast<std::size_t>(o.beam_width)) {
      next.resize(static_cast<std::size_t>(o.beam_width));
    }
    beams = std::move(next);
    ++best.steps_done;
    progress.advance();
  }
  progress.finish();
  return best;
}

}  // namespace shardsim::neuroshard
