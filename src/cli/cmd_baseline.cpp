// `shardsim baseline SCENARIO... --out DIR` (cli/cmd_baseline.hpp, docs/regression.md).
#include "cli/cmd_baseline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/run/scenario_runs.hpp"

namespace shardsim {

namespace fs = std::filesystem;

BaselineCommand::BaselineCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("baseline",
                            "write golden reports (<scenario file stem>.json under --out) for "
                            "`shardsim compare`");
  cmd_->add_option("scenarios", args_.scenarios, "scenario YAML files")->required();
  cmd_->add_option("--out", args_.out_dir, "directory for the golden reports")->required();
  cmd_->add_flag("--force", args_.force, "overwrite existing golden reports");
  add_run_flags(cmd_, args_.run);
  cmd_->add_flag("-v,--verbose", args_.verbose, "debug logging on stderr");
  cmd_->add_flag("--quiet", args_.quiet, "errors only on stderr");
}

bool BaselineCommand::selected() const {
  return cmd_->parsed();
}

int BaselineCommand::run(DistributedRuns* job) const {
  return run_baseline(args_, job);
}

namespace {

// Every scenario file's reports and seeds, as run_scenario_file and run_seeds give them.
struct FileRuns {
  std::vector<std::vector<Report>> reports;
  std::vector<std::vector<std::uint64_t>> seeds;
};

// One file after another in this process: each file is loaded, checked and simulated before the
// next is read.
FileRuns run_in_turn(const std::vector<std::string>& paths, const ScenarioRunOptions& options) {
  FileRuns out;
  for (const std::string& path : paths) {
    out.reports.push_back(run_scenario_file(path, options));
    out.seeds.push_back(run_seeds(path, options));
  }
  return out;
}

// Rank 0 of an MPI job (docs/distributed.md): every file's runs loaded and checked here as
// run_scenario_file does, then all of them handed out at once. The errors are one process's:
// a file that fails to load (or is refused by the memory guard) stops the loading there, and its
// error is raised only if every run of the files before it succeeds (one process simulates
// those first); a failing run raises the error of the first failing run in file order.
FileRuns run_over_ranks(const std::vector<std::string>& paths, const ScenarioRunOptions& options,
                        DistributedRuns& job) {
  FileRuns out;
  std::vector<ScenarioRuns> files;
  std::exception_ptr load_error;
  // One second look for every file's plans on rank 0: the most any file's check counted besides
  // a run's peak (the other ranks load and check their runs themselves).
  PlanGuard guard;
  for (const std::string& path : paths) {
    try {
      const RunRequest request = scenario_file_request(path, options);
      ScenarioRuns runs = load_runs(request);
      const PlanGuard g = check_runs(
          runs.scenarios, RunShape{options.jobs, options.renders_reports}, options.limits, path);
      if (guard.limit.bytes <= 0 || g.other_bytes > guard.other_bytes) guard = g;
      files.push_back(std::move(runs));
      out.seeds.push_back(request.seeds);
    } catch (...) {
      load_error = std::current_exception();
      break;
    }
  }
  RunSettings settings{options.jobs, options.record_timings, {}};
  settings.executor = &job.executor(options.jobs);
  settings.plan_guard = guard;
  out.reports = run_all_sets(files, settings);
  if (load_error) std::rethrow_exception(load_error);
  return out;
}

}  // namespace

int run_baseline(const BaselineArgs& args, DistributedRuns* job) {
  setup_logging(args.quiet     ? Verbosity::quiet
                : args.verbose ? Verbosity::verbose
                               : Verbosity::normal);
  ScenarioRunOptions options = run_options(args.run);
  options.renders_reports = true;
  if (job != nullptr && !job->coordinates()) {
    // A worker rank: simulates the runs rank 0 hands out, numbered as run_all_sets numbers them.
    const std::vector<std::string> paths = args.scenarios;
    return job->serve(run_loader_of(paths.size(),
                                    [paths, options](std::size_t f) {
                                      return scenario_file_request(paths[f], options);
                                    }),
                      options.jobs);
  }
  // One file per scenario, named after the scenario file.
  std::vector<std::string> names;
  for (const std::string& path : args.scenarios) {
    const std::string name = fs::path(path).stem().string() + ".json";
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) {
        throw InputError(
            SourceLocation{path}, "SCENARIO",
            fmt::format("its baseline would be {}, the same as {}'s", name, args.scenarios[i]),
            "rename one of the scenario files, or write them to different --out "
            "directories");
      }
    }
    names.push_back(name);
    // Refuse before any simulation runs; the write below checks again.
    std::error_code ec;
    if (!args.force && fs::exists(fs::path(args.out_dir) / name, ec)) {
      throw InputError(SourceLocation{args.out_dir}, "--out", name + " already exists",
                       "pass --force to overwrite");
    }
  }

  const FileRuns runs = job != nullptr ? run_over_ranks(args.scenarios, options, *job)
                                       : run_in_turn(args.scenarios, options);
  std::vector<FileContent> files;
  std::vector<std::string> summaries;
  for (std::size_t i = 0; i < args.scenarios.size(); ++i) {
    const std::string& path = args.scenarios[i];
    const std::vector<Report>& reports = runs.reports[i];
    std::ostringstream json;
    write_json(json, reports);
    files.push_back(FileContent{names[i], json.str()});
    summaries.push_back(fmt::format("{}: {} report(s) of '{}', seed(s) {}",
                                    (fs::path(args.out_dir) / names[i]).string(), reports.size(),
                                    reports.empty() ? path : reports.front().scenario,
                                    fmt::join(runs.seeds[i], ", ")));
  }
  write_files_atomically(args.out_dir, files, args.force, "--out");
  for (const std::string& s : summaries) std::cout << "wrote " << s << '\n';
  return 0;
}

}  // namespace shardsim
