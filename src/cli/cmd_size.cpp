// `shardsim size SCENARIO` (cli/cmd_size.hpp, docs/report.md "Sizing").
#include "shardsim/cli/cmd_size.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <array>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "shardsim/cli/resource_guard.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/report_format.hpp"
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

namespace rf = report_format;
using SizeJson = nlohmann::ordered_json;

// The largest --max-nodes: far beyond any cluster, small enough that probing every count stays
// a loop, not a hang.
constexpr int kMaxSizingNodes = 1 << 16;

SizeJson finite_or_null(double v) {
  return std::isfinite(v) ? SizeJson(v) : SizeJson();
}

std::string target_text(const SizingTarget& t) {
  std::vector<std::string> parts;
  if (t.min_qps) parts.push_back("QPS >= " + rf::thousands(*t.min_qps));
  if (t.max_iteration_s)
    parts.push_back("iteration time <= " + rf::fixed(*t.max_iteration_s * 1e3, 3) + " ms");
  if (parts.empty()) return "fits in memory";
  std::string out = "fits in memory";
  for (const auto& p : parts) out += ", " + p;
  return out;
}

bool is_answer(const SizingResult& r, std::size_t probe, std::size_t planner) {
  return r.answer && r.answer->probe == probe && r.answer->planner == planner;
}

void write_size_text(std::ostream& out, const ScenarioSizing& s, const SizingRequest& req) {
  const SizingResult& r = s.result;
  out << fmt::format("size: {} ({}): target {}; ", s.scenario, s.source, target_text(req.target));
  out << (s.global_batch > 0
              ? fmt::format("global batch {}", rf::thousands(static_cast<double>(s.global_batch)))
              : std::string("batch per GPU as written"));
  out << fmt::format("; up to {} nodes; {}\n", req.max_nodes,
                     req.exhaustive ? "every node count" : "galloping + bisection");
  using Align = rf::TextTable::Align;
  std::vector<rf::TextTable::Column> columns{
      {"", Align::left},      {"preset", Align::left},        {"nodes", Align::right},
      {"GPUs", Align::right}, {"batch/GPU", Align::right},    {"planner", Align::left},
      {"QPS", Align::right},  {"iteration ms", Align::right}, {"peak memory GB", Align::right},
      {"fits", Align::left},  {"meets", Align::left}};
  if (s.priced) columns.push_back({"cost/1M samples", Align::right});
  rf::TextTable table(columns);
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      std::vector<std::string> cells{
          is_answer(r, i, k) ? "*" : "",
          s.presets[p.preset],
          std::to_string(p.nodes),
          std::to_string(p.gpus),
          std::to_string(p.batch_per_gpu),
          o.planner,
          o.fits ? rf::thousands(o.qps) : std::string(rf::kNotAvailable),
          o.fits ? rf::fixed(o.iteration_s * 1e3, 3) : std::string(rf::kNotAvailable),
          rf::fixed(o.memory_max_bytes / 1e9, 2),
          o.fits ? "yes" : "no",
          o.meets ? "yes" : "no"};
      if (s.priced) {
        const double c = o.cost_per_million_samples;
        cells.push_back(std::isfinite(c) ? rf::fixed(c, 4) : std::string(rf::kNotAvailable));
      }
      table.add_row(std::move(cells));
    }
  }
  table.write(out, 2);
  for (std::size_t p = 0; p < r.skipped.size(); ++p) {
    if (r.skipped[p].nodes.empty()) continue;
    out << fmt::format("  skipped {} nodes {}: {}\n", s.presets[p], node_ranges(r.skipped[p].nodes),
                       r.skipped[p].reason);
  }
  if (r.answer) {
    const SizingProbe& p = r.probes[r.answer->probe];
    const PlannerOutcome& o = p.planners[r.answer->planner];
    out << fmt::format(
        "answer: {} x {} ({} GPUs) with {}: {} QPS, iteration {} ms, peak memory {} GB", p.nodes,
        s.presets[p.preset], p.gpus, o.planner, rf::thousands(o.qps),
        rf::fixed(o.iteration_s * 1e3, 3), rf::fixed(o.memory_max_bytes / 1e9, 2));
    if (std::isfinite(o.cost_per_million_samples))
      out << fmt::format(", {} per million samples", rf::fixed(o.cost_per_million_samples, 4));
    out << "\n";
  } else {
    out << fmt::format("answer: none: no node count up to {} reaches the target\n", req.max_nodes);
  }
}

