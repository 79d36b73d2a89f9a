#pragma once
// Checks that a plan serves every row and column of every table exactly once per replica:
// GPU ids in range, shard bounds inside the table, column bounds on multiples of 4 (or the
// table's last column), one row space per table, the row blocks of each table partition its
// rows, the column ranges of each row block partition its columns, no two replicas of a block
// on one GPU, groups that partition the GPUs, fetch overrides that name a replica and a GPU.
// A bad plan is an InputError naming the plan (a file: with the line of the shard or table at
// fault), the table and the rows at fault.
#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// Where a plan came from, for messages. A plan read from a file knows the line of each shard
// and of each table's entry; a planner's plan only has a name.
struct PlanSource {
  std::string name;                             // a file path, or "plan from planner 'x'"
  std::vector<SourceLocation> shard_locations;  // per Plan::shards index; empty if unknown
  std::vector<std::string> shard_keys;          // per shard, e.g. "tables.ads[2]"; empty if unknown
  std::vector<SourceLocation> table_locations;  // per model table; empty if unknown
  SourceLocation groups_location;
  std::vector<SourceLocation> fetch_locations;  // per fetch override; empty if unknown
  SourceLocation bottom_mlp_location;           // where bottom_mlp_gpu was written
  std::string bottom_mlp_key = "bottom_mlp_gpu";
};

void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const PlanSource& source);
// Only Plan::bottom_mlp_gpu (part of validate_plan): an InputError at `where`/`key` when the GPU
// does not exist, the model has no bottom MLP, or the plan has sparse groups or is one-sided.
void check_bottom_mlp_gpu(const Plan& plan, const DlrmModel& model, int num_gpus,
                          const SourceLocation& where, const std::string& key);
void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const std::string& source);

}  // namespace shardsim
