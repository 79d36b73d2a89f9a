#include "shardsim/run/run_scenario.hpp"

#include <cmath>
#include <filesystem>
#include <optional>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/plan/sync_window.hpp"
#include "shardsim/run/scenario_plans.hpp"

namespace shardsim {

namespace {

// Simulates the scenario's plans one at a time (each is simulated before the next is made, so a
// plan's memory is freed early): `next` gives the next ScenarioPlan, or nullopt when done.
template <class Next>
std::vector<Report> simulate_plans(const Scenario& scenario, const ScenarioPlanner& planner,
                                   const RunOptions& options, Next&& next) {
  const Cluster& cluster = planner.cluster();
  const TraceSource& trace = planner.trace();
  const ReportHeader header{scenario.name, scenario.source, options.sweep_point};
  std::vector<Report> reports;

  // A valid plan: memory, plan statistics, then the simulation (unless it does not fit).
  auto simulate_plan = [&](const Plan& plan) {
    check_plan(scenario, plan, options.plan_guard);  // before its analysis allocates
    const SimulationInputs inputs{cluster, scenario.model, scenario.workload,  plan,
                                  trace,   scenario.cost,  scenario.simulation};
    // Computed once: memory, serving map, syncs and one-sided traffic for the statistics, the
    // simulation and the report (plan/plan_analysis.hpp).
    const PlanAnalysis analysis =
        analyze_plan(plan, cluster, scenario.model, scenario.workload, trace, scenario.cost);
    const std::vector<GpuMemory>& memory = analysis.memory;
    PlanStats stats = compute_plan_stats(plan, analysis, cluster, scenario.model, scenario.workload,
                                         trace, scenario.cost);
    try {
      check_fits(memory, cluster);
    } catch (const DoesNotFitError& e) {
      log_warn("{}: {}", plan.planner, e.what());
      reports.push_back(build_unfit_report(header, inputs, analysis, e));
      if (!options.record_timings) reports.back().planning_time_s = std::nan("");
      reports.back().plan_stats = std::move(stats);
      return;
    }
    // Refused before the simulation, not after it (the report would refuse it too).
    check_sync_window(plan, scenario.workload, scenario.source);
    const SimulationResult result = simulate(inputs, analysis);
    if (options.on_simulated) options.on_simulated(inputs, result);
    reports.push_back(build_report(header, inputs, result, memory));
    if (!options.record_timings) reports.back().planning_time_s = std::nan("");
    reports.back().plan_stats = std::move(stats);
  };

  while (std::optional<ScenarioPlan> p = next()) {
    if (p->plan) {
      simulate_plan(*p->plan);
    } else {
      log_warn("{}: {}", p->planner, p->unplaced->what());
      reports.push_back(build_unplaced_report(header, p->planner, cluster, scenario.model,
                                              scenario.workload, *p->unplaced));
    }
  }
  for (Report& r : reports) {
    r.input_hashes = scenario.hashes;
    r.scenario_values = scenario.values;
    if (scenario.cluster.price_per_gpu_hour > 0) {
      r.cost =
          report_cost(r, scenario.cluster.price_per_gpu_hour, scenario.workload.dataset_samples);
    }
  }
  return reports;
}

}  // namespace

std::vector<Report> run_scenario(const Scenario& scenario, const RunOptions& options) {
  const ScenarioPlanner planner(scenario);
  std::size_t i = 0;
  const std::size_t planners = scenario.placement.planners.size();
  const bool file = !scenario.placement.plan_file.empty();
  return simulate_plans(scenario, planner, options, [&]() -> std::optional<ScenarioPlan> {
    const std::size_t k = i++;
    if (k < planners) return planner.plan_with(scenario.placement.planners[k], "placement.planner");
    if (k == planners && file) return planner.plan_file();
    return std::nullopt;
  });
}

std::vector<Report> run_scenario_plans(const Scenario& scenario, std::vector<Plan> plans,
                                       const RunOptions& options) {
  const ScenarioPlanner planner(scenario);
  std::size_t i = 0;
  return simulate_plans(scenario, planner, options, [&]() -> std::optional<ScenarioPlan> {
    if (i == plans.size()) return std::nullopt;
    return planner.given(std::move(plans[i++]));
  });
}

std::size_t report_count(const Scenario& scenario) {
  return scenario.placement.planners.size() + (scenario.placement.plan_file.empty() ? 0 : 1);
}

std::string plan_file_planner_name(const std::string& path) {
  return "file:" + std::filesystem::path(path).filename().string();
}

}  // namespace shardsim
