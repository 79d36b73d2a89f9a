#pragma once
// The default cost parameters under the ideal (α-β) collective model: the hand formulas of
// docs/model.md, "Collectives", hold exactly. Tests of the nccl model set it themselves.
#include "shardsim/cost/cost_params.hpp"

namespace shardsim {

inline CostParams ideal_default_cost_params() {
  CostParams p = default_cost_params();
  p.collective_model = CollectiveModelKind::ideal;
  return p;
}

}  // namespace shardsim
