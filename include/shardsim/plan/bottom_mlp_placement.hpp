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

// The scenario's bottom MLP GPU for PlanningContext::bottom_mlp_gpu, checked before any planner
// runs (check_bottom_mlp_gpu on a plan that holds nothing else): a GPU the cluster lacks, or a
// model without a bottom MLP, is an InputError at `where`. -1 (data parallel) passes through.
int scenario_bottom_mlp_gpu(int gpu, const SourceLocation& where, const DlrmModel& model,
                            int num_gpus);

}  // namespace shardsim
