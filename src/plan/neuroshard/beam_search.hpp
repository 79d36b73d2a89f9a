#pragma once
// NeuroShard's column-wise step, Algorithm 1 (§3.3 "Column-wise sharding with beam search"):
// L steps; at each, every one of the K best column plans so far is extended by halving one
// candidate sub-table (the N costliest and the N largest, duplicates removed), each extension
// placed by the greedy grid search (greedy_grid.hpp); the K cheapest extensions seed the next
// step; the cheapest plan seen overall wins. Step 0 is the plan with no split. Extensions the
// grid cannot place rank after those it can, by how far they are from fitting (the share the
// greedy could not place plus how far sub-tables exceed the largest max device dim and a GPU's
// room), smallest first: our choice, where the paper ranks them alike.
#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "plan/neuroshard/greedy_grid.hpp"

namespace shardsim::neuroshard {

struct BeamOptions {
  int candidates = 10;  // N
  int beam_width = 3;   // K
  int steps = 10;       // L (0: no column-wise sharding, Table 3's "w/o beam search")
  GridOptions grid;     // M and the grid's range
  // Stop when this instant passes and return the best plan so far (the plan with no split is
  // always searched first).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct SearchResult {
  std::vector<std::size_t> column_plan;  // c*: the sub-table halved at each step
  SubTableSet tables;                    // the sub-tables of c*
  Placement placement;                   // t*, with its cost
  int inner_searches = 0;                // greedy grid searches run
  int steps_done = 0;                    // beam steps completed
  bool stopped_by_deadline = false;
};

// The candidates of a column plan's sub-tables: the indices of the `n` costliest (single-table
// computation cost) and the `n` largest (bytes), merged, ascending, keeping those that can be
// halved. Ranking ties go to the lower index. All sub-tables when there are at most `n`.
std::vector<std::size_t> split_candidates(const SubTableSet& set, int n);

SearchResult beam_search(const PlanningContext& ctx, const MemoryBudget& budget,
                         const BeamOptions& o, ComputeCost& compute,
                         const PlanCostBackend& backend);

}  // namespace shardsim::neuroshard
