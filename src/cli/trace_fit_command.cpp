// `shardsim trace fit TARGET --scenario S [--out FILE]` (docs/traces.md §13): fits generator
// parameters to target access statistics and writes a `model:` fragment.
#include "cli/trace_fit_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <mutex>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/trace_fit.hpp"
#include "shardsim/trace/trace_stats.hpp"

namespace shardsim {

namespace {

// The statistics of a trace file (binary or .csv) as a target: overall and per table.
FitTarget target_from_trace(const std::string& path, int jobs) {
  const auto trace = open_recorded_trace(path);
  std::vector<std::unique_ptr<EmpiricalProfile>> profiles(trace->num_tables());
  Progress progress("reading tables", profiles.size());
  std::mutex m;
  parallel_for(profiles.size(), jobs, [&](std::size_t t) {
    profiles[t] = build_empirical_profile(*trace, t);
    std::lock_guard lock(m);
    progress.advance();
  });
  progress.finish();
  std::vector<const EmpiricalProfile*> ptrs;
  std::vector<std::string> names;
  for (std::size_t t = 0; t < profiles.size(); ++t) {
    ptrs.push_back(profiles[t].get());
    names.push_back(trace->table(t).name);
  }
  const TraceStats st = compute_trace_stats(ptrs, names, trace->num_samples());
  if (st.overall.lookups == 0)
    throw InputError(SourceLocation{path}, "--from-trace", "the trace has no lookups",
                     "fit to a trace with lookups");
  FitTarget t;
  t.file = path;
  t.source = path;
  t.tables = st.tables.size();
  t.batch_size = static_cast<double>(trace->num_samples());
  t.lookups = static_cast<double>(st.overall.lookups);
  t.distinct_rows = st.overall.distinct_rows;
  t.pooling = t.lookups / (static_cast<double>(t.tables) * t.batch_size);
  t.overall = CountShares{bin_shares(st.overall.hist_distinct_by_count),
                          bin_shares(st.overall.hist_lookups_by_count)};
  for (const TraceTableStats& s : st.tables) {
    if (s.lookups == 0) {
      log_warn("{}: table {} has no lookups; it is fitted as one row seen once", path, s.name);
    }
    TableTarget tt;
    tt.name = s.name;
    tt.rows = s.rows;
    tt.lookups = std::max<double>(1.0, static_cast<double>(s.lookups));
    tt.hist = s.lookups == 0 ? CountShares{{1.0}, {1.0}}
                             : CountShares{bin_shares(s.hist_distinct_by_count),
                                           bin_shares(s.hist_lookups_by_count)};
    t.per_table.push_back(std::move(tt));
  }
  return t;
}

std::string table_line(const EmbeddingTable& t) {
  return fmt::format(
      "    - {{name: {}, rows: {}, dim: {}, pooling: {}, alpha: {:.6g}, q: {:.6g}}}\n", t.name,
      t.rows, t.dim, t.pooling.value, t.alpha, t.q);
}

std::string distances_text(const HistogramDistances& d) {
  return fmt::format("rows {:.4f}, lookups {:.4f}", d.rows, d.lookups);
}

}  // namespace

void add_trace_fit_options(CLI::App& fit, TraceFitFlags& f) {
  fit.add_option("target", f.target,
                 "target statistics (YAML/JSON, docs/traces.md §13), or a trace file with "
                 "--from-trace")
      ->required();
  fit.add_option("--scenario", f.scenario, "the scenario whose model is fitted")->required();
  fit.add_option("--out", f.out, "write the model: fragment here (default: stdout)");
  fit.add_flag("--force", f.force, "overwrite an existing --out file");
  fit.add_flag("--from-trace", f.from_trace,
               "TARGET is a trace file (binary or .csv): fit every table to its statistics");
  fit.add_option("--classes", f.classes, "table classes of a population fit (default 6)")
      ->check(CLI::Range(1, 16));
  fit.add_option("--tables", f.tables,
                 "tables in the fragment of a population fit (default: the target's)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  fit.add_option("--jobs,-j", f.jobs, "tables fitted in parallel (results do not depend on it)")
      ->check(CLI::PositiveNumber);
}

int run_trace_fit(const TraceFitFlags& f) {
  const FitTarget target =
      f.from_trace ? target_from_trace(f.target, f.jobs) : load_fit_target(f.target);
  const Scenario sc = load_scenario_file(f.scenario);
  const double samples = static_cast<double>(sc.cluster.nodes * sc.cluster.preset.gpus_per_node) *
                         sc.workload.batch_per_gpu * (sc.workload.warmup + sc.workload.iterations);
  if (samples != target.batch_size)
    log_warn(
        "{}: its trace has {} samples per table (GPUs x batch_per_gpu x (warmup + iterations)) "
        "but the target was measured over {}; the fit is for {} samples",
        f.scenario, samples, target.batch_size, target.batch_size);
  const std::size_t open = target.open_bin();
  const HistogramDistances before = histogram_distances(
      expected_overall_histograms(sc.model.tables, target.batch_size), target.overall, open);
  std::cout << fmt::format("target: {} ({} tables, batch {}, {:.4g} lookups)\n",
                           target.source.empty() ? target.file : target.source, target.tables,
                           target.batch_size, target.lookups);
  std::cout << fmt::format("before (the scenario's {} tables): L1 {}\n", sc.model.tables.size(),
                           distances_text(before));
  const std::uint32_t dim = sc.model.tables.empty() ? 16 : sc.model.tables.front().dim;
  FitOptions options;
  options.classes = f.classes;
  std::vector<EmbeddingTable> tables;
  std::string notes;
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t start_cpu = std::clock();
  if (!target.per_table.empty()) {
    const std::vector<TableFit> fits = fit_tables(target, options, f.jobs);
    double worst = 0, mean = 0;
    std::size_t worst_i = 0;
    for (std::size_t i = 0; i < fits.size(); ++i) {
      EmbeddingTable t;
      t.name =
          target.per_table[i].name.empty() ? fmt::format("fit{}", i) : target.per_table[i].name;
      t.rows = fits[i].fitted.rows;
      t.dim = i < sc.model.tables.size() ? sc.model.tables[i].dim : dim;
      t.pooling.kind = PoolingSpec::Kind::fixed;
      t.pooling.value = target.per_table[i].lookups / target.batch_size;
      t.alpha = fits[i].fitted.alpha;
      t.q = fits[i].fitted.q;
      tables.push_back(std::move(t));
      const double d = std::max(fits[i].after.rows, fits[i].after.lookups);
      if (d > worst) {
        worst = d;
        worst_i = i;
      }
      mean += fits[i].after.sum() / 2 / static_cast<double>(fits.size());
    }
    const std::string line =
        fmt::format("per table after: mean L1 {:.4f}, worst {:.4f} ({}: {}; before {})", mean,
                    worst, tables[worst_i].name, distances_text(fits[worst_i].after),
                    distances_text(fits[worst_i].before));
    notes += "# " + line + "\n";
    std::cout << line << "\n";
  } else {
    const PopulationFit fit = fit_population(target, options);
    tables = population_tables(fit.classes, f.tables.value_or(target.tables), target.pooling, dim,
                               "fit");
    for (std::size_t c = 0; c < fit.classes.size(); ++c) {
      const TableClass& k = fit.classes[c];
      const std::string line =
          fmt::format("class {}: rows {}, alpha {:.4f}, q {:.4g}, share of tables {:.4f}", c,
                      k.rows, k.alpha, k.q, k.share);
      notes += "# " + line + "\n";
      std::cout << line << "\n";
    }
  }
  const double fit_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double fit_cpu_s = static_cast<double>(std::clock() - start_cpu) / CLOCKS_PER_SEC;
  const HistogramDistances after = histogram_distances(
      expected_overall_histograms(tables, target.batch_size), target.overall, open);
  std::cout << fmt::format(
      "after ({} tables): L1 {} (closed form; fitted in {:.2f} s, {:.2f} s CPU)\n", tables.size(),
      distances_text(after), fit_s, fit_cpu_s);
  std::string text = fmt::format(
      "# written by `shardsim trace fit {}{} --scenario {}` (docs/traces.md §13)\n"
      "# target: {}, {} samples; L1 distances of the expected histograms (closed form):\n"
      "#   before (the scenario's tables): {}\n#   after: {}\n{}"
      "# Replaces the scenario's model.tables / model.generate; sample a trace of {} samples to\n"
      "# check (`shardsim trace stats`).\nmodel:\n  tables:\n",
      f.from_trace ? "--from-trace " : "", f.target, f.scenario,
      target.source.empty() ? target.file : target.source, target.batch_size,
      distances_text(before), distances_text(after), notes, target.batch_size);
  for (const EmbeddingTable& t : tables) text += table_line(t);
  if (f.out.empty()) {
    std::cout << text;
  } else {
    write_file_atomically(f.out, text, f.force, "--out");
    std::cout << fmt::format("wrote {}: {} tables\n", f.out, tables.size());
  }
  return 0;
}

}  // namespace shardsim
