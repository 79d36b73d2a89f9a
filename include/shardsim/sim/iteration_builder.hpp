#pragma once
// Plan x Cluster x Model x batch sample -> the task DAG of one iteration (DESIGN.md §2).
// Training follows Neo App. B Eq. 1 with the pipelining options of Neo §4.2; inference is the
// forward pass only. Three parts, one file each: what the plan fixes (plan_traffic.hpp: the
// collectives, dense times, link capacities, reported traffic), what each iteration's trace draw
// gives (iteration_draw.hpp: lookups, kernel times, input traffic) and the DAG they make
// (iteration_dag.hpp). Durations and network demands come from the cost model (pure functions).
#include <optional>
#include <vector>

#include "shardsim/hw/level_table.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/comm_traffic.hpp"
#include "shardsim/sim/iteration_dag.hpp"
#include "shardsim/sim/iteration_draw.hpp"
#include "shardsim/sim/plan_traffic.hpp"
#include "shardsim/sim/simulation_inputs.hpp"
#include "shardsim/sim/task.hpp"

namespace shardsim {

class IterationBuilder {
 public:
  // Keeps references to the cluster, model, workload, plan and trace of `in` (they must outlive
  // the builder) and to `analysis` (the plan's, computed with in's inputs), and copies of the
  // cost parameters and options. Bad options (a straggler on a GPU the cluster lacks, per-flow
  // sharing on too many GPUs) are std::invalid_argument: the scenario loader reports them as
  // input errors first.
  IterationBuilder(const SimulationInputs& in, const PlanAnalysis& analysis);
  // The same, analysing the plan itself.
  explicit IterationBuilder(const SimulationInputs& in);
  // Not copyable or movable: `in_.cost` refers to this object's own `cost_`.
  IterationBuilder(const IterationBuilder&) = delete;
  IterationBuilder& operator=(const IterationBuilder&) = delete;

  // Appends iteration `iteration`'s tasks to `graph`; its first tasks on each GPU depend on
  // `previous`'s last tasks on that GPU (nullptr for the first iteration).
  IterationTasks append(TaskGraph& graph, int iteration, const IterationTasks* previous) const;

  // The pooled-embedding traffic per iteration (forward: owner -> requester; backward: the
  // gradients of the same vectors). It does not depend on the trace: every sample has one bag
  // per table.
  const CommTraffic& comm() const { return traffic_.comm; }
  const ServingMap& serving() const { return analysis_.serving; }
  // The replica synchronisation of the plan (gradient AllReduces, 2D peer syncs).
  const PeerSyncs& replica_syncs() const { return analysis_.peer_syncs; }
  // The capacity of each link for the engine (bandwidth x collective efficiency).
  const std::vector<double>& link_capacity_Bps() const { return traffic_.link_capacity_Bps; }

 private:
  // Multiplies kernel times of `gpu` in `iteration` (stragglers and jitter).
  double slowdown(int gpu, int iteration) const;

  const CostParams cost_;  // the builder's own copy; `in_.cost` refers to it
  const SimulationInputs in_;
  std::optional<PlanAnalysis> owned_analysis_;
  const PlanAnalysis& analysis_;
  LevelTable levels_;
  std::vector<double> slowdown_by_gpu_;
  PlanTraffic traffic_;
  // Filled by append() (the same values whichever iterations are built, and in which order).
  mutable ReplicaDistinctMemo distinct_memo_;
  // The draw before slowdowns, when the trace's draws are the same every iteration (expected
  // mode): drawn by the first append(), reused by the others.
  mutable std::optional<IterationDraw> repeated_draw_;
};

}  // namespace shardsim
