#pragma once
// A full simulation of a candidate plan, for planners that search by simulated time
// (`neuroshard`'s `simulation` backend). Declared here, implemented where the engine is visible
// (run/simulated_plan_evaluator.hpp), and handed to planners through PlanningContext: planners
// see this interface, never the engine.
#include "shardsim/plan/plan.hpp"

namespace shardsim {

class PlanEvaluator {
 public:
  virtual ~PlanEvaluator() = default;
  // The plan's mean simulated iteration time in seconds; +infinity when it does not fit in
  // memory.
  virtual double iteration_s(const Plan& plan) const = 0;
};

}  // namespace shardsim
