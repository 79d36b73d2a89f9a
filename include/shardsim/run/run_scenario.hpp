#pragma once
// Scenario -> plan -> tasks -> events -> metrics -> reports: one report per planner, in the
// order the scenario lists them. The library's entry point for one loaded scenario; many runs
// (sweep points, seeds) go through run/scenario_runs.hpp.
#include <functional>
#include <string>
#include <vector>

#include "shardsim/io/scenario.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

struct RunOptions {
  std::string sweep_point;      // label of the sweep point, empty if none
  bool record_timings = false;  // put wall-clock planning time into the reports
  // Called with every simulated plan (e.g. to write its Chrome trace); may be empty.
  std::function<void(const SimulationInputs&, const SimulationResult&)> on_simulated;
  // The resource guard's second look at each plan before it is simulated (check_runs returns
  // it); by default none.
  PlanGuard plan_guard{};
};

// Runs every planner of the scenario, then the plan of `placement.file` if any (its report's
// planner is plan_file_planner_name). Every report of a plan carries its plan statistics. A plan
// that does not fit in memory yields a report with fits_in_memory = false and fit_error set, and is
// not simulated. Bad input throws InputError.
std::vector<Report> run_scenario(const Scenario& scenario, const RunOptions& options = {});

// The reports of `plans` (made elsewhere: a TorchRec plan, a plan the Python module holds), each
// validated against the scenario and simulated as run_scenario simulates a planner's plan, in
// order; the scenario's own planners and plan file are not run. A plan's `planner` names it.
std::vector<Report> run_scenario_plans(const Scenario& scenario, std::vector<Plan> plans,
                                       const RunOptions& options = {});

// The reports run_scenario returns for `scenario`: one per planner, one for placement.file.
std::size_t report_count(const Scenario& scenario);

// "file:<file name>": how reports name the plan of `placement.file`.
std::string plan_file_planner_name(const std::string& path);

}  // namespace shardsim
