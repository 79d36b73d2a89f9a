#pragma once
// The built-in planners (one source file each under src/plan/, documented in docs/planners.md):
// each declares its options (plan/planner_options.hpp; planner_schema adds the common ones) and
// its factory, which takes options of that schema.
#include <memory>

#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

OptionSchema random_planner_options();
std::unique_ptr<Planner> make_random_planner(const PlannerOptions& options);
OptionSchema round_robin_planner_options();
std::unique_ptr<Planner> make_round_robin_planner(const PlannerOptions& options);
OptionSchema table_wise_planner_options();
std::unique_ptr<Planner> make_table_wise_planner(const PlannerOptions& options);
OptionSchema row_wise_planner_options();
std::unique_ptr<Planner> make_row_wise_planner(const PlannerOptions& options);
OptionSchema column_wise_planner_options();
std::unique_ptr<Planner> make_column_wise_planner(const PlannerOptions& options);
OptionSchema data_parallel_planner_options();
std::unique_ptr<Planner> make_data_parallel_planner(const PlannerOptions& options);
OptionSchema table_row_wise_planner_options();
std::unique_ptr<Planner> make_table_row_wise_planner(const PlannerOptions& options);
OptionSchema table_column_wise_planner_options();
std::unique_ptr<Planner> make_table_column_wise_planner(const PlannerOptions& options);
OptionSchema karmarkar_karp_planner_options();
std::unique_ptr<Planner> make_karmarkar_karp_planner(const PlannerOptions& options);
OptionSchema memory_greedy_planner_options();
std::unique_ptr<Planner> make_memory_greedy_planner(const PlannerOptions& options);
OptionSchema access_greedy_planner_options();
std::unique_ptr<Planner> make_access_greedy_planner(const PlannerOptions& options);
OptionSchema hybrid_planner_options();
std::unique_ptr<Planner> make_hybrid_planner(const PlannerOptions& options);
OptionSchema oper_planner_options();
std::unique_ptr<Planner> make_oper_planner(const PlannerOptions& options);
// About 2/threshold + T partitions, each possibly copied to every GPU (training, Eq. 4-5).
PlanShapeBound oper_shape_bound(const PlanShapeInput& in);
OptionSchema two_d_planner_options();
std::unique_ptr<Planner> make_two_d_planner(const PlannerOptions& options);
OptionSchema torchrec_planner_options();
std::unique_ptr<Planner> make_torchrec_planner(const PlannerOptions& options);
OptionSchema neuroshard_planner_options();
std::unique_ptr<Planner> make_neuroshard_planner(const PlannerOptions& options);
OptionSchema nvidia_dlrm_planner_options();
std::unique_ptr<Planner> make_nvidia_dlrm_planner(const PlannerOptions& options);

}  // namespace shardsim
