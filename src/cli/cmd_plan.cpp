#include "cli/cmd_plan.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/resource_guard.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/model_summary_writer.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/plan_stats_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/io/torchrec_plan.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/model_summary.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/run/resource_estimate.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/scenario_plans.hpp"

namespace shardsim {

struct PlanCommand::Flags {
  CLI::App* cmd = nullptr;
  std::string scenario;
  std::string planner;
  std::string out;
  std::string format = "text";
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  bool stats = false;
  bool force = false;
  bool verbose = false;
  bool quiet = false;
  GuardFlags guard;
};

namespace {

namespace fs = std::filesystem;

struct NamedPlan {
  Plan plan;
  PlanStats stats;
};

// The plans `run` would simulate, with their statistics: planner_name's (--planner), else the
// scenario's; a planner that cannot place the tables throws its DoesNotFitError (exit 3).
std::vector<NamedPlan> make_named_plans(const Scenario& sc, const ScenarioPlanner& planner,
                                        const std::string& planner_name) {
  const Cluster& cluster = planner.cluster();
  std::vector<NamedPlan> plans;
  auto add = [&](ScenarioPlan p) {
    if (!p.plan) throw *p.unplaced;  // exit 3, as before
    PlanStats stats =
        compute_plan_stats(*p.plan, cluster, sc.model, sc.workload, planner.trace(), sc.cost);
    plans.push_back(NamedPlan{std::move(*p.plan), std::move(stats)});
  };
  if (!planner_name.empty()) {
    add(planner.plan_with(planner_name, "--planner"));
  } else {
    for (ScenarioPlan& p : planner.plans()) add(std::move(p));
  }
  return plans;
}

// Logs each plan over a GPU's capacity; exit code 3 when there is one, else 0.
int check_named_plans_fit(const std::vector<NamedPlan>& plans, const Scenario& sc,
                          const Cluster& cluster) {
  int code = 0;
  for (const NamedPlan& p : plans) {
    try {
      check_fits(plan_memory(p.plan, cluster, sc.model, sc.workload), cluster);
    } catch (const DoesNotFitError& e) {
      log_error("{}: {}", p.plan.planner, e.what());
      code = static_cast<int>(ExitCode::does_not_fit);
    }
  }
  return code;
}

// `--format torchrec`: the one plan as TorchRec's ShardingPlan, on stdout or to `out`, unless it
// does not fit (`code`, returned).
int write_torchrec_plan(const std::vector<NamedPlan>& plans, const Scenario& sc,
                        const Cluster& cluster, const std::string& out, bool force, int code) {
  if (plans.size() != 1) {
    throw InputError(
        SourceLocation{sc.source}, "--format",
        fmt::format("the scenario gives {} plans; --format torchrec writes one", plans.size()),
        "choose one with --planner NAME");
  }
  if (code != 0) return code;
  const std::string text = torchrec_plan_json(plans.front().plan, sc.model, cluster).dump(2) + "\n";
  if (out.empty()) {
    std::cout << text;
  } else {
    write_file_atomically(out, text, force, "--out");
    log_info("wrote the {} plan as TorchRec's ShardingPlan to {}", plans.front().plan.planner, out);
  }
  return 0;
}

// `--stats --format json`: the plans' statistics and the model summary as one JSON object.
void print_plan_stats_json(const std::vector<NamedPlan>& plans, const ModelSummary& summary,
                           double shardsim_ram_bytes) {
  // The planner's own statistics (torchrec's), when it gives them, as their text lines.
  const auto with_planner_stats = [](const NamedPlan& p) {
    nlohmann::ordered_json j = plan_stats_to_json(p.stats);
    if (!p.plan.planner_stats.empty()) j["planner_stats"] = p.plan.planner_stats;
    return j;
  };
  nlohmann::ordered_json j;
  if (plans.size() == 1) {
    j = with_planner_stats(plans.front());
  } else {
    j["plans"] = nlohmann::ordered_json::array();
    for (const NamedPlan& p : plans) j["plans"].push_back(with_planner_stats(p));
  }
  j["model"] = model_summary_to_json(summary, shardsim_ram_bytes);
  std::cout << j.dump(2) << '\n';
}

// `--stats`: each plan's statistics (and its planner's own) as text, then the model summary.
void print_plan_stats_text(const std::vector<NamedPlan>& plans, const Scenario& sc,
                           const Cluster& cluster, const ModelSummary& summary,
                           double shardsim_ram_bytes) {
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (i > 0) std::cout << '\n';
    std::cout << fmt::format("scenario {} | planner {} | {} GPUs | {} tables\n\n", sc.name,
                             plans[i].plan.planner, cluster.num_gpus(), sc.model.tables.size());
    write_plan_stats_text(std::cout, plans[i].stats, 0);
    if (!plans[i].plan.planner_stats.empty()) {
      std::cout << fmt::format("\nthe planner's own statistics ({}):\n\n", plans[i].plan.planner);
      for (const std::string& line : plans[i].plan.planner_stats) std::cout << line << '\n';
    }
  }
  std::cout << '\n';
  write_model_summary_text(std::cout, summary, shardsim_ram_bytes);
}

}  // namespace

