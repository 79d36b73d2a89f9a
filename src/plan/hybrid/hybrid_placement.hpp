// The hybrid planner's partitioning step (step 4 of hybrid_planner.cpp): placing one candidate's
// parts on GPUs with room, or saying how close it came.
#pragma once

#include <optional>

#include "hybrid_candidates.hpp"
#include "shardsim/plan/packing.hpp"

namespace shardsim::hybrid {

// Where a candidate did not fit: the GPU closest to having room, and what it would hold.
struct Shortfall {
  int gpu = -1;
  double needed_bytes = 0;
};

// Keeps in `s` whichever is closer to fitting: `s` or `bytes` more on `gpu`.
void note_shortfall(Shortfall& s, const MemoryBudget& budget, int gpu, double bytes);

// Places every part of `c` (fixed GPUs, one node, or each on the least-loaded GPU with room).
// Changes nothing and says where it fell short when some part has no room.
std::optional<Shortfall> try_place(const Candidate& c, const PlanningContext& ctx,
                                   MemoryBudget& budget, LoadTracker& loads, Plan& plan);

}  // namespace shardsim::hybrid
