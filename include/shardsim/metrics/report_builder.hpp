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