PlanCommand::PlanCommand(CLI::App& app) : flags_(std::make_unique<Flags>()) {
  Flags& f = *flags_;
  f.cmd = app.add_subcommand(
      "plan", "run a planner without simulating: write the plan file and/or its statistics");
  f.cmd->add_option("scenario", f.scenario, "scenario YAML file (none: the built-in default)");
  f.cmd->add_option("--planner", f.planner,
                    "planner to run (default: the scenario's, or its placement.file)");
  f.cmd->add_option("--out", f.out,
                    "write the plan here (.json: JSON, otherwise YAML); without --out and "
                    "--stats the plan is printed");
  f.cmd->add_flag("--force", f.force, "overwrite an existing --out file");
  f.cmd->add_flag("--stats", f.stats, "print the plan statistics");
  f.cmd
      ->add_option("--format", f.format,
                   "format of --stats on stdout (text, json), or `torchrec`: the plan as "
                   "TorchRec's ShardingPlan (docs/python.md, \"TorchRec\"), on stdout or --out")
      ->check(CLI::IsMember({"text", "json", "torchrec"}));
  f.cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  f.cmd->add_option("--seed", f.seed, "override workload.seed");
  f.cmd->add_flag("-v,--verbose", f.verbose, "debug logging on stderr");
  f.cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
  add_guard_flags(f.cmd, f.guard, false);
}

PlanCommand::~PlanCommand() = default;

bool PlanCommand::selected() const {
  return flags_->cmd->parsed();
}

int PlanCommand::run() const {
  const Flags& f = *flags_;
  setup_logging(f.quiet ? Verbosity::quiet : f.verbose ? Verbosity::verbose : Verbosity::normal);
  std::vector<Override> overrides;
  for (const auto& s : f.sets) overrides.push_back(parse_override(s));
  if (f.seed) overrides.push_back({"workload.seed", std::to_string(*f.seed)});
  // Installs the guard's check of a document before its nodes are built (run/
  // resource_loading_estimate.hpp), so a scenario too large to load is refused while loading.
  const ResourceLimits limits = resource_limits(f.guard);
  const Scenario sc = f.scenario.empty() ? load_default_scenario(overrides)
                                         : load_scenario_file(f.scenario, overrides);
  if (!sc.sweep.empty()) {
    log_warn("{}: has a sweep block; `plan` ignores it", sc.source);
  }
  const PlanGuard guard = check_runs({&sc, 1}, RunShape{}, limits, sc.source);
  // What the model is, printed after the plans (docs/report.md "Model summary"), with the
  // resource guard's estimate of shardsim's own memory that check_runs just checked.
  const ModelSummary summary =
      summarize_model(sc.model, sc.workload, sc.cluster.preset, sc.cluster.nodes);
  const double shardsim_ram_bytes = estimate_memory({&sc, 1}, RunShape{}).total_bytes;
  if (!f.out.empty()) check_file_writable(f.out, f.force, "--out");  // before planning
  // The plans `run` would simulate (run/scenario_plans.hpp): --planner, else the scenario's.
  const ScenarioPlanner planner(sc);
  const Cluster& cluster = planner.cluster();
  const std::vector<NamedPlan> plans = make_named_plans(sc, planner, f.planner);
  for (const NamedPlan& p : plans) check_plan(sc, p.plan, guard);  // before their analyses
  if (!f.out.empty() && plans.size() != 1) {
    throw InputError(SourceLocation{sc.source}, "--out",
                     fmt::format("the scenario gives {} plans; --out writes one", plans.size()),
                     "choose one with --planner NAME");
  }

  // A plan over a GPU's capacity is reported, never written.
  const int code = check_named_plans_fit(plans, sc, cluster);
  if (f.format == "torchrec") return write_torchrec_plan(plans, sc, cluster, f.out, f.force, code);
  if (!f.out.empty() && code == 0) {
    std::ostringstream text;
    write_plan(text, plans.front().plan, sc.model, cluster, plan_format_for_path(f.out),
               PlanFileInfo{sc.name});
    write_file_atomically(f.out, text.str(), f.force, "--out");
    log_info("wrote the {} plan ({} shards) to {}", plans.front().plan.planner,
             plans.front().plan.shards.size(), f.out);
  }
  if (f.stats && f.format == "json") {
    print_plan_stats_json(plans, summary, shardsim_ram_bytes);
  } else if (f.stats) {
    print_plan_stats_text(plans, sc, cluster, summary, shardsim_ram_bytes);
  } else if (f.out.empty()) {
    for (const NamedPlan& p : plans) {
      write_plan(std::cout, p.plan, sc.model, cluster, PlanFormat::yaml, PlanFileInfo{sc.name});
    }
    // As YAML comments, so that what is printed still reads back as a plan file.
    std::cout << "#\n";
    write_model_summary_text(std::cout, summary, shardsim_ram_bytes, "model", "# ");
  } else {
    write_model_summary_text(std::cout, summary, shardsim_ram_bytes);
  }
  std::cout.flush();
  return code;
}

}  // namespace shardsim
