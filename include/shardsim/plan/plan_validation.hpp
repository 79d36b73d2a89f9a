#pragma once
// Checks that a plan serves every row and column of every table exactly once per replica:
// GPU ids in range, shard bounds inside the table, the row blocks of each table partition its
// rows, and the column ranges of each row block partition its columns. A bad plan is an
// InputError naming the table and the rows at fault (`source` names the plan, e.g. a file).
#include <string>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const std::string& source);

}  // namespace shardsim
