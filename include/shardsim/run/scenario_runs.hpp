#pragma once
// Many runs of one scenario file: every sweep point, each for one or more seeds, each with every
// planner. The one runner behind `run`, `sweep`, `validate`, `baseline` and `compare`: load
// every run first (bad input and runs over the memory limit fail before anything is simulated),
// then simulate them in parallel and collect the reports in order (docs/regression.md).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shardsim/io/override.hpp"
#include "shardsim/io/scenario.hpp"
#include "shardsim/io/scenario_document.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {

class PointStore;   // run/point_store.hpp
class RunExecutor;  // run/run_executor.hpp

// What a scenario's `sweep:` block means to a command.
enum class SweepUse {
  ignore,   // `run`: one run of the document without its sweep block (with a warning)
  expand,   // `validate`, `baseline`, `compare`: every point (the document itself without one)
  require,  // `sweep`: every point; a scenario without a sweep block is an InputError
};

struct RunRequest {
  std::string path;  // the scenario file; empty: the built-in default
  // The document's text, when it is not read from `path` (the Python module): `path` then only
  // names it in messages and anchors its relative paths.
  std::optional<std::string> text;
  std::vector<Override> overrides;  // --set, --iterations, ... (applied first, in order)
  SweepUse sweep = SweepUse::expand;
  // Each run's document gets `workload.seed = seed` after its sweep point's values, so its
  // input_hashes.scenario names exactly that document. Empty: the seed as written, one run a point.
  std::vector<std::uint64_t> seeds;
  ResourceLimits limits;
};

// Loaded runs: one scenario per run and its sweep point's label (empty without a sweep).
struct ScenarioRuns {
  std::vector<Scenario> scenarios;
  std::vector<std::string> labels;
  std::size_t size() const { return scenarios.size(); }
};

// One run's document before it is loaded, and its sweep point's label.
struct RunDocument {
  ScenarioDocument document;
  std::string label;
};

// The documents of every run of `request`, in load_runs' order (sweep points slowest, then
// seeds), not yet loaded: a rank of an MPI job loads only the runs it is handed.
std::vector<RunDocument> run_documents(const RunRequest& request);

// load_scenario(document); an InputError names the sweep point `label` (when not empty) in its
// problem, so a value that is valid at one point and not at another says where.
Scenario load_scenario_at_point(const ScenarioDocument& document, const std::string& label);

// Every run of `request`: sweep points slowest, then seeds. Bad input anywhere is an InputError,
// and loading stops early when the runs would exceed the memory limit (LoadingGuard).
ScenarioRuns load_runs(const RunRequest& request);

// The first `count` seeds from `first`: first, first + 1, ...
std::vector<std::uint64_t> consecutive_seeds(std::uint64_t first, int count);
// The seed a run of `request` uses when it sets none: workload.seed of its first point.
std::uint64_t written_seed(const RunRequest& request);

struct RunSettings {
  int jobs = 1;                 // runs in parallel (results do not depend on it)
  bool record_timings = false;  // put wall-clock planning time into the reports
  // Called with every simulated plan (e.g. to write its Chrome trace); may be empty. With more
  // than one job it is called from several threads.
  std::function<void(const SimulationInputs&, const SimulationResult&)> on_simulated;
  // Finished runs kept between processes (a sweep's --out DIR/points): a run it holds is not
  // simulated again, and each simulated run is stored as it finishes. May be null.
  PointStore* store = nullptr;
  // Who simulates the runs the store does not hold: null, this process's `jobs` threads; else
  // e.g. the ranks of an MPI job (run/distributed_runs.hpp). Not with on_simulated.
  RunExecutor* executor = nullptr;
  // The resource guard's second look at each plan (check_runs returns it), on every rank.
  PlanGuard plan_guard{};
};

// The reports of every run in order (each run's planners in the scenario's order), with scaling
// factors assigned across runs (2D §4.3). Logs progress for long runs. With a store, the runs it
// holds are taken from it (the log says how many) and only the others are simulated.
std::vector<Report> run_all(const ScenarioRuns& runs, const RunSettings& settings);

// run_all of every set in `sets` (e.g. one a scenario file), each set's reports as run_all
// returns them (scaling factors within the set), with every run of every set handed to
// `settings.executor` (required) at once, numbered one set after another (RunTask::run: the runs
// of sets[0] first). A failing run throws as run_all over the sets in turn would.
std::vector<std::vector<Report>> run_all_sets(std::span<const ScenarioRuns> sets,
                                              const RunSettings& settings);

// How `baseline` and `compare` run a scenario file: seeds chosen from a first seed and a count
// (or given), then load_runs, the memory check and run_all.
struct ScenarioRunOptions {
  std::vector<Override> overrides;    // --set, --iterations (applied before the seed)
  std::optional<std::uint64_t> seed;  // --seed: the first seed (default: workload.seed)
  int seed_count = 1;                 // --seeds N: seeds first, first + 1, ..., first + N - 1
  std::vector<std::uint64_t> seeds;   // explicit seeds; when non-empty, seed/seed_count unused
  bool record_timings = false;        // --timings
  int jobs = 1;                       // runs in parallel (results do not depend on it)
  ResourceLimits limits;              // the resource guard's limits
  bool renders_reports = false;       // the caller renders every report as text (baseline)
};

// The seeds a run of `path` uses under `options` (loads the scenario when the first seed comes
// from its workload.seed).
std::vector<std::uint64_t> run_seeds(const std::string& path, const ScenarioRunOptions& options);

// The request run_scenario_file makes of `path`: every sweep point, the seeds of run_seeds.
RunRequest scenario_file_request(const std::string& path, const ScenarioRunOptions& options);

// Reports of every sweep point x seed x planner, in that order (points slowest). Each run's
// document is the scenario file with the overrides, the point's values and
// `workload.seed = seed` applied, so its input_hashes.scenario names exactly that document.
// Bad input anywhere, or runs estimated to need more memory than the limit, fail before any
// simulation runs.
std::vector<Report> run_scenario_file(const std::string& path, const ScenarioRunOptions& options);

}  // namespace shardsim
