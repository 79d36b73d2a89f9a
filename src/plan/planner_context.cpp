#include "shardsim/plan/planner.hpp"

namespace shardsim {

const CostParams& PlanningContext::cost_params() const {
  static const CostParams defaults = default_cost_params();
  return cost ? *cost : defaults;
}

}  // namespace shardsim
