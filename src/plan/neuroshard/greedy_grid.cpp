#include "plan/neuroshard/greedy_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardsim::neuroshard {

std::vector<double> grid_scales(const GridOptions& o) {
  if (o.steps <= 0) return {std::numeric_limits<double>::infinity()};
  if (o.steps == 1) return {o.start};
  std::vector<double> out;
  const double step = (o.end - o.start) / (o.steps - 1);
  for (int i = 0; i < o.steps; ++i) out.push_back(o.start + step * i);
  return out;
}

Placement greedy_place(const SubTableSet& set, std::span<const double> room_bytes, double max_dim,
                       ComputeCost& compute) {
  const std::size_t n = room_bytes.size();
  // Costliest first; equal costs: the later sub-table first (the released code sorts ascending,
  // stably, and pops from the end).
  std::vector<std::size_t> order(set.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (set.single_compute_s[a] != set.single_compute_s[b]) {
      return set.single_compute_s[a] > set.single_compute_s[b];
    }
    return a > b;
  });
  Placement p;
  p.compute_s.assign(n, 0.0);
  std::vector<double> bytes(n, 0.0);
  std::vector<double> dims(n, 0.0);
  std::vector<std::vector<std::uint64_t>> keys(n);
  std::vector<int> gpu_of(set.size(), -1);
  double unplaced_bytes = 0, unplaced_dims = 0;
  for (std::size_t i : order) {
    const SubTable& s = set.subs[i];
    int best = -1;
    for (std::size_t r = 0; r < n; ++r) {
      if (bytes[r] + set.bytes[i] > room_bytes[r] || dims[r] + s.dim() > max_dim) continue;
      if (best < 0 || p.compute_s[r] < p.compute_s[static_cast<std::size_t>(best)] ||
          (p.compute_s[r] == p.compute_s[static_cast<std::size_t>(best)] &&
           bytes[r] < bytes[static_cast<std::size_t>(best)])) {
        best = static_cast<int>(r);
      }
    }
    if (best < 0) {  // skipped: the rest is still placed, to measure how far this is from fitting
      unplaced_bytes += set.bytes[i];
      unplaced_dims += s.dim();
      continue;
    }
    const auto b = static_cast<std::size_t>(best);
    gpu_of[i] = best;
    bytes[b] += set.bytes[i];
    dims[b] += s.dim();
    auto& k = keys[b];
    k.insert(std::upper_bound(k.begin(), k.end(), s.cost_key()), s.cost_key());
    p.compute_s[b] = compute.set_s(k);
  }
  if (unplaced_bytes > 0 || unplaced_dims > 0) {
    const double total_bytes = std::accumulate(set.bytes.begin(), set.bytes.end(), 0.0);
    Placement none;
    none.unplaced = (total_bytes > 0 ? unplaced_bytes / total_bytes : 0) +
                    unplaced_dims / static_cast<double>(std::max<std::uint64_t>(set.total_dim, 1));
    return none;
  }
  p.gpu_of = std::move(gpu_of);
  return p;
}

Placement greedy_grid_search(const SubTableSet& set, std::span<const double> room_bytes,
                             const GridOptions& grid, ComputeCost& compute,
                             const PlanCostBackend& backend) {
  const double mean_dim =
      static_cast<double>(set.total_dim) / static_cast<double>(room_bytes.size());
  Placement best;
  best.unplaced = std::numeric_limits<double>::infinity();
  for (double scale : grid_scales(grid)) {
    const double max_dim = std::isinf(scale) ? scale : scale * mean_dim;
    Placement p = greedy_place(set, room_bytes, max_dim, compute);
    if (!p.found()) {
      if (!best.found()) best.unplaced = std::min(best.unplaced, p.unplaced);
      continue;
    }
    p.max_dim_scale = scale;
    p.cost_s = backend.cost_s(Candidate{set.subs, p.gpu_of, p.compute_s});
    if (!best.found() || p.cost_s < best.cost_s) best = std::move(p);
  }
  return best;
}

}  // namespace shardsim::neuroshard
