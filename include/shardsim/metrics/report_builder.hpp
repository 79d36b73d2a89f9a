#pragma once
// Timeline + plan + memory -> Report, with the exact metric definitions of DESIGN.md §6.
#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

struct ReportHeader {
  std::string scenario;
  std::string scenario_source;
  std::string sweep_point;
};

// Percentile of `values` with linear interpolation between closest ranks (q in [0, 1]).
double percentile(std::vector<double> values, double q);

// Wall time of each measured iteration: the increase of the latest GPU's finish time over the
// previous iteration's (so delays that accumulate across iterations are counted once).
std::vector<double> iteration_times_s(const SimulationResult& result);

// Refuses a plan whose replica sync (2D, two or more groups, training) cannot be measured
// fairly: its interval must divide the measured iterations (`workload.iterations`), else the
// window holds no sync or a part interval and the QPS would omit or misstate the sync's cost
// (issue 18). An InputError at `source`, key placement.options.sync_interval, with the iteration
// count to use. Known before the simulation: run_scenario calls it first; build_report again.
void check_sync_window(const Plan& plan, const Workload& workload, const std::string& source);

// A report of a plan that was simulated.
Report build_report(const ReportHeader& header, const SimulationInputs& inputs,
                    const SimulationResult& result, const std::vector<GpuMemory>& memory);

// A report of a plan that does not fit: memory and communication, no timings.
Report build_unfit_report(const ReportHeader& header, const SimulationInputs& inputs,
                          const PlanAnalysis& analysis, const DoesNotFitError& error);

// A report for a planner that could not place the tables at all: no plan, no timings.
Report build_unplaced_report(const ReportHeader& header, const std::string& planner,
                             const Cluster& cluster, const DlrmModel& model,
                             const Workload& workload, const DoesNotFitError& error);

}  // namespace shardsim