void write_size_json(std::ostream& out, const ScenarioSizing& s, const SizingRequest& req) {
  const SizingResult& r = s.result;
  SizeJson j;
  j["scenario"] = s.scenario;
  j["scenario_source"] = s.source;
  SizeJson target;
  target["qps"] = req.target.min_qps ? SizeJson(*req.target.min_qps) : SizeJson();
  target["max_iteration_time_s"] =
      req.target.max_iteration_s ? SizeJson(*req.target.max_iteration_s) : SizeJson();
  j["target"] = std::move(target);
  j["global_batch"] = s.global_batch > 0 ? SizeJson(s.global_batch) : SizeJson();
  j["max_nodes"] = req.max_nodes;
  j["search"] = req.exhaustive ? "exhaustive" : "bisection";
  j["presets"] = s.presets;
  SizeJson probes = SizeJson::array();
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      SizeJson row;
      row["preset"] = s.presets[p.preset];
      row["num_nodes"] = p.nodes;
      row["num_gpus"] = p.gpus;
      row["batch_per_gpu"] = p.batch_per_gpu;
      row["planner"] = o.planner;
      row["qps"] = o.fits ? finite_or_null(o.qps) : SizeJson();
      row["iteration_time_s"] = o.fits ? finite_or_null(o.iteration_s) : SizeJson();
      row["memory_max_bytes"] = finite_or_null(o.memory_max_bytes);
      row["fits_in_memory"] = o.fits;
      row["meets_target"] = o.meets;
      if (s.priced) row["cost_per_million_samples"] = finite_or_null(o.cost_per_million_samples);
      row["answer"] = is_answer(r, i, k);
      probes.push_back(std::move(row));
    }
  }
  j["probes"] = std::move(probes);
  SizeJson skipped = SizeJson::array();
  for (std::size_t p = 0; p < r.skipped.size(); ++p) {
    if (r.skipped[p].nodes.empty()) continue;
    skipped.push_back(SizeJson{{"preset", s.presets[p]},
                               {"num_nodes", r.skipped[p].nodes},
                               {"reason", r.skipped[p].reason}});
  }
  j["skipped"] = std::move(skipped);
  if (r.answer) {
    const SizingProbe& p = r.probes[r.answer->probe];
    const PlannerOutcome& o = p.planners[r.answer->planner];
    j["answer"] = SizeJson{{"preset", s.presets[p.preset]},
                           {"num_nodes", p.nodes},
                           {"num_gpus", p.gpus},
                           {"planner", o.planner},
                           {"qps", finite_or_null(o.qps)},
                           {"iteration_time_s", finite_or_null(o.iteration_s)}};
  } else {
    j["answer"] = nullptr;
  }
  out << j.dump(2) << "\n";
}

void write_size_csv(std::ostream& out, const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  out << "preset,num_nodes,num_gpus,batch_per_gpu,planner,qps,iteration_time_s,memory_max_bytes,"
         "fits_in_memory,meets_target,cost_per_million_samples,answer\n";
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{}\n", rf::csv_field(s.presets[p.preset]), p.nodes,
          p.gpus, p.batch_per_gpu, rf::csv_field(o.planner), o.fits ? rf::csv_number(o.qps) : "",
          o.fits ? rf::csv_number(o.iteration_s) : "", rf::csv_number(o.memory_max_bytes),
          o.fits ? "true" : "false", o.meets ? "true" : "false",
          rf::csv_number(o.cost_per_million_samples), is_answer(r, i, k) ? "true" : "false");
    }
  }
}

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
  write_size_text(text, sizing, req);
  write_size_json(json, sizing, req);
  write_size_csv(csv, sizing);
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
