// Scenario file -> reports over sweep points and seeds (cli/scenario_runs.hpp).
#include "shardsim/cli/scenario_runs.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <mutex>

#include "shardsim/cli/pipeline.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/metrics/scaling_factor.hpp"

namespace shardsim {

namespace {

YAML::Node load_document(const std::string& path, const std::vector<Override>& overrides) {
  YAML::Node doc = load_yaml_file(path);
  apply_overrides(doc, overrides);
  return doc;
}

YAML::Node with_seed(const YAML::Node& doc, std::uint64_t seed) {
  YAML::Node out = doc;
  apply_overrides(out, {Override{"workload.seed", std::to_string(seed)}});
  return out;
}

}  // namespace

bool RunFlags::given() const {
  return seeds || seed || !sets.empty() || iterations || timings;
}

void add_run_flags(CLI::App* cmd, RunFlags& f) {
  cmd->add_option("--seeds", f.seeds,
                  "run N seeds (the first: --seed or workload.seed) and compare their means")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", f.seed, "the (first) seed: overrides workload.seed");
  cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  cmd->add_option("--iterations", f.iterations, "override workload.iterations")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--jobs,-j", f.jobs, "runs in parallel (results do not depend on it)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--timings", f.timings,
                "record wall-clock planning time (makes reports differ between runs)");
  add_guard_flags(cmd, f.guard, true);
}

ScenarioRunOptions run_options(const RunFlags& f) {
  ScenarioRunOptions o;
  for (const std::string& s : f.sets) o.overrides.push_back(parse_override(s));
  if (f.iterations) o.overrides.push_back({"workload.iterations", std::to_string(*f.iterations)});
  o.seed = f.seed;
  o.seed_count = f.seeds.value_or(1);
  o.record_timings = f.timings;
  o.jobs = f.jobs;
  o.guard = f.guard;
  return o;
}

std::vector<std::uint64_t> run_seeds(const std::string& path, const ScenarioRunOptions& options) {
  if (!options.seeds.empty()) return options.seeds;
  std::uint64_t first = 0;
  if (options.seed) {
    first = *options.seed;
  } else {
    const YAML::Node doc = load_document(path, options.overrides);
    const std::vector<SweepPoint> points = expand_sweep(doc, path, max_points(options.guard));
    first = load_scenario(points.front().document, path).workload.seed;
  }
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < std::max(1, options.seed_count); ++i) {
    seeds.push_back(first + static_cast<std::uint64_t>(i));
  }
  return seeds;
}

std::vector<Report> run_scenario_file(const std::string& path, const ScenarioRunOptions& options) {
  const std::vector<std::uint64_t> seeds = run_seeds(path, options);
  const YAML::Node doc = load_document(path, options.overrides);
  // Load every run first, so bad input fails before any simulation runs.
  std::vector<Scenario> scenarios;  // one per run: sweep points slowest, then seeds
  std::vector<std::string> labels;
  const std::vector<SweepPoint> points = expand_sweep(doc, path, max_points(options.guard));
  LoadingGuard loading(points.size() * seeds.size(), options.guard, path);
  for (const SweepPoint& point : points) {
    for (const std::uint64_t seed : seeds) {
      scenarios.push_back(load_scenario(with_seed(point.document, seed), path));
      labels.push_back(point.label);
      loading.loaded(scenarios.back());
    }
  }
  check_runs(scenarios, RunShape{options.jobs, options.renders_reports}, options.guard, path);

  std::vector<std::vector<Report>> results(scenarios.size());
  Progress progress("runs of " + path, scenarios.size());
  std::mutex progress_mutex;
  parallel_for(scenarios.size(), options.jobs, [&](std::size_t i) {
    results[i] = run_scenario(scenarios[i], RunOptions{labels[i], options.record_timings, {}});
    std::lock_guard lock(progress_mutex);
    progress.advance();
  });
  progress.finish();
  std::vector<Report> all;
  for (auto& rs : results) {
    for (auto& r : rs) all.push_back(std::move(r));
  }
  assign_scaling_factors(all);  // sweeps over the GPU count (2D §4.3)
  return all;
}

}  // namespace shardsim
