#include "shardsim/cli/app.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/cmd_baseline.hpp"
#include "cli/cmd_calibrate.hpp"
#include "cli/cmd_collective.hpp"
#include "cli/cmd_compare.hpp"
#include "cli/cmd_plan.hpp"
#include "cli/cmd_size.hpp"
#include "cli/cmd_trace.hpp"
#include "cli/launched_job.hpp"
#include "cli/resource_guard.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/hw/describe.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/chrome_trace_writer.hpp"
#include "shardsim/io/model_summary_writer.hpp"
#include "shardsim/io/report_diff.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/report_json_schema.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/io/tables_writer.hpp"
#include "shardsim/plan/model_summary.hpp"
#include "shardsim/run/point_store.hpp"
#include "shardsim/run/scenario_plans.hpp"
#include "shardsim/run/scenario_runs.hpp"

namespace shardsim {

namespace {

struct CommonFlags {
  std::string out_dir;
  std::string format = "text";
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> iterations;
  bool verbose = false;
  bool quiet = false;
  bool force = false;
  bool timings = false;
  std::string best;      // run, sweep: --best (empty: default_best_by)
  std::string baseline;  // run, sweep: --baseline DIR|FILE, diffed after the report
  GuardFlags guard;      // --max-memory, --max-points
};

// run's and sweep's own flags: what the brief marks best, and a baseline to diff against.
void add_decision_flags(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--best", f.best,
                  "what the brief marks best: qps, cost (needs cluster.price_per_gpu_hour) or "
                  "iteration; default cost with a price, else qps")
      ->check(CLI::IsMember(best_by_names()));
  cmd->add_option("--baseline", f.baseline,
                  "after the report, what changed against this earlier run (its --out DIR or "
                  "report JSON), as `shardsim diff` prints it");
}

// Refuses --best cost without a price and a --baseline that cannot be read, before running.
void check_decision_flags(const CommonFlags& f, const ScenarioRuns& runs) {
  if (f.best == "cost" && runs.scenarios.front().cluster.price_per_gpu_hour <= 0) {
    throw InputError(SourceLocation{}, "--best",
                     "--best cost needs a price, and the scenario gives none",
                     "set cluster.price_per_gpu_hour (e.g. --set cluster.price_per_gpu_hour=2.5)");
  }
  if (!f.baseline.empty() && f.format != "text") {
    throw InputError(
        SourceLocation{}, "--baseline",
        "--baseline prints its diff after the text report, not with --format " + f.format,
        "drop --format, or write --out DIR and run `shardsim diff --format json "
        "BASELINE DIR`");
  }
  if (!f.baseline.empty()) (void)read_report_objects(f.baseline);
}

void add_common(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--out", f.out_dir,
                  "write report.json, per_gpu.csv, summary.csv and comm_matrix_{fwd,bwd}.csv here");
  cmd->add_option("--format", f.format, "what to print on stdout")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  cmd->add_option("--seed", f.seed, "override workload.seed");
  cmd->add_option("--iterations", f.iterations, "override workload.iterations")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-v,--verbose", f.verbose, "debug logging on stderr");
  cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
  cmd->add_flag("--force", f.force, "overwrite existing files under --out");
  cmd->add_flag("--timings", f.timings,
                "record wall-clock planning time in the reports (makes them non-deterministic)");
  add_guard_flags(cmd, f.guard, true);
}

std::vector<Override> overrides_of(const CommonFlags& f) {
  std::vector<Override> out;
  for (const auto& s : f.sets) out.push_back(parse_override(s));
  if (f.seed) out.push_back({"workload.seed", std::to_string(*f.seed)});
  if (f.iterations) out.push_back({"workload.iterations", std::to_string(*f.iterations)});
  return out;
}

void setup(const CommonFlags& f) {
  setup_logging(f.quiet ? Verbosity::quiet : f.verbose ? Verbosity::verbose : Verbosity::normal);
}

// The request for a scenario (a file, or the built-in default) under the common flags.
RunRequest request_of(const CommonFlags& f, const std::string& path, SweepUse sweep) {
  RunRequest request;
  request.path = path;
  request.overrides = overrides_of(f);
  request.sweep = sweep;
  request.limits = resource_limits(f.guard);
  return request;
}

