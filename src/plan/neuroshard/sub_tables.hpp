#pragma once
// NeuroShard's column-wise sharding plan c = [c1, ..., cm] (§3.3, "Optimization problem
// formulation"): step i halves sub-table c_i column-wise, keeping the first half at index c_i
// and appending the second half to the end of the list. The sub-tables are what the table-wise
// step (greedy_grid.hpp) places whole.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "plan/packing.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::neuroshard {

struct SubTable {
  std::size_t table = 0;  // index into model.tables
  ColRange cols;          // its columns of that table
  std::uint32_t dim() const { return cols.size(); }
  // The identity the computation cost depends on: the table and the width (two column blocks of
  // one table with the same width cost the same). The cache keys on it.
  std::uint64_t cost_key() const { return (static_cast<std::uint64_t>(table) << 32) | dim(); }
};

// FBGEMM's kernels need dims divisible by 4 (§3.3), so a sub-table can be halved only when half
// its dim is a positive multiple of 4 (the released code's `shard_dim % 4` check).
bool can_halve(const SubTable& s);

// The sub-tables of a task with what the search needs of each: bytes on a GPU (weights,
// optimizer state and activations serving every GPU, as plan_memory counts them) and its single
// -table computation cost (its own fused kernel, forward + backward).
struct SubTableSet {
  std::vector<SubTable> subs;
  std::vector<double> bytes;
  std::vector<double> single_compute_s;
  std::uint64_t total_dim = 0;  // Σ dims: unchanged by halving
  std::size_t size() const { return subs.size(); }
};

class ComputeCost;  // cost_model.hpp

// Every table whole (the empty column plan), in model order.
SubTableSet initial_sub_tables(const PlanningContext& ctx, const MemoryBudget& budget,
                               ComputeCost& compute);
// `set` with sub-table `i` halved (can_halve must hold): the first half stays at `i`, the second
// is appended.
SubTableSet halved(const SubTableSet& set, std::size_t i, const MemoryBudget& budget,
                   ComputeCost& compute);

}  // namespace shardsim::neuroshard
