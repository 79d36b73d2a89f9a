#pragma once
// Factories of the built-in planners (one source file each under src/plan/).
#include <memory>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

// Rejects any option (for planners that take none); null options are fine.
void expect_no_options(const YamlValue& options);

std::unique_ptr<Planner> make_table_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_row_wise_planner(const YamlValue& options);
std::unique_ptr<Planner> make_data_parallel_planner(const YamlValue& options);

}  // namespace shardsim
