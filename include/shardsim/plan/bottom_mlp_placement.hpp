#pragma once
// A scenario's `placement.bottom_mlp_gpu` applied to a plan (Plan::bottom_mlp_gpu): every plan
// the scenario simulates, from a planner or a plan file, runs its bottom MLP on that GPU.
#include <string>

#include "shardsim/core/error.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// Sets plan.bottom_mlp_gpu to `gpu` (nothing when gpu is -1) and checks it
// (check_bottom_mlp_gpu). A plan that already places its bottom MLP on another GPU (a plan
// file's `bottom_mlp_gpu`) is an InputError at `where`, as is a GPU the cluster lacks.
void place_bottom_mlp(Plan& plan, int gpu, const SourceLocation& where, const DlrmModel& model,
                      int num_gpus);

}  // namespace shardsim
