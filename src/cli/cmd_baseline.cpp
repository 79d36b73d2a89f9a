// `shardsim baseline SCENARIO... --out DIR` (cli/cmd_baseline.hpp, docs/regression.md).
#include "shardsim/cli/cmd_baseline.hpp"

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

int BaselineCommand::run() const {
  return run_baseline(args_);
}

int run_baseline(const BaselineArgs& args) {
  setup_logging(args.quiet     ? Verbosity::quiet
                : args.verbose ? Verbosity::verbose
                               : Verbosity::normal);
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

  ScenarioRunOptions options = run_options(args.run);
  options.renders_reports = true;
  std::vector<FileContent> files;
  std::vector<std::string> summaries;
  for (std::size_t i = 0; i < args.scenarios.size(); ++i) {
    const std::string& path = args.scenarios[i];
    const std::vector<Report> reports = run_scenario_file(path, options);
    std::ostringstream json;
    write_json(json, reports);
    files.push_back(FileContent{names[i], json.str()});
    const std::vector<std::uint64_t> seeds = run_seeds(path, options);
    summaries.push_back(fmt::format(
        "{}: {} report(s) of '{}', seed(s) {}", (fs::path(args.out_dir) / names[i]).string(),
        reports.size(), reports.empty() ? path : reports.front().scenario, fmt::join(seeds, ", ")));
  }
  write_files_atomically(args.out_dir, files, args.force, "--out");
  for (const std::string& s : summaries) std::cout << "wrote " << s << '\n';
  return 0;
}

}  // namespace shardsim
