#pragma once
// The plans of a loaded scenario, as `run`, `plan` and the Python module make them: every
// planner of `placement.planner` (or one named planner), then `placement.file`, each validated
// and with the bottom MLP placed. One planning path, one trace source (make_trace_source: a
// recorded trace when the scenario names one), so `plan` writes the plan `run` simulates.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct ScenarioPlan {
  std::string planner;  // the planner's name, or plan_file_planner_name(placement.file)
  // The plan; nullopt when the planner could not place the tables (`unplaced` says why).
  std::optional<Plan> plan;
  std::optional<DoesNotFitError> unplaced;
};

class ScenarioPlanner {
 public:
  explicit ScenarioPlanner(const Scenario& scenario);
  ScenarioPlanner(const ScenarioPlanner&) = delete;
  ScenarioPlanner& operator=(const ScenarioPlanner&) = delete;
  ~ScenarioPlanner();

  const Cluster& cluster() const { return cluster_; }
  const TraceSource& trace() const { return *trace_; }

  // One plan of planner `name` with the scenario's options for it (placement.options and
  // placement.planner_options.<name>); `where` names the key that chose it, for errors.
  ScenarioPlan plan_with(const std::string& name, const std::string& where) const;
  // The plan of placement.file (the scenario must give one).
  ScenarioPlan plan_file() const;
  // A plan made elsewhere, validated against the scenario (a bad one is an InputError naming
  // `plan.planner`), with the bottom MLP placed as the scenario says.
  ScenarioPlan given(Plan plan) const;
  // Every plan the scenario asks for, in order: its planners, then its plan file.
  std::vector<ScenarioPlan> plans() const;
  // Every check of plans() that needs no planning: each planner built from its options and
  // checked against the cluster (Planner::check), the plan file read and validated. An
  // InputError for the first that fails; `validate` runs it on every scenario it loads.
  void check() const;

 private:
  const Scenario& scenario_;
  Cluster cluster_;
  std::unique_ptr<TraceSource> trace_;
  int bottom_mlp_gpu_ = -1;
};

}  // namespace shardsim
