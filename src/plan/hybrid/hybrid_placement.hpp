// The hybrid planner's partitioning step (step 4 of hybrid_planner.cpp): placing one candidate's
// parts on GPUs with room, or saying how close it came.
#pragma once

#include <optional>

#include "plan/hybrid/hybrid_candidates.hpp"
#include "plan/packing.hpp"

namespace shardsim::hybrid {

// Where a candidate did not fit: the GPU closest to having room, and what it would hold.
struct Shortfall {
  int gpu = -1;
  double needed_bytes = 0;
};

// Keeps in `s` whichever is closer to fitting: `s` or `bytes` more on `gpu`.
void note_shortfall(Shortfall& s, const MemoryBudget& budget, int gpu, double bytes);

// Which GPU (or node) with room takes a part: the least loaded (estimated time; the planner's
// first pass), or the one with the most free memory (its memory-first retry near capacity).
enum class Rule { least_loaded, most_free };

// Places every part of `c` (fixed GPUs, one node, or each on a GPU with room, by `rule`).
// Changes nothing and says where it fell short when some part has no room.
std::optional<Shortfall> try_place(const Candidate& c, const PlanningContext& ctx,
                                   MemoryBudget& budget, LoadTracker& loads, Plan& plan,
                                   Rule rule = Rule::least_loaded);

}  // namespace shardsim::hybrid
