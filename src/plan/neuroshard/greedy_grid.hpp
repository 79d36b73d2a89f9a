#pragma once
// NeuroShard's table-wise step, Algorithm 2 (§3.3 "Table-wise sharding with greedy grid
// search"): for each max device dimension on a grid, place the sub-tables greedily, costliest
// first, each on the GPU with the lowest computation cost so far among those with room and
// whose dims stay within the max; judge each placement by the plan cost backend; keep the best.
#include <limits>
#include <span>
#include <vector>

#include "plan/neuroshard/cost_model.hpp"
#include "plan/neuroshard/sub_tables.hpp"

namespace shardsim::neuroshard {

// The grid of max device dimensions, as multiples of the mean device dimension (Σ dims / N):
// `steps` values evenly from `start` to `end` (the paper's Ms = the mean, Me = 1.5 Ms, M = 11).
// steps = 0 drops the constraint (Table 3's "w/o greedy grid search"); steps = 1 tries `start`.
struct GridOptions {
  int steps = 11;
  double start = 1.0;
  double end = 1.5;
};

// The max-dim scales the grid tries, in order (empty: unconstrained, one placement).
std::vector<double> grid_scales(const GridOptions& o);

struct Placement {
  std::vector<int> gpu_of;        // per sub-table; empty when nothing was placed
  std::vector<double> compute_s;  // per GPU
  double cost_s = std::numeric_limits<double>::infinity();
  double max_dim_scale = 0;  // the grid value it was found at (infinity: unconstrained)
  // When not found: the share of the sub-tables' bytes plus the share of their dims that the
  // greedy could not place (the sub-tables that fit nowhere are skipped and the rest placed);
  // the least over the grid. 0 when found.
  double unplaced = 0;
  bool found() const { return !gpu_of.empty(); }
};

// One greedy placement under a max device dimension of `max_dim` (infinity: none) on
// room_bytes.size() GPUs, GPU g having room_bytes[g] for sub-tables (MemoryBudget::room_bytes:
// the same on every GPU unless the scenario runs the bottom MLP on one). Sub-tables go costliest
// first (ties: the later one first, as the released code pops a stably sorted list); each to the
// GPU with the lowest computation cost so far (ties: the least bytes taken, then the lower id)
// among those where it fits; that GPU's cost is then the computation cost of its new set (cached).
// No cost_s is set. Not found when some sub-table fits on no GPU.
Placement greedy_place(const SubTableSet& set, std::span<const double> room_bytes, double max_dim,
                       ComputeCost& compute);

// Algorithm 2: every grid value's placement judged by `backend`; the lowest cost (ties: the
// earlier grid value). Not found when no grid value places every sub-table (`unplaced`: the
// least of the grid values').
Placement greedy_grid_search(const SubTableSet& set, std::span<const double> room_bytes,
                             const GridOptions& grid, ComputeCost& compute,
                             const PlanCostBackend& backend);

}  // namespace shardsim::neuroshard
