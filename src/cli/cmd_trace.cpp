// `shardsim trace`: gen, stats, import (docs/traces.md §11).
#include "cli/cmd_trace.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "cli/trace_fit_command.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/core/progress_cadence.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/synthetic_trace_writer.hpp"
#include "shardsim/trace/table_counts.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/trace_stats.hpp"

namespace shardsim {

namespace fs = std::filesystem;

// The flags of `trace` and its subcommands but `fit` (a member of TraceCommand::State).
struct TraceFlags {
  std::string input;
  std::string out;
  std::string format = "text";
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> iterations;
  int jobs = 1;
  bool force = false;
  bool verbose = false;
  bool quiet = false;
};

namespace {

Scenario load(const TraceFlags& s) {
  std::vector<Override> overrides;
  for (const auto& o : s.sets) overrides.push_back(parse_override(o));
  if (s.seed) overrides.push_back({"workload.seed", std::to_string(*s.seed)});
  if (s.iterations) overrides.push_back({"workload.iterations", std::to_string(*s.iterations)});
  Scenario sc = load_scenario_file(s.input, overrides);
  if (!sc.sweep.empty())
    log_warn("{}: has a sweep block; `trace` uses the scenario without it", s.input);
  return sc;
}

SyntheticTraceShape shape_of(const Scenario& sc) {
  return SyntheticTraceShape{sc.cluster.nodes * sc.cluster.preset.gpus_per_node,
                             sc.workload.batch_per_gpu,
                             sc.workload.warmup + sc.workload.iterations};
}

// The scenario's trace must be synthetic for `gen`, and for `stats SCENARIO` it may be either.
bool is_recorded_trace_path(const std::string& path) {
  return is_trace_file(path) || (path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0);
}

int run_gen(const TraceFlags& s) {
  const Scenario sc = load(s);
  if (!sc.workload.trace.file.empty())
    throw InputError(SourceLocation{s.input}, "workload.trace.file",
                     "the scenario replays a recorded trace; `trace gen` writes synthetic ones",
                     "remove workload.trace.file, or use `trace stats` on the recorded file");
  const SyntheticTraceShape shape = shape_of(sc);
  log_info("generating {} iterations x {} GPUs x {} samples of {} tables", shape.iterations,
           shape.gpus, shape.samples_per_gpu, sc.model.tables.size());
  write_file_atomically(s.out, s.force, "--out", [&](const std::string& tmp) {
    write_synthetic_trace(tmp, sc.model, sc.workload, shape, s.jobs);
  });
  std::error_code ec;
  std::cout << fmt::format("wrote {}: {} tables, {} samples each, {:.1f} MB\n", s.out,
                           sc.model.tables.size(), shape.samples(),
                           static_cast<double>(fs::file_size(s.out, ec)) / 1e6);
  return 0;
}

int run_import(const TraceFlags& s) {
  const auto trace = read_trace_csv(s.input);
  write_file_atomically(s.out, s.force, "--out",
                        [&](const std::string& tmp) { write_trace_file(tmp, *trace); });
  std::cout << fmt::format("wrote {}: {} tables, {} samples each\n", s.out, trace->num_tables(),
                           trace->num_samples());
  return 0;
}

nlohmann::ordered_json stats_json(const TraceTableStats& t) {
  nlohmann::ordered_json j;
  j["lookups"] = t.lookups;
  if (t.distinct_exact)
    j["distinct_rows"] = static_cast<std::uint64_t>(t.distinct_rows);
  else
    j["distinct_rows"] = t.distinct_rows;
  j["mean_pooling"] = t.mean_pooling;
  j["top1pct_share"] = t.top1pct_share;
  if (t.distinct_exact) {
    std::vector<std::uint64_t> counts;
    for (double d : t.hist_distinct_by_count) counts.push_back(static_cast<std::uint64_t>(d));
    j["hist_distinct_by_count"] = counts;
  } else {
    j["hist_distinct_by_count"] = t.hist_distinct_by_count;
  }
  j["hist_lookups_by_count"] = t.hist_lookups_by_count;
  j["alpha_fit"] = t.alpha_fit ? nlohmann::ordered_json(*t.alpha_fit) : nlohmann::ordered_json();
  return j;
}

std::string bin_label(std::size_t j) {
  if (j == 0) return "(0,1]";
  return fmt::format("({},{}]", std::uint64_t{1} << (j - 1), std::uint64_t{1} << j);
}

void print_text(std::ostream& out, const std::string& source, const TraceStats& st) {
  out << fmt::format("trace: {} ({} tables, {} samples per table)\n", source, st.tables.size(),
                     st.tables.empty() ? 0 : st.tables.front().samples);
  const auto line = [&](const TraceTableStats& t) {
    out << fmt::format(
        "{}: {} lookups, {}{} distinct rows, mean pooling {:.3f}, top 1% of rows {:.1f}% of "
        "lookups, alpha_fit {}\n",
        t.name, t.lookups, t.distinct_exact ? "" : "~", fmt::format("{:.0f}", t.distinct_rows),
        t.mean_pooling, 100 * t.top1pct_share,
        t.alpha_fit ? fmt::format("{:.4f}", *t.alpha_fit) : std::string("-"));
    std::string bins = "  accesses ", rows = "  rows     ", share = "  lookups% ";
    for (std::size_t j = 0; j < t.hist_distinct_by_count.size(); ++j) {
      const std::string label = bin_label(j);
      const std::size_t w = std::max<std::size_t>(label.size(), 9) + 1;
      bins += fmt::format("{:>{}}", label, w);
      rows += fmt::format("{:>{}.0f}", t.hist_distinct_by_count[j], w);
      share += fmt::format("{:>{}.2f}", 100 * t.hist_lookups_by_count[j], w);
    }
    out << bins << "\n" << rows << "\n" << share << "\n";
  };
  for (const auto& t : st.tables) line(t);
  line(st.overall);
}

const std::chrono::milliseconds kStatsProgressInterval{10000};

int run_stats(const TraceFlags& s) {
  std::vector<TableCounts> counts;
  std::vector<std::string> names;
  std::uint64_t samples = 0;
  if (is_recorded_trace_path(s.input)) {
    if (!s.sets.empty() || s.seed || s.iterations)
      throw InputError(SourceLocation{s.input}, "--set/--seed/--iterations",
                       "these change a scenario, but this is a recorded trace",
                       "drop them, or pass a scenario file");
    const auto trace = open_recorded_trace(s.input);
    samples = trace->num_samples();
    counts.resize(trace->num_tables());
    // One line every 10 s, not every 2 s: `trace stats` runs for minutes on big traces and its
    // answer is on stdout (issue 18: it flooded stderr).
    Progress progress("reading tables", counts.size(), progress_interval(kStatsProgressInterval));
    std::mutex m;
    parallel_for(counts.size(), s.jobs, [&](std::size_t t) {
      counts[t] = table_counts(*build_empirical_profile(*trace, t));
      std::lock_guard lock(m);
      progress.advance();
    });
    progress.finish();
    for (std::size_t t = 0; t < counts.size(); ++t) names.push_back(trace->table(t).name);
  } else {
    const Scenario sc = load(s);
    if (!sc.workload.trace.file.empty()) {
      TraceFlags file = s;
      file.input = sc.workload.trace.file;
      file.sets.clear();
      file.seed.reset();
      file.iterations.reset();
      log_info("the scenario replays {}", file.input);
      return run_stats(file);
    }
    const SyntheticTraceShape shape = shape_of(sc);
    samples = shape.samples();
    counts.resize(sc.model.tables.size());
    Progress progress("generating tables", counts.size(),
                      progress_interval(kStatsProgressInterval));
    std::mutex m;
    parallel_for(counts.size(), s.jobs, [&](std::size_t t) {
      // Counted in rank space (the same numbers as the generated file's, issue 59).
      counts[t] = synthetic_table_counts(BagGenerator(sc.model.tables[t], t, sc.workload), shape);
      std::lock_guard lock(m);
      progress.advance();
    });
    progress.finish();
    for (const auto& t : sc.model.tables) names.push_back(t.name);
  }
  const TraceStats st = compute_trace_stats(counts, names, samples);
  if (s.format == "json") {
    nlohmann::ordered_json j;
    // Tables keyed by name; when names repeat (hand-made files), by t<index> instead.
    const bool unique = std::set<std::string>(names.begin(), names.end()).size() == names.size();
    j["tables"] = nlohmann::ordered_json::object();
    for (std::size_t t = 0; t < st.tables.size(); ++t)
      j["tables"][unique && !names[t].empty() ? names[t] : fmt::format("t{}", t)] =
          stats_json(st.tables[t]);
    j["overall"] = stats_json(st.overall);
    std::cout << j.dump(2) << "\n";
  } else {
    print_text(std::cout, s.input, st);
  }
  return 0;
}

}  // namespace

struct TraceCommand::State {
  CLI::App* trace = nullptr;
  CLI::App* gen = nullptr;
  CLI::App* stats = nullptr;
  CLI::App* import = nullptr;
  CLI::App* fit = nullptr;
  TraceFlags flags;
  TraceFitFlags fit_flags;
};

TraceCommand::TraceCommand(CLI::App& app) : s_(std::make_unique<State>()) {
  State& st = *s_;
  TraceFlags& s = st.flags;
  st.trace = app.add_subcommand("trace", "generate, summarise and convert traces");
  st.trace->require_subcommand(1);
  const auto common = [&](CLI::App* c) {
    c->add_flag("-v,--verbose", s.verbose, "debug logging on stderr");
    c->add_flag("--quiet", s.quiet, "errors only on stderr");
  };
  const auto scenario_flags = [&](CLI::App* c) {
    c->add_option("--set", s.sets, "override a scenario value: dotted.key=value (repeatable)")
        ->take_all();
    c->add_option("--seed", s.seed, "override workload.seed");
    c->add_option("--iterations", s.iterations, "override workload.iterations")
        ->check(CLI::PositiveNumber);
    c->add_option("--jobs,-j", s.jobs, "tables generated in parallel (results do not depend on it)")
        ->check(CLI::PositiveNumber);
  };
  st.gen = st.trace->add_subcommand(
      "gen", "write a scenario's synthetic trace (warmup + iterations, every GPU's batch)");
  st.gen->add_option("scenario", s.input, "scenario YAML file")->required();
  st.gen->add_option("--out", s.out, "trace file to write")->required();
  st.gen->add_flag("--force", s.force, "overwrite an existing --out file");
  scenario_flags(st.gen);
  common(st.gen);

  st.stats = st.trace->add_subcommand(
      "stats",
      "lookups, distinct rows, pooling, skew and fitted alpha of a trace file or scenario");
  st.stats->add_option("input", s.input, "trace file (binary or .csv) or scenario YAML")
      ->required();
  st.stats->add_option("--format", s.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  scenario_flags(st.stats);
  common(st.stats);

  st.import = st.trace->add_subcommand("import", "convert a CSV trace to a binary trace file");
  st.import->add_option("csv", s.input, "CSV trace (table,sample,row per line)")->required();
  st.import->add_option("--out", s.out, "trace file to write")->required();
  st.import->add_flag("--force", s.force, "overwrite an existing --out file");
  common(st.import);

  st.fit = st.trace->add_subcommand(
      "fit", "fit generator parameters to target access statistics; write a model: fragment");
  add_trace_fit_options(*st.fit, st.fit_flags);
  common(st.fit);
}

TraceCommand::~TraceCommand() = default;

bool TraceCommand::parsed() const {
  return s_->trace->parsed();
}

int TraceCommand::run() const {
  const TraceFlags& f = s_->flags;
  setup_logging(f.quiet ? Verbosity::quiet : f.verbose ? Verbosity::verbose : Verbosity::normal);
  if (s_->gen->parsed()) return run_gen(f);
  if (s_->import->parsed()) return run_import(f);
  if (s_->fit->parsed()) return run_trace_fit(s_->fit_flags);
  return run_stats(f);
}

}  // namespace shardsim
