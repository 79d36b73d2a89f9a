#pragma once
// The `oper` planner's options and its whole pipeline as a function (for tests and benchmarks);
// make_oper_planner (plan/planners.hpp) makes the planner from its options (oper_planner_options).
#include <optional>

#include "plan/oper/data_parallel.hpp"
#include "plan/oper/oper_model.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::oper {

struct OperOptions {
  double threshold = 0.001;          // §4.1 partition threshold (access and footprint), §6.1
  double extra_memory_ratio = 0.05;  // §6.1: replicas may take 5% of the tables' footprint
  double balance_target = 0.9;       // §4.2 back-off until min(DoB of E, DoB of M) reaches it
  std::optional<Mode> mode;          // §4.3: training or inference; default the workload's
  // §4.3 training rule's unit: whole partitions (the paper) or each partition's hot rows.
  DuplicationUnit duplicate = DuplicationUnit::partitions;
  double headroom = 0;                               // fraction of HBM left free (common option)
  LookupComm communication = LookupComm::one_sided;  // §5 (common option `communication`)
};

Plan oper_plan(const PlanningContext& ctx, const OperOptions& options);

// The plan with what led to it: the final partitions (training cuts duplicated prefixes off),
// their placement (owners and every GPU's fetch path, OPER's P_k), and the back-off's outcome.
struct OperResult {
  Plan plan;
  std::vector<Partition> partitions;
  Placement placement;
  double threshold = 0;  // the partitioning threshold finally used
  int attempts = 0;      // partitionings tried (1 = no back-off)
  bool balance_reached = false;
};
OperResult oper_plan_detailed(const PlanningContext& ctx, const OperOptions& options);

}  // namespace shardsim::oper