std::string source_of(const ScenarioRuns& runs) {
  return runs.scenarios.front().source;
}

// Refuses an --out that write_output_dir would refuse, before anything runs.
void check_out_dir(const CommonFlags& f, std::size_t reports) {
  if (f.out_dir.empty()) return;
  check_files_writable(f.out_dir, output_file_names(reports), f.force, "--out");
}

int finish(const CommonFlags& f, const std::vector<Report>& reports) {
  if (!f.out_dir.empty()) {
    write_output_dir(f.out_dir, reports, f.force);
    log_info("wrote the report files under {}", f.out_dir);
  }
  if (f.format == "json") {
    write_json(std::cout, reports);
  } else if (f.format == "csv") {
    write_csv_summary(std::cout, reports);
  } else {
    BriefOptions brief;
    if (!f.best.empty()) brief.best_by = best_by_from_name(f.best);
    write_text(std::cout, reports, brief);
  }
  if (!f.baseline.empty()) {
    std::vector<nlohmann::json> now;
    for (const Report& r : reports) now.emplace_back(report_to_json(r));  // no text round trip
    ReportDiff d = diff_reports(read_report_objects(f.baseline), now);
    d.before_origin = f.baseline;
    d.after_origin = "this run";
    std::cout << "\n";
    write_diff_text(std::cout, d);
  }
  std::cout.flush();
  // One rule for run and sweep (README, "Exit codes"): a planner or sweep point that does not
  // fit is an answer, reported as such; exit 3 only when none fits (nothing was simulated).
  std::size_t unfit = 0;
  for (const Report& r : reports) unfit += r.fits_in_memory ? 0 : 1;
  if (unfit > 0 && unfit == reports.size()) return static_cast<int>(ExitCode::does_not_fit);
  if (unfit > 0)
    log_warn("{} of {} plan(s) do not fit in memory (reported as such)", unfit, reports.size());
  return 0;
}

int cmd_run(const CommonFlags& f, const std::string& path, const std::string& trace_out) {
  const RunRequest request = request_of(f, path, SweepUse::ignore);
  const ScenarioRuns runs = load_runs(request);
  const PlanGuard guard =
      check_runs(runs.scenarios, RunShape{1, !f.out_dir.empty(), !trace_out.empty()},
                 request.limits, source_of(runs));
  check_decision_flags(f, runs);
  // Every output refused before anything is simulated (docs/robustness.md, "Outputs").
  check_out_dir(f, report_count(runs.scenarios.front()));
  RunSettings settings{1, f.timings, {}};
  settings.plan_guard = guard;
  ChromeTrace trace;  // --trace-out (src/io/chrome_trace_writer.cpp)
  if (!trace_out.empty()) {
    check_trace_out(trace_out, f.force);
    settings.on_simulated = [&](const SimulationInputs& in, const SimulationResult& result) {
      trace.add(in.plan.planner, in.cluster, result);
    };
  }
  const std::vector<Report> reports = run_all(runs, settings);
  if (!trace_out.empty()) write_chrome_trace_file(trace_out, trace, f.force);
  return finish(f, reports);
}

// A sweep with --out keeps each finished point under DIR/points (run/point_store.hpp); --resume
// takes the points already there and replaces the sweep's own output files at the end.
void check_resume(const CommonFlags& f, bool resume) {
  if (resume && f.out_dir.empty()) {
    throw InputError(SourceLocation{}, "--resume", "--resume needs --out DIR",
                     "give the --out DIR of the sweep to resume");
  }
  if (resume || f.force || f.out_dir.empty()) return;
  const std::size_t kept = CheckpointDir::count_in(f.out_dir);
  if (kept > 0) {
    throw InputError(
        SourceLocation{CheckpointDir::folder_of(f.out_dir).string(), 0, 0}, "--out",
        fmt::format("holds {} finished point(s) of an earlier sweep", kept),
        "add --resume to reuse them (only the missing points run), or --force to start over");
  }
}

