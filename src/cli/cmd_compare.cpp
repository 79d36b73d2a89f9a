// `shardsim compare BASELINE CANDIDATE` (cli/cmd_compare.hpp, docs/regression.md).
#include "cli/cmd_compare.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/comparison_writer.hpp"
#include "shardsim/io/report_reader.hpp"
#include "shardsim/io/tolerances.hpp"
#include "shardsim/metrics/report_compare.hpp"

namespace shardsim {

namespace {

// A side given as a scenario YAML is run; anything else is read as reports.
bool is_scenario(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  std::error_code ec;
  return (ext == ".yaml" || ext == ".yml") && !std::filesystem::is_directory(path, ec);
}

std::vector<ReportSummary> run_side(const std::string& path, ScenarioRunOptions options) {
  const std::vector<Report> reports = run_scenario_file(path, options);
  std::vector<ReportSummary> out;
  for (const Report& r : reports) {
    out.push_back(summarize_report(r, fmt::format("{} (run, seed {})", path, r.seed)));
  }
  return out;
}

// The seeds of reports read from files, sorted, each once.
std::vector<std::uint64_t> seeds_in(const std::vector<ReportSummary>& reports) {
  std::vector<std::uint64_t> seeds;
  for (const ReportSummary& r : reports) {
    if (r.seed) seeds.push_back(*r.seed);
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  return seeds;
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "compare",
      "compare candidate reports with baseline reports; exit 1 when something regressed");
  cmd_->add_option("baseline", args_.baseline,
                   "baseline: report JSON, a directory of them, or a scenario YAML to run")
      ->required();
  cmd_->add_option("candidate", args_.candidate,
                   "candidate: report JSON, a directory of them, or a scenario YAML to run")
      ->required();
  cmd_->add_option("--format", args_.format, "what to print on stdout")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  cmd_->add_option("--tolerance", args_.tolerances,
                   "relative tolerance of one metric: metric=0.02 or metric=2% (repeatable; "
                   "`all` sets every metric)")
      ->take_all();
  cmd_->add_option("--tolerances", args_.tolerance_file, "YAML tolerance file");
  cmd_->add_option("--standard-errors", args_.standard_errors,
                   "with several seeds: a difference of means counts only beyond this many "
                   "standard errors (default 2)")
      ->check(CLI::PositiveNumber);
  cmd_->add_flag("--allow-unmatched", args_.allow_unmatched,
                 "reports found on one side only do not fail the comparison");
  add_run_flags(cmd_, args_.run);
  cmd_->add_flag("-v,--verbose", args_.verbose, "debug logging on stderr");
  cmd_->add_flag("--quiet", args_.quiet, "errors only on stderr");
}

bool CompareCommand::selected() const {
  return cmd_->parsed();
}

int CompareCommand::run() const {
  return run_compare(args_);
}

int run_compare(const CompareArgs& args) {
  setup_logging(args.quiet     ? Verbosity::quiet
                : args.verbose ? Verbosity::verbose
                               : Verbosity::normal);
  CompareOptions options;
  if (!args.tolerance_file.empty()) apply_tolerance_file(options, args.tolerance_file);
  for (const std::string& t : args.tolerances) apply_tolerance_flag(options, t);
  if (args.standard_errors) options.standard_errors = *args.standard_errors;
  options.allow_unmatched = args.allow_unmatched;

  const bool base_runs = is_scenario(args.baseline);
  const bool cand_runs = is_scenario(args.candidate);
  if (!base_runs && !cand_runs && args.run.given()) {
    throw InputError(SourceLocation{"shardsim compare"},
                     "--seeds/--seed/--set/--iterations/--timings",
                     "these flags say how to run a scenario, but neither side is one",
                     "give a scenario YAML as BASELINE or CANDIDATE, or drop the flags");
  }
  // Read the report sides first, so a bad file fails before anything runs.
  std::vector<ReportSummary> baseline;
  std::vector<ReportSummary> candidate;
  if (!base_runs) baseline = read_reports(args.baseline);
  if (!cand_runs) candidate = read_reports(args.candidate);

  ScenarioRunOptions run = run_options(args.run);
  // A scenario compared with reports runs the reports' seeds unless told otherwise.
  if (!args.run.seeds && !args.run.seed) {
    if (base_runs != cand_runs) run.seeds = seeds_in(base_runs ? candidate : baseline);
  }
  if (base_runs) baseline = run_side(args.baseline, run);
  if (cand_runs) candidate = run_side(args.candidate, run);

  const Comparison result = compare_reports(baseline, candidate, options);
  if (args.format == "json") {
    write_comparison_json(std::cout, result);
  } else if (args.format == "csv") {
    write_comparison_csv(std::cout, result);
  } else {
    write_comparison_text(std::cout, result);
  }
  std::cout.flush();
  if (result.failed()) {
    log_error("compare: {} vs {}: failed (see the table)", args.baseline, args.candidate);
    return static_cast<int>(ExitCode::check_failed);
  }
  return 0;
}

}  // namespace shardsim
