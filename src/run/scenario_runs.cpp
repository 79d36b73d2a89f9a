// Scenario file -> reports over sweep points and seeds (run/scenario_runs.hpp).
#include "shardsim/run/scenario_runs.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "shardsim/core/cancellation.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/core/progress_cadence.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/scenario_document.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/metrics/scaling_factor.hpp"
#include "shardsim/run/point_store.hpp"
#include "shardsim/run/run_executor.hpp"

namespace shardsim {

namespace {

// The documents of every sweep point of `request`, with their labels.
std::vector<SweepPoint> points_of(const RunRequest& request) {
  const ScenarioDocument doc =
      request.text ? ScenarioDocument::parse(*request.text, request.path, request.overrides)
                   : ScenarioDocument::load(request.path, request.overrides);
  switch (request.sweep) {
    case SweepUse::ignore:
      if (!doc.has_sweep()) return {SweepPoint{"", doc}};
      log_warn("{}: has a sweep block; `run` ignores it (use `shardsim sweep`)", doc.file());
      return {SweepPoint{"", doc.without_sweep()}};
    case SweepUse::require:
      if (!doc.has_sweep()) {
        throw InputError(SourceLocation{doc.file(), 0, 0}, "sweep",
                         "the scenario has no sweep block",
                         "add `sweep: {cluster.nodes: [1, 2, 4]}` or use `shardsim run`");
      }
      break;
    case SweepUse::expand:
      if (!doc.has_sweep()) return {SweepPoint{"", doc}};
      break;
  }
  return expand_sweep(doc, request.limits.max_points);
}

}  // namespace

Scenario load_scenario_at_point(const ScenarioDocument& document, const std::string& label) {
  try {
    return load_scenario(document);
  } catch (const InputError& e) {
    if (label.empty()) throw;
    // Which point: a value may be valid at one point and not at another (a global batch that
    // divides among 8 GPUs but not 24).
    throw InputError(
        e.where(), e.key(),
        fmt::format("at sweep point {}: {}", report_format::shown_sweep_point(label), e.problem()),
        e.hint());
  }
}

std::vector<RunDocument> run_documents(const RunRequest& request) {
  std::vector<RunDocument> out;
  for (SweepPoint& point : points_of(request)) {
    if (request.seeds.empty()) out.push_back(RunDocument{std::move(point.document), point.label});
    for (const std::uint64_t seed : request.seeds) {
      out.push_back(RunDocument{point.document.with_seed(seed), point.label});
    }
  }
  return out;
}

ScenarioRuns load_runs(const RunRequest& request) {
  const std::vector<RunDocument> documents = run_documents(request);
  LoadingGuard loading(documents.size(), request.limits, documents.front().document.file());
  ScenarioRuns runs;
  runs.scenarios.reserve(documents.size());
  for (const RunDocument& run : documents) {
    runs.scenarios.push_back(load_scenario_at_point(run.document, run.label));
    runs.labels.push_back(run.label);
    loading.loaded(runs.scenarios.back());
  }
  return runs;
}

std::vector<std::uint64_t> consecutive_seeds(std::uint64_t first, int count) {
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < std::max(1, count); ++i)
    seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

std::uint64_t written_seed(const RunRequest& request) {
  RunRequest first = request;
  first.seeds.clear();
  const std::vector<SweepPoint> points = points_of(first);
  return load_scenario(points.front().document).workload.seed;
}

namespace {
// Every run's reports in run order, with the scaling factors across runs.
std::vector<Report> gather(std::vector<std::vector<Report>> results) {
  std::vector<Report> all;
  for (auto& rs : results) {
    for (auto& r : rs) all.push_back(std::move(r));
  }
  // Sweeps over the GPU count (2D §4.3), along the key that changes it, the others held.
  std::vector<SweepCoordinates> coords;
  coords.reserve(all.size());
  for (const Report& r : all) coords.push_back(report_format::sweep_point_parts(r.sweep_point));
  assign_scaling_factors(all, coords);
  return all;
}

// The runs of `runs` that `store` does not hold (their indices, in order); the reports of the
// others go to `results` (sized runs.size()).
std::vector<std::size_t> runs_not_kept(const ScenarioRuns& runs, PointStore* store,
                                       std::vector<std::vector<Report>>& results) {
  std::vector<std::size_t> to_run;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::optional<std::vector<Report>> kept;
    if (store != nullptr) kept = store->load(runs.scenarios[i], runs.labels[i]);
    if (kept) {
      results[i] = std::move(*kept);
    } else {
      to_run.push_back(i);
    }
  }
  return to_run;
}

void log_resume(std::size_t total, std::size_t to_run) {
  if (to_run < total) {
    log_info("resume: {} of {} runs already finished (their checkpoints); simulating {}",
             total - to_run, total, to_run);
  }
}
}  // namespace

