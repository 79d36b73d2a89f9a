// `shardsim size SCENARIO` (cli/cmd_size.hpp, docs/report.md "Sizing").
#include "cli/cmd_size.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <array>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "cli/resource_guard.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/sizing_writer.hpp"
#include "shardsim/run/distributed_runs.hpp"
#include "shardsim/run/point_store.hpp"
#include "shardsim/run/scenario_sizing.hpp"

namespace shardsim {

struct SizeCommand::Flags {
  CLI::App* cmd = nullptr;
  std::string scenario;
  std::optional<double> target_qps;
  bool fit = false;
  std::optional<double> max_iteration_ms;
  std::optional<double> margin_pct;  // not given: default_sizing_margin() with a target
  std::vector<std::string> presets;
  int max_nodes = 128;
  int jobs = 1;
  bool exhaustive = false;
  std::string format = "text";
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> iterations;
  bool verbose = false;
  bool quiet = false;
  std::string out_dir;
  bool force = false;
  bool resume = false;
  GuardFlags guard;
};

namespace {

// The largest --max-nodes: far beyond any cluster, small enough that probing every count stays
// a loop, not a hang.
constexpr int kMaxSizingNodes = 1 << 16;

SizingRequest size_request_of(const SizeCommand::Flags& f);

}  // namespace

SizeCommand::SizeCommand(CLI::App& app) : flags_(std::make_unique<Flags>()) {
  Flags& f = *flags_;
  f.cmd = app.add_subcommand(
      "size", "the fewest GPUs (nodes of one or more presets) and the planner that reach a target");
  f.cmd->add_option("scenario", f.scenario, "scenario YAML file")->required();
  auto* qps = f.cmd->add_option("--target-qps", f.target_qps, "the QPS to reach")
                  ->check(CLI::PositiveNumber);
  auto* fit = f.cmd->add_flag("--fit", f.fit, "the smallest cluster where some planner fits");
  qps->excludes(fit);
  f.cmd
      ->add_option("--max-iteration-ms", f.max_iteration_ms,
                   "also (or only) require a mean iteration time at most this")
      ->check(CLI::PositiveNumber);
  f.cmd
      ->add_option("--margin", f.margin_pct,
                   "size for the target + P percent (QPS x (1 + P/100), iteration time / (1 + "
                   "P/100)); default: the measured median error of whole-iteration predictions "
                   "(docs/validation/training.md); 0 for none")
      ->check(CLI::NonNegativeNumber);
  f.cmd
      ->add_option("--presets", f.presets,
                   "built-in presets to search, comma-separated (default: the scenario's)")
      ->delimiter(',');
  f.cmd->add_option("--max-nodes", f.max_nodes, "the largest node count tried (default 128)")
      ->check(CLI::Range(1, kMaxSizingNodes));
  f.cmd
      ->add_option("--jobs,-j", f.jobs,
                   "presets searched in parallel (results do not depend on it)")
      ->check(CLI::PositiveNumber);
  f.cmd->add_flag("--exhaustive", f.exhaustive,
                  "probe every node count instead of galloping + bisection (the brute force)");
  f.cmd->add_option("--format", f.format, "what to print on stdout")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  f.cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  f.cmd->add_option("--seed", f.seed, "override workload.seed");
  f.cmd->add_option("--iterations", f.iterations, "override workload.iterations")
      ->check(CLI::PositiveNumber);
  f.cmd->add_option("--out", f.out_dir,
                    "also write size.txt, size.json and size.csv under DIR, and keep each "
                    "finished probe under DIR/points for --resume");
  f.cmd->add_flag("--force", f.force, "overwrite the files under --out (and start over)");
  f.cmd->add_flag("--resume", f.resume,
                  "take the probes an interrupted search kept under --out DIR/points; only the "
                  "missing ones run (the outputs are the same bytes)");
  f.cmd->add_flag("-v,--verbose", f.verbose, "debug logging on stderr");
  f.cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
  add_guard_flags(f.cmd, f.guard, false);
}

SizeCommand::~SizeCommand() = default;

bool SizeCommand::selected() const {
  return flags_->cmd->parsed();
}

namespace {

constexpr std::array<std::string_view, 3> kSizeFiles{"size.txt", "size.json", "size.csv"};

// `--out DIR` with `--resume` / `--force`, as `sweep` takes them (docs/robustness.md): checked
// before any probe runs, so that nothing is simulated for an output that would be refused.
void check_size_out(const SizeCommand::Flags& f) {
  if (f.resume && f.out_dir.empty()) {
    throw InputError(SourceLocation{"shardsim size"}, "--resume", "--resume needs --out DIR",
                     "give the --out DIR of the sizing search to resume");
  }
  if (f.force && f.out_dir.empty()) {
    throw InputError(SourceLocation{"shardsim size"}, "--force",
                     "--force overwrites the files of --out DIR, and there is no --out",
                     "add --out DIR, or drop --force (standard output is never refused)");
  }
  if (f.out_dir.empty()) return;
  if (!f.resume && !f.force) {
    const std::size_t kept = CheckpointDir::count_in(f.out_dir);
    if (kept > 0) {
      throw InputError(
          SourceLocation{CheckpointDir::folder_of(f.out_dir).string(), 0, 0}, "--out",
          fmt::format("holds {} finished probe(s) of an earlier sizing search", kept),
          "add --resume to reuse them (only the missing probes run), or --force to start over");
    }
  }
  const std::vector<std::string> names(kSizeFiles.begin(), kSizeFiles.end());
  // A resumed search rewrites its own outputs.
  check_files_writable(f.out_dir, names, f.force || f.resume, "--out");
}

SizingRequest size_request_of(const SizeCommand::Flags& f) {
  if (!f.target_qps && !f.fit && !f.max_iteration_ms) {
    throw InputError(SourceLocation{"shardsim size"}, "--target-qps",
                     "no target: say what the cluster must reach",
                     "give --target-qps X, --fit (the smallest cluster that fits) or "
                     "--max-iteration-ms M");
  }
  SizingRequest req;
  req.path = f.scenario;
  for (const std::string& s : f.sets) req.overrides.push_back(parse_override(s));
  if (f.seed) req.overrides.push_back({"workload.seed", std::to_string(*f.seed)});
  if (f.iterations) req.overrides.push_back({"workload.iterations", std::to_string(*f.iterations)});
  for (const std::string& p : f.presets) {
    if (p.empty()) {
      throw InputError(SourceLocation{"shardsim size"}, "--presets", "an empty preset name",
                       "list built-in presets separated by commas, e.g. dgx-a100,dgx-h100");
    }
    for (const std::string& q : req.presets) {
      if (q == p) {
        throw InputError(SourceLocation{"shardsim size"}, "--presets",
                         fmt::format("preset '{}' is listed twice", p), "list each preset once");
      }
    }
    req.presets.push_back(p);
  }
  req.max_nodes = f.max_nodes;
  req.target.min_qps = f.target_qps;
  if (f.max_iteration_ms) req.target.max_iteration_s = *f.max_iteration_ms / 1e3;
  if (f.margin_pct) {
    req.margin_pct = *f.margin_pct;
  } else if (req.target.min_qps || req.target.max_iteration_s) {
    const SizingMargin m = default_sizing_margin();
    req.margin_pct = m.pct;
    req.margin_source = m.source;
  }
  req.exhaustive = f.exhaustive;
  req.jobs = f.jobs;
  req.limits = resource_limits(f.guard);
  return req;
}

}  // namespace

int SizeCommand::run(DistributedRuns* job) const {
  const Flags& f = *flags_;
  setup_logging(f.quiet ? Verbosity::quiet : f.verbose ? Verbosity::verbose : Verbosity::normal);
  SizingRequest req = size_request_of(f);
  if (job != nullptr && !job->coordinates()) {  // a worker rank: probes what rank 0 hands out
    return job->serve(sizing_run_loader(req), f.jobs);
  }
  if (job != nullptr) {
    req.executor = &job->executor(f.jobs);
    req.probes_at_once = job->size() * f.jobs;  // every rank's slots busy
  }
  check_size_out(f);
  std::optional<CheckpointDir> points;
  if (!f.out_dir.empty()) {
    points.emplace(f.out_dir, f.resume);
    const std::size_t stale = f.resume ? points->remove_stale_temporaries() : 0;
    if (stale > 0) log_info("removed {} half-written probe file(s) of an interrupted run", stale);
    req.store = &*points;
  }
  ScenarioSizing sizing;
  try {
    sizing = size_scenario(req);
  } catch (...) {
    if (points) points->remove_if_empty();  // the probes have stopped: nothing writes there now
    throw;
  }
  if (f.resume) {
    log_info("resume: {} probe(s) taken from their checkpoints; simulated {}", sizing.probes_kept,
             sizing.probes_simulated);
  }
  std::ostringstream text, json, csv;
  write_sizing_text(text, sizing);
  write_sizing_json(json, sizing);
  write_sizing_csv(csv, sizing);
  if (!f.out_dir.empty()) {
    const std::vector<FileContent> files{{std::string(kSizeFiles[0]), text.str()},
                                         {std::string(kSizeFiles[1]), json.str()},
                                         {std::string(kSizeFiles[2]), csv.str()}};
    write_files_atomically(f.out_dir, files, f.force || f.resume, "--out");
    log_info("wrote size.txt, size.json and size.csv under {}", f.out_dir);
  }
  std::cout << (f.format == "json" ? json.str() : f.format == "csv" ? csv.str() : text.str());
  std::cout.flush();
  if (sizing.result.answer) return 0;
  const bool fit_only = !req.target.min_qps && !req.target.max_iteration_s;
  log_error("size: no node count up to {} {}", req.max_nodes,
            fit_only ? "fits the model in memory with any planner"
                     : "reaches the target with any planner");
  return static_cast<int>(fit_only ? ExitCode::does_not_fit : ExitCode::check_failed);
}

}  // namespace shardsim
