#pragma once
// Writers of plan statistics (plan/plan_stats.hpp): a text section a person scans in seconds
// (`shardsim plan --stats`, and the end of each text report) and a JSON object (the
// `plan_stats` key of each JSON report). Fields and rounding: docs/report.md, "Plan statistics".
#include <nlohmann/json.hpp>
#include <ostream>

#include "shardsim/plan/plan_stats.hpp"

namespace shardsim {

// The per-GPU table (first 8 and last 4 GPUs plus min/max rows when there are more than 16),
// the balance table and the totals, each line indented by `indent` spaces.
void write_plan_stats_text(std::ostream& out, const PlanStats& stats, int indent = 2);

// {"planner", "estimated_embedding_s", "alltoall_fwd_s", "alltoall_bwd_s",
// "estimated_degree_of_balance",
//  "shards_by_kind", "balance": {...}, "per_gpu": {column: [one value per GPU]}}.
nlohmann::ordered_json plan_stats_to_json(const PlanStats& stats);

}  // namespace shardsim