std::vector<std::vector<Report>> run_all_sets(std::span<const ScenarioRuns> sets,
                                              const RunSettings& settings) {
  if (settings.executor == nullptr) throw std::logic_error("run_all_sets: no executor");
  if (settings.on_simulated) throw std::logic_error("run_all_sets: an executor with on_simulated");
  // Run i of the whole list: set `set_of[i]`, run `run_in_set[i]` there.
  std::vector<std::vector<std::vector<Report>>> results(sets.size());
  std::vector<std::size_t> set_of;
  std::vector<std::size_t> run_in_set;
  std::vector<RunTask> tasks;  // the runs the store does not hold
  std::size_t total = 0;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const ScenarioRuns& runs = sets[s];
    results[s].resize(runs.size());
    for (const std::size_t i : runs_not_kept(runs, settings.store, results[s])) {
      tasks.push_back(RunTask{total + i, &runs.scenarios[i], runs.labels[i]});
      set_of.push_back(s);
      run_in_set.push_back(i);
    }
    total += runs.size();
  }
  log_resume(total, tasks.size());
  settings.executor->simulate(tasks, settings.record_timings, settings.plan_guard,
                              [&](std::size_t k, std::vector<Report> reports) {
                                const ScenarioRuns& runs = sets[set_of[k]];
                                const std::size_t i = run_in_set[k];
                                std::vector<Report>& slot = results[set_of[k]][i];
                                slot = std::move(reports);
                                if (settings.store != nullptr) {
                                  settings.store->store(runs.scenarios[i], runs.labels[i], slot);
                                }
                              });
  std::vector<std::vector<Report>> out;
  for (auto& set : results) out.push_back(gather(std::move(set)));
  return out;
}

std::vector<Report> run_all(const ScenarioRuns& runs, const RunSettings& settings) {
  if (settings.executor != nullptr) {
    return std::move(run_all_sets(std::span<const ScenarioRuns>(&runs, 1), settings).front());
  }
  std::vector<std::vector<Report>> results(runs.size());
  const std::vector<std::size_t> to_run = runs_not_kept(runs, settings.store, results);
  log_resume(runs.size(), to_run.size());
  const std::string what =
      runs.size() <= 1 ? std::string("runs") : "runs of " + runs.scenarios.front().source;
  const std::chrono::milliseconds cadence = progress_interval(std::chrono::milliseconds(2000));
  Progress progress(what, to_run.size(), cadence);
  std::mutex progress_mutex;
  auto last_named = std::chrono::steady_clock::now();
  parallel_for(to_run.size(), settings.jobs, [&](std::size_t k) {
    const std::size_t i = to_run[k];
    throw_if_cancelled();  // a stop request (the Python module's Ctrl-C) before each run
    results[i] =
        run_scenario(runs.scenarios[i], RunOptions{runs.labels[i], settings.record_timings,
                                                   settings.on_simulated, settings.plan_guard});
    if (settings.store != nullptr) {
      settings.store->store(runs.scenarios[i], runs.labels[i], results[i]);
    }
    std::lock_guard lock(progress_mutex);
    progress.advance();
    // Which point finished, with its planners (issue 18: progress names what ran), on the same
    // cadence as the progress line (core/log.hpp's Progress, every 2 s once a run is long).
    const auto now = std::chrono::steady_clock::now();
    if (to_run.size() > 1 && now - last_named >= cadence) {
      last_named = now;
      std::string planners;
      for (const Report& r : results[i]) planners += (planners.empty() ? "" : ", ") + r.planner;
      log_info("finished {} ({})",
               runs.labels[i].empty() ? std::string("the scenario")
                                      : report_format::shown_sweep_point(runs.labels[i]),
               planners);
    }
  });
  progress.finish();
  return gather(std::move(results));
}

namespace {
RunRequest request_of(const std::string& path, const ScenarioRunOptions& options) {
  RunRequest request;
  request.path = path;
  request.overrides = options.overrides;
  request.sweep = SweepUse::expand;
  request.limits = options.limits;
  return request;
}
}  // namespace

std::vector<std::uint64_t> run_seeds(const std::string& path, const ScenarioRunOptions& options) {
  if (!options.seeds.empty()) return options.seeds;
  const std::uint64_t first =
      options.seed ? *options.seed : written_seed(request_of(path, options));
  return consecutive_seeds(first, options.seed_count);
}

RunRequest scenario_file_request(const std::string& path, const ScenarioRunOptions& options) {
  RunRequest request = request_of(path, options);
  request.seeds = run_seeds(path, options);
  return request;
}

std::vector<Report> run_scenario_file(const std::string& path, const ScenarioRunOptions& options) {
  const RunRequest request = scenario_file_request(path, options);
  const ScenarioRuns runs = load_runs(request);
  RunSettings settings{options.jobs, options.record_timings, {}};
  settings.plan_guard = check_runs(runs.scenarios, RunShape{options.jobs, options.renders_reports},
                                   options.limits, path);
  return run_all(runs, settings);
}

}  // namespace shardsim
