#include "run/simulated_plan_evaluator.hpp"

#include <limits>
#include <numeric>
#include <optional>

#include "shardsim/core/error.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

double SimulatedPlanEvaluator::iteration_s(const Plan& candidate) const {
  // The scenario's bottom MLP placement, as the chosen plan will be simulated with it
  // (run_scenario); a candidate that cannot take it (sparse groups, one-sided) keeps its own.
  const int bottom_gpu = scenario_.placement.bottom_mlp_gpu;
  std::optional<Plan> placed;
  if (bottom_gpu >= 0 && candidate.bottom_mlp_gpu < 0 && candidate.groups.empty() &&
      candidate.lookup_comm == LookupComm::pooled) {
    placed = candidate;
    placed->bottom_mlp_gpu = bottom_gpu;
  }
  const Plan& plan = placed ? *placed : candidate;
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
