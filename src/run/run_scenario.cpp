#include "shardsim/run/run_scenario.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/bottom_mlp_placement.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/run/planner_options.hpp"
#include "shardsim/run/simulated_plan_evaluator.hpp"

namespace shardsim {

std::vector<Report> run_scenario(const Scenario& scenario, const RunOptions& options) {
  const Cluster cluster(scenario.cluster.preset, scenario.cluster.nodes);
  const auto trace = make_trace_source(scenario.model, scenario.workload);
  const ReportHeader header{scenario.name, scenario.source, options.sweep_point};
  std::vector<Report> reports;

  // A valid plan: memory, plan statistics, then the simulation (unless it does not fit).
  auto simulate_plan = [&](const Plan& plan) {
    const SimulationInputs inputs{cluster, scenario.model, scenario.workload,  plan,
                                  *trace,  scenario.cost,  scenario.simulation};
    // Computed once: memory, serving map, syncs and one-sided traffic for the statistics, the
    // simulation and the report (plan/plan_analysis.hpp).
    const PlanAnalysis analysis =
        analyze_plan(plan, cluster, scenario.model, scenario.workload, *trace, scenario.cost);
    const std::vector<GpuMemory>& memory = analysis.memory;
    PlanStats stats = compute_plan_stats(plan, analysis, cluster, scenario.model, scenario.workload,
                                         *trace, scenario.cost);
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

  const int bottom_mlp_gpu = scenario_bottom_mlp_gpu(scenario.placement.bottom_mlp_gpu,
                                                     scenario.placement.bottom_mlp_location,
                                                     scenario.model, cluster.num_gpus());
  for (const std::string& name : scenario.placement.planners) {
    const PlannerInfo& info =
        find_planner(name, SourceLocation{scenario.source, 0, 0}, "placement.planner");
    const auto planner = info.make(planner_options(scenario.placement, name));
    const SimulatedPlanEvaluator evaluator(cluster, scenario, *trace);
    PlanningContext ctx{cluster, scenario.model, scenario.workload,
                        *trace,  &scenario.cost, &evaluator};
    ctx.input_alltoall = scenario.simulation.input_alltoall != InputAlltoall::none;
    ctx.bottom_mlp_gpu = bottom_mlp_gpu;
    const auto t0 = std::chrono::steady_clock::now();
    Plan plan;
    try {
      plan = planner->plan(ctx);
    } catch (const DoesNotFitError& e) {
      log_warn("{}: {}", name, e.what());
      reports.push_back(
          build_unplaced_report(header, name, cluster, scenario.model, scenario.workload, e));
      continue;
    }
    plan.planning_time_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    plan.planner = name;
    validate_plan(plan, cluster, scenario.model, "plan from planner '" + name + "'");
    place_bottom_mlp(plan, scenario.placement.bottom_mlp_gpu,
                     scenario.placement.bottom_mlp_location, scenario.model, cluster.num_gpus());
    simulate_plan(plan);
  }
  if (!scenario.placement.plan_file.empty()) {
    Plan plan = read_plan_file(scenario.placement.plan_file, scenario.model, cluster);
    plan.planner = plan_file_planner_name(scenario.placement.plan_file);
    place_bottom_mlp(plan, scenario.placement.bottom_mlp_gpu,
                     scenario.placement.bottom_mlp_location, scenario.model, cluster.num_gpus());
    simulate_plan(plan);
  }
  for (Report& r : reports) {
    r.input_hashes = scenario.hashes;
    if (scenario.cluster.price_per_gpu_hour > 0) {
      r.cost =
          report_cost(r, scenario.cluster.price_per_gpu_hour, scenario.workload.dataset_samples);
    }
  }
  return reports;
}

std::size_t report_count(const Scenario& scenario) {
  return scenario.placement.planners.size() + (scenario.placement.plan_file.empty() ? 0 : 1);
}

std::string plan_file_planner_name(const std::string& path) {
  return "file:" + std::filesystem::path(path).filename().string();
}

}  // namespace shardsim
