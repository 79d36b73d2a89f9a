#pragma once
// Factories of the built-in planners (one source file each under src/plan/, documented in
// docs/planners.md). Each reads its options through PlannerOptions (planner_options.hpp), which
// also accepts the options common to all planners; unknown keys are InputErrors.
#include <memory>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

std::unique_ptr<Planner> make_random_planner(const YamlValue& options);
std::unique_ptr<Planner> make_round_robin_planner(const YamlValue& options);
std::unique_ptr<Planner> make_table_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_row_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_column_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_data_parallel_planner(const YamlValue& options);
std::unique_ptr<Planner> make_table_row_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_table_column_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_karmarkar_karp_planner(const YamlValue& options);
std::unique_ptr<Planner> make_memory_greedy_planner(const YamlValue& options);
std::unique_ptr<Planner> make_access_greedy_planner(const YamlValue& options);
std::unique_ptr<Planner> make_hybrid_planner(const YamlValue& options);
std::unique_ptr<Planner> make_oper_planner(const YamlValue& options);
// About 2/threshold + T partitions, each possibly copied to every GPU (training, Eq. 4-5).
PlanShapeBound oper_shape_bound(const PlanShapeInput& in);
std::unique_ptr<Planner> make_two_d_planner(const YamlValue& options);
std::unique_ptr<Planner> make_torchrec_planner(const YamlValue& options);
std::unique_ptr<Planner> make_neuroshard_planner(const YamlValue& options);
std::unique_ptr<Planner> make_nvidia_dlrm_planner(const YamlValue& options);

}  // namespace shardsim
