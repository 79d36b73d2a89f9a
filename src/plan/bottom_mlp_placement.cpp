// A scenario's bottom MLP placement applied to a plan (plan/bottom_mlp_placement.hpp).
#include "shardsim/plan/bottom_mlp_placement.hpp"

#include <fmt/format.h>

#include "shardsim/plan/plan_validation.hpp"

namespace shardsim {

void place_bottom_mlp(Plan& plan, int gpu, const SourceLocation& where, const DlrmModel& model,
                      int num_gpus) {
  if (gpu == -1) return;
  const std::string key = "placement.bottom_mlp_gpu";
  if (plan.bottom_mlp_gpu >= 0 && plan.bottom_mlp_gpu != gpu) {
    throw InputError(where, key,
                     fmt::format("the plan '{}' runs its bottom MLP on GPU {}, this key on GPU {}",
                                 plan.planner, plan.bottom_mlp_gpu, gpu),
                     "give the GPU in one place: the plan file's bottom_mlp_gpu or this key");
  }
  plan.bottom_mlp_gpu = gpu;
  check_bottom_mlp_gpu(plan, model, num_gpus, where, key);
}

int scenario_bottom_mlp_gpu(int gpu, const SourceLocation& where, const DlrmModel& model,
                            int num_gpus) {
  if (gpu == -1) return -1;
  Plan probe;
  probe.bottom_mlp_gpu = gpu;
  check_bottom_mlp_gpu(probe, model, num_gpus, where, "placement.bottom_mlp_gpu");
  return gpu;
}

}  // namespace shardsim