// Under MPI (docs/distributed.md) rank 0 runs the sweep below with the job's ranks as its
// executor; the other ranks only simulate the runs it hands them (and log what those runs log).
int cmd_sweep(CommonFlags f, const std::string& path, int jobs, bool resume, DistributedRuns* job) {
  if (job != nullptr && !job->coordinates()) {
    return job->serve(run_loader_of(request_of(f, path, SweepUse::require)), jobs);
  }
  check_resume(f, resume);
  const RunRequest request = request_of(f, path, SweepUse::require);
  const ScenarioRuns runs = load_runs(request);
  const PlanGuard guard = check_runs(runs.scenarios, RunShape{jobs, !f.out_dir.empty()},
                                     request.limits, source_of(runs));
  check_decision_flags(f, runs);
  std::size_t reports = 0;
  for (const Scenario& s : runs.scenarios) reports += report_count(s);
  if (resume) f.force = true;  // the output files are the sweep's own, rewritten from its points
  check_out_dir(f, reports);
  std::optional<CheckpointDir> points;
  RunSettings settings{jobs, f.timings, {}};
  settings.plan_guard = guard;
  if (!f.out_dir.empty()) {
    points.emplace(f.out_dir, resume);
    const std::size_t stale = resume ? points->remove_stale_temporaries() : 0;
    if (stale > 0) log_info("removed {} half-written point file(s) of an interrupted run", stale);
    settings.store = &*points;
  }
  if (job != nullptr) settings.executor = &job->executor(jobs);
  std::vector<Report> all;
  try {
    all = run_all(runs, settings);
  } catch (...) {
    if (points) points->remove_if_empty();  // every job has stopped: nothing writes there now
    throw;
  }
  return finish(f, all);
}

// `validate --tables-out FILE`: the model's tables as `model.tables` entries (YAML, or JSON for
// a FILE ending in .json; io/tables_writer.hpp), of the first sweep point in a sweep.
void write_tables_out(const std::string& file, bool force, const ScenarioRuns& runs,
                      const std::string& source) {
  const Scenario& s = runs.scenarios.front();
  const bool sweep = !runs.labels.front().empty();
  const auto pruned_tables = std::count_if(s.model.tables.begin(), s.model.tables.end(),
                                           [](const auto& t) { return t.pruning.fraction > 0; });
  const bool json = file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0;
  std::string content;
  if (json) {
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["source"] = source;
    if (sweep) j["sweep_point"] = runs.labels.front();
    j["tables"] = tables_json(s.model.tables, s.model.prune_fraction);
    content = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    std::string header = fmt::format(
        "The {} embedding tables, listed and generated, of scenario '{}'\n"
        "({}{}), as shardsim loads them.\n"
        "Put the list under `model:` in place of `tables:` and `generate:`. Written by\n"
        "`shardsim validate --tables-out` (docs/scenario.md, \"Freezing a generated model\").",
        s.model.tables.size(), s.name, source,
        sweep ? fmt::format("; sweep point 1 of {}: {}", runs.size(),
                            report_format::shown_sweep_point(runs.labels.front()))
              : std::string());
    if (pruned_tables > 0) {
      header += fmt::format(
          "\n{} of them are pruned: written as before pruning, with their prune_fraction.",
          pruned_tables);
    }
    content = tables_yaml(s.model.tables, s.model.prune_fraction, header);
  }
  write_file_atomically(file, content, force, "--tables-out");
  log_info("wrote the {} tables of '{}' to {}", s.model.tables.size(), s.name, file);
}

