#pragma once
// Upper bounds on the shape of the plan a planner makes, from the scenario's shape alone, so the
// resource guard (io/resource_estimate.cpp) can size a run before any plan is made. Each planner
// declares its own in its PlannerInfo (plan/planner.hpp); tests/plan/plan_shape_bound_test.cpp
// checks every registered planner's bound against the plans it actually makes.
#include <limits>

#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

// The scenario's shape: all a bound may depend on.
struct PlanShapeInput {
  double tables = 0;         // T
  double gpus = 0;           // N
  double gpus_per_node = 0;  // G
  double column_blocks = 0;  // sum over tables of ceil(dim / 4): most column shards possible
  // Weights and optimizer state of every table, and what each GPU's HBM has left for them
  // before any headroom (HBM less what every GPU holds before any shard); 0 when unknown.
  double table_bytes = 0;
  double hbm_bytes_per_gpu = 0;
  double base_bytes_per_gpu = 0;
  // The planner's options (run/planner_options.hpp), of its schema; a bound reads only them.
  PlannerOptions options;
};

struct PlanShapeBound {
  double max_shards = 0;            // shards (replicas counted) in the plan
  double max_blocks_per_table = 0;  // distinct row ranges one table may be cut into
  bool may_replicate = true;        // whether a block may be held by several GPUs
  // Tables with a replicated block, at most (the scenario's table count caps it).
  double max_replicated_tables = std::numeric_limits<double>::infinity();
  // A bound far above the plans the planner makes (hybrid's T x N: any table may end up
  // row-wise): the resource guard then counts only the plan's own shards before planning and
  // the rest of the plan's memory once the plan exists, from its shape (plan_shape_of;
  // run/resource_guard.hpp, check_plan).
  bool checked_after_planning = false;
};

// The shape of a model on `nodes` nodes of `preset` (options left empty). From the preset
// alone: the resource guard sizes every loaded scenario and planner without building a cluster.
PlanShapeInput plan_shape_input(const HardwarePreset& preset, int nodes, const DlrmModel& model,
                                const Workload& workload);

// The shape of a plan that exists: its shards, the most row ranges of one table (counted as its
// first-column blocks of replica 0: one per row range), whether a block has replicas and in how
// many tables. A bound every planner's own bound must hold (tests/plan/plan_shape_bound_test.cpp).
struct Plan;
PlanShapeBound plan_shape_of(const Plan& plan);

// The bound of a plan nothing is known about (plan files, planners without a bound): T x N
// shards, N row blocks a table, replicas.
PlanShapeBound worst_case_shape(const PlanShapeInput& in);

}  // namespace shardsim
