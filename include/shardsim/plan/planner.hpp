#pragma once
// The planner interface and the registry of planners by name. Planners see the cluster, the
// model, the workload and the access profiles; never the engine.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_evaluator.hpp"
#include "shardsim/plan/plan_shape_bound.hpp"
#include "shardsim/plan/planner_options.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct PeerSyncPricing;  // plan/peer_sync_pricing.hpp

struct PlanningContext {
  const Cluster& cluster;
  const DlrmModel& model;
  const Workload& workload;
  const TraceSource& trace;  // for access profiles
  // The scenario's cost parameters, for planners that estimate costs with the cost model;
  // null means default_cost_params(). Read it through cost_params().
  const CostParams* cost = nullptr;
  // Simulates a candidate plan, for planners that search by simulated time; null where no
  // runner provides one (a planner that needs it says so with an InputError).
  const PlanEvaluator* evaluator = nullptr;
  // The 2D replica sync the plan will pay per byte a GPU holds, for an inner planner of `two_d`
  // with `sync_aware` (plan/peer_sync_pricing.hpp); null everywhere else. Planners that balance
  // a time per GPU (hybrid, torchrec) add each shard's share (peer_sync_time_s).
  const PeerSyncPricing* peer_sync = nullptr;
  // Whether the run hands the sparse features' indices to the GPUs serving them by an input
  // AlltoAll (`simulation.pipeline.input_alltoall` other than `none`; Neo §4.2, §7.1). Then
  // estimate_shard_cost prices the indices a shard receives (ShardCost::input_comm_s).
  bool input_alltoall = true;
  // The GPU the scenario runs the bottom MLP on for the global batch (`placement.bottom_mlp_gpu`,
  // checked by scenario_bottom_mlp_gpu before planning; -1: data parallel). MemoryBudget counts
  // what that moves (bottom_mlp_memory_delta_bytes), so a plan fits with it; planners that place
  // the bottom MLP themselves (nvidia_dlrm) read it too.
  int bottom_mlp_gpu = -1;

  const CostParams& cost_params() const;
};

class Planner {
 public:
  virtual ~Planner() = default;
  virtual std::string name() const = 0;
  virtual Plan plan(const PlanningContext& ctx) const = 0;
  // What can be checked before planning: the options against the cluster and the workload (an
  // InputError at the option's key). `validate` calls it, so a scenario that validates does not
  // fail at plan time on its options.
  virtual void check(const Cluster& cluster, const Workload& workload) const {
    (void)cluster;
    (void)workload;
  }
};

struct PlannerInfo {
  std::string name;
  std::string summary;
  // Its options (plan/planner_options.hpp; planner_schema adds the common ones).
  OptionSchema options;
  // Builds the planner from options of that schema; what only the planner can check (an option
  // against another) is an InputError at the option.
  std::function<std::unique_ptr<Planner>(const PlannerOptions& options)> make;
  // Bounds on the plans it makes, for the resource guard (plan/plan_shape_bound.hpp).
  std::function<PlanShapeBound(const PlanShapeInput& in)> shape_bound = worst_case_shape;
  // Whether it balances 2D's replica sync when two_d hands it a PlanningContext::peer_sync
  // (two_d's `sync_aware`); two_d warns when its inner planner does not.
  bool balances_peer_sync = false;
};

const std::vector<PlannerInfo>& planner_registry();
std::vector<std::string> planner_names();
// An unknown name is an InputError with a "did you mean" at `where`.
const PlannerInfo& find_planner(const std::string& name, const SourceLocation& where,
                                const std::string& key);

// A planner made in code (a planner that runs another, tests, benchmarks) from typed values:
// {{"groups", 2}, {"inner", "table_wise"}}. A value its schema does not take is a
// std::invalid_argument; input is read by io/planner_options_reader.hpp.
PlannerOptions planner_options_of(const std::string& name, OptionValues values = {});
std::unique_ptr<Planner> make_planner(const std::string& name, OptionValues values = {});

}  // namespace shardsim