int cmd_validate(const CommonFlags& f, const std::string& path, const std::string& tables_out) {
  // Refuse an existing file before loading (atomic_files.hpp): a refused call changes nothing.
  if (!tables_out.empty()) check_file_writable(tables_out, f.force, "--tables-out");
  const RunRequest request = request_of(f, path, SweepUse::expand);
  const ScenarioRuns runs = load_runs(request);
  const bool sweep = !runs.labels.front().empty();
  // Validation includes the resource guard: a scenario that `run` would refuse is not OK.
  const RunShape shape{1, !f.out_dir.empty()};
  const ResourceEstimate estimate = estimate_memory(runs.scenarios, shape);
  check_runs(runs.scenarios, shape, request.limits, source_of(runs));
  // Every check `run` makes before simulating (planner options against the cluster, plan
  // files), so a scenario that validates does not fail later on its input.
  for (const Scenario& s : runs.scenarios) ScenarioPlanner(s).check();
  if (!tables_out.empty()) write_tables_out(tables_out, f.force, runs, source_of(runs));
  // The model summary (docs/report.md "Model summary"): of the first sweep point in a sweep.
  const Scenario& s = runs.scenarios.front();
  const ModelSummary summary =
      summarize_model(s.model, s.workload, s.cluster.preset, s.cluster.nodes);
  const std::string heading =
      sweep ? fmt::format("model (sweep point 1 of {}: {})", runs.size(),
                          report_format::shown_sweep_point(runs.labels.front()))
            : std::string("model");
  if (f.format == "json") {
    nlohmann::ordered_json j;
    j["source"] = source_of(runs);
    j["status"] = "OK";
    j["scenario"] = s.name;
    if (sweep) j["sweep_points"] = runs.size();
    j["tables"] = s.model.tables.size();
    j["preset"] = s.cluster.preset.name;
    j["nodes"] = s.cluster.nodes;
    j["gpus"] = s.cluster.nodes * s.cluster.preset.gpus_per_node;
    j["planners"] = s.placement.planners.size();
    j["estimated_memory_bytes"] = estimate.total_bytes;
    j["model"] = model_summary_to_json(summary, estimate.total_bytes);
    if (sweep) j["model"]["sweep_point"] = runs.labels.front();
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  if (sweep) {
    std::cout << source_of(runs) << ": OK: " << runs.size() << " sweep points";
  } else {
    std::cout << source_of(runs) << ": OK: '" << s.name << "', " << s.model.tables.size()
              << " tables, " << s.cluster.nodes << " x " << s.cluster.preset.name << " ("
              << s.cluster.nodes * s.cluster.preset.gpus_per_node << " GPUs), "
              << s.placement.planners.size() << " planner(s)";
  }
  std::cout << "; estimated memory " << human_bytes(estimate.total_bytes) << "\n\n";
  write_model_summary_text(std::cout, summary, estimate.total_bytes, heading);
  return 0;
}

// `shardsim diff BEFORE AFTER`: what changed between two runs, as text or JSON.
int cmd_diff(const std::string& before, const std::string& after, const std::string& format) {
  ReportDiff d = diff_reports(read_report_objects(before), read_report_objects(after));
  d.before_origin = before;
  d.after_origin = after;
  if (format == "json") {
    std::cout << diff_to_json(d).dump(2) << '\n';
  } else {
    write_diff_text(std::cout, d);
  }
  return 0;
}

// `shardsim schema report`: the report's JSON Schema, or its field reference in Markdown.
int cmd_schema_report(const std::string& format) {
  if (format == "markdown") {
    std::cout << report_fields_markdown();
  } else {
    std::cout << report_json_schema().dump(2) << '\n';
  }
  return 0;
}

// `shardsim hw list`: the built-in presets' names and descriptions.
int cmd_hw_list() {
  for (const auto& name : builtin_preset_names()) {
    const HardwarePreset p = builtin_preset(name);
    std::cout << name << "\t" << p.description << "\n";
  }
  return 0;
}

// `shardsim hw show NAME`: one built-in preset.
int cmd_hw_show(const std::string& name) {
  std::cout << describe_preset(builtin_preset(name, SourceLocation{}, "hw show NAME"));
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"shardsim: a discrete-event cluster simulator for the embedding tables of DLRMs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("shardsim ") + SHARDSIM_VERSION);

  CommonFlags flags;
  std::string scenario_path;
  std::string trace_out;
  int jobs = 1;

  auto* run = app.add_subcommand("run", "simulate a scenario (no argument: the built-in default)");
  run->add_option("scenario", scenario_path, "scenario YAML file");
  run->add_option("--trace-out", trace_out,
                  "write the timelines as a Chrome trace (Perfetto, chrome://tracing)");
  add_common(run, flags);
  add_decision_flags(run, flags);

  auto* sweep = app.add_subcommand("sweep", "simulate every point of a scenario's sweep block");
  sweep->add_option("scenario", scenario_path, "scenario YAML file")->required();
  sweep->add_option("--jobs,-j", jobs, "points simulated in parallel (results do not depend on it)")
      ->check(CLI::PositiveNumber);
  bool resume = false;
  sweep->add_flag("--resume", resume,
                  "continue the sweep whose --out DIR this is: only the points not yet finished "
                  "(DIR/points) run");
  add_common(sweep, flags);
  add_decision_flags(sweep, flags);

  auto* validate = app.add_subcommand("validate", "load and check a scenario without running it");
  validate->add_option("scenario", scenario_path, "scenario YAML file")->required();
  std::string tables_out;
  validate->add_option("--tables-out", tables_out,
                       "write the model's tables (listed and generated) here as model.tables "
                       "entries: YAML, or JSON for a name ending in .json (--force overwrites)");
  add_common(validate, flags);

  const PlanCommand plan_command(app);
  const TraceCommand trace(app);

  auto* hw = app.add_subcommand("hw", "hardware presets");
  hw->require_subcommand(1);
  auto* hw_list = hw->add_subcommand("list", "list the built-in presets");
  std::string preset_name;
  auto* hw_show = hw->add_subcommand("show", "show one preset");
  hw_show->add_option("name", preset_name, "preset name")->required();

  auto* schema = app.add_subcommand("schema", "print the schema of shardsim's outputs");
  schema->require_subcommand(1);
  auto* schema_report = schema->add_subcommand(
      "report", "the report JSON's JSON Schema (draft 2020-12), or its field reference");
  std::string schema_format = "json";
  schema_report->add_option("--format", schema_format, "json (a JSON Schema) or markdown")
      ->check(CLI::IsMember({"json", "markdown"}));

  auto* diff = app.add_subcommand(
      "diff", "what changed between two runs: metrics, bottleneck and scenario keys (exit 0)");
  std::string diff_before, diff_after, diff_format = "text";
  diff->add_option("before", diff_before, "report JSON, or the --out DIR of a run")->required();
  diff->add_option("after", diff_after, "report JSON, or the --out DIR of a run")->required();
  diff->add_option("--format", diff_format, "text or json")->check(CLI::IsMember({"text", "json"}));

  CompareCommand compare(app);
  BaselineCommand baseline(app);
  const SizeCommand size(app);
  CollectiveFlags collective;
  add_collective_command(app, collective);
  CalibrateFlags calibrate;
  add_calibrate_command(app, calibrate);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }

  std::unique_ptr<DistributedRuns> job;  // under mpirun/srun; ends (MPI_Finalize) last
  try {
    if (plan_command.selected()) return plan_command.run();
    setup(flags);
    job = join_launched_job(app.get_subcommands().front()->get_name(),
                            sweep->parsed() || size.selected() || baseline.selected());
    if (*run) return cmd_run(flags, scenario_path, trace_out);
    if (*sweep) return cmd_sweep(flags, scenario_path, jobs, resume, job.get());
    if (*validate) return cmd_validate(flags, scenario_path, tables_out);
    if (compare.selected()) return compare.run();
    if (baseline.selected()) return baseline.run(job.get());
    if (size.selected()) return size.run(job.get());
    if (collective.cmd->parsed()) return run_collective_command(collective);
    if (calibrate.cmd->parsed()) return run_calibrate_command(calibrate);
    if (trace.parsed()) return trace.run();
    if (*diff) return cmd_diff(diff_before, diff_after, diff_format);
    if (*schema_report) return cmd_schema_report(schema_format);
    if (*hw_list) return cmd_hw_list();
    if (*hw_show) return cmd_hw_show(preset_name);
  } catch (const InputError& e) {
    log_error("{}", e.what());
    return static_cast<int>(ExitCode::bad_input);
  } catch (const DoesNotFitError& e) {
    log_error("{}", e.what());
    return static_cast<int>(ExitCode::does_not_fit);
  } catch (const std::exception& e) {
    log_error("internal error (please report it): {}", e.what());
    return static_cast<int>(ExitCode::internal);
  }
  return 0;
}

}  // namespace shardsim
