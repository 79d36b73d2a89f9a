#pragma once
// Runs warm-up + measured iterations of a plan through the engine.
#include <vector>

#include "shardsim/sim/engine.hpp"
#include "shardsim/sim/iteration_builder.hpp"

namespace shardsim {

struct SimulationResult {
  TaskGraph graph;
  Timeline timeline;
  std::vector<IterationTasks> iterations;  // warm-up first, then the measured ones
  int warmup = 0;
  CommTraffic comm;  // the pooled-embedding traffic per iteration
  PeerSyncs syncs;   // the plan's replica synchronisation (plan/replica_sync.hpp)
};

SimulationResult simulate(const SimulationInputs& inputs);
// The same with the plan's analysis (computed with the same inputs) already made.
SimulationResult simulate(const SimulationInputs& inputs, const PlanAnalysis& analysis);

}  // namespace shardsim
