#include "shardsim/run/simulated_plan_evaluator.hpp"

#include <limits>
#include <numeric>

#include "shardsim/core/error.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

double SimulatedPlanEvaluator::iteration_s(const Plan& plan) const {
  const PlanAnalysis analysis =
      analyze_plan(plan, cluster_, scenario_.model, scenario_.workload, trace_, scenario_.cost);
  try {
    check_fits(analysis.memory, cluster_);
  } catch (const DoesNotFitError&) {
    return std::numeric_limits<double>::infinity();
  }
  const SimulationInputs inputs{cluster_, scenario_.model, scenario_.workload,  plan,
                                trace_,   scenario_.cost,  scenario_.simulation};
  const std::vector<double> times = iteration_times_s(simulate(inputs, analysis));
  if (times.empty()) return std::numeric_limits<double>::infinity();
  return std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
}

}  // namespace shardsim
