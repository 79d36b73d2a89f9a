// The plans of a scenario (run/scenario_plans.hpp).
#include "shardsim/run/scenario_plans.hpp"

#include <chrono>

#include "run/planner_options.hpp"
#include "run/simulated_plan_evaluator.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/plan/bottom_mlp_placement.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {

ScenarioPlanner::ScenarioPlanner(const Scenario& scenario)
    : scenario_(scenario),
      cluster_(scenario.cluster.preset, scenario.cluster.nodes),
      trace_(make_trace_source(scenario.model, scenario.workload)) {
  bottom_mlp_gpu_ = scenario_bottom_mlp_gpu(scenario.placement.bottom_mlp_gpu,
                                            scenario.placement.bottom_mlp_location, scenario.model,
                                            cluster_.num_gpus());
}

ScenarioPlanner::~ScenarioPlanner() = default;

ScenarioPlan ScenarioPlanner::plan_with(const std::string& name, const std::string& where) const {
  const Scenario& sc = scenario_;
  const PlannerInfo& info = find_planner(name, SourceLocation{sc.source, 0, 0}, where);
  const auto planner = info.make(planner_options(sc.placement, name));
  const SimulatedPlanEvaluator evaluator(cluster_, sc, *trace_);
  PlanningContext ctx{cluster_, sc.model, sc.workload, *trace_, &sc.cost, &evaluator};
  ctx.input_alltoall = sc.simulation.input_alltoall != InputAlltoall::none;
  ctx.bottom_mlp_gpu = bottom_mlp_gpu_;
  ScenarioPlan out{name, std::nullopt, std::nullopt};
  const auto t0 = std::chrono::steady_clock::now();
  Plan plan;
  try {
    plan = planner->plan(ctx);
  } catch (const DoesNotFitError& e) {
    out.unplaced = e;
    return out;
  }
  plan.planning_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  plan.planner = name;
  validate_plan(plan, cluster_, sc.model, "plan from planner '" + name + "'");
  place_bottom_mlp(plan, sc.placement.bottom_mlp_gpu, sc.placement.bottom_mlp_location, sc.model,
                   cluster_.num_gpus());
  out.plan = std::move(plan);
  return out;
}

ScenarioPlan ScenarioPlanner::plan_file() const {
  const Scenario& sc = scenario_;
  Plan plan = read_plan_file(sc.placement.plan_file, sc.model, cluster_);
  plan.planner = plan_file_planner_name(sc.placement.plan_file);
  place_bottom_mlp(plan, sc.placement.bottom_mlp_gpu, sc.placement.bottom_mlp_location, sc.model,
                   cluster_.num_gpus());
  ScenarioPlan out{plan.planner, std::nullopt, std::nullopt};
  out.plan = std::move(plan);
  return out;
}

ScenarioPlan ScenarioPlanner::given(Plan plan) const {
  const Scenario& sc = scenario_;
  validate_plan(plan, cluster_, sc.model, "plan '" + plan.planner + "'");
  place_bottom_mlp(plan, sc.placement.bottom_mlp_gpu, sc.placement.bottom_mlp_location, sc.model,
                   cluster_.num_gpus());
  ScenarioPlan out{plan.planner, std::nullopt, std::nullopt};
  out.plan = std::move(plan);
  return out;
}

void ScenarioPlanner::check() const {
  const Scenario& sc = scenario_;
  for (const std::string& name : sc.placement.planners) {
    const PlannerInfo& info =
        find_planner(name, SourceLocation{sc.source, 0, 0}, "placement.planner");
    info.make(planner_options(sc.placement, name))->check(cluster_, sc.workload);
  }
  if (!sc.placement.plan_file.empty()) (void)plan_file();
}

std::vector<ScenarioPlan> ScenarioPlanner::plans() const {
  std::vector<ScenarioPlan> out;
  for (const std::string& name : scenario_.placement.planners) {
    out.push_back(plan_with(name, "placement.planner"));
  }
  if (!scenario_.placement.plan_file.empty()) out.push_back(plan_file());
  return out;
}

}  // namespace shardsim
