#pragma once
// The PlanEvaluator (plan/plan_evaluator.hpp) the runners hand to planners: a candidate plan's
// memory checked and, if it fits, the plan simulated with the scenario's inputs (the same
// analysis and engine as `shardsim run`); its mean measured iteration time.
#include "shardsim/hw/cluster.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/plan/plan_evaluator.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

class SimulatedPlanEvaluator final : public PlanEvaluator {
 public:
  SimulatedPlanEvaluator(const Cluster& cluster, const Scenario& scenario, const TraceSource& trace)
      : cluster_(cluster), scenario_(scenario), trace_(trace) {}
  double iteration_s(const Plan& plan) const override;

 private:
  const Cluster& cluster_;
  const Scenario& scenario_;
  const TraceSource& trace_;
};

}  // namespace shardsim
