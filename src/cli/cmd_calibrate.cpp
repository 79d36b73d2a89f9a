// `shardsim calibrate` (cli/cmd_calibrate.hpp).
#include "shardsim/cli/cmd_calibrate.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "shardsim/cli/calibration_json.hpp"
#include "shardsim/cli/cmd_calibrate_kernels.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/calibration.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/calibration_points.hpp"
#include "shardsim/io/nccl_log.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

namespace {

// One measured point with its cluster (shared between points of the same machine).
struct Measured {
  std::string label;
  CollectiveOp op = CollectiveOp::allreduce;
  double size_bytes = 0;
  double time_s = 0;
  std::shared_ptr<const Cluster> cluster;
  // What the point's run forced on NCCL (its sets' cost.nccl_algorithm / cost.nccl_protocol).
  NcclAlgorithm algorithm = NcclAlgorithm::any;
  NcclProtocolChoice protocol = NcclProtocolChoice::any;
};

std::vector<Measured> from_points_file(const std::string& path) {
  // The cluster and NCCL choices of each distinct (preset, nodes, sets), loaded once.
  std::map<std::string, Measured> setups;
  std::vector<Measured> out;
  for (const MeasuredCollective& m : read_calibration_points(path)) {
    std::vector<Override> sets = {{"cluster.preset", m.preset},
                                  {"cluster.nodes", std::to_string(m.nodes)}};
    sets.insert(sets.end(), m.sets.begin(), m.sets.end());
    std::string key;
    for (const Override& o : sets) key += o.key + "=" + o.value + ";";
    Measured& setup = setups[key];
    if (!setup.cluster) {
      try {
        const Scenario s = load_default_scenario(sets);
        setup.cluster = std::make_shared<const Cluster>(s.cluster.preset, s.cluster.nodes);
        setup.algorithm = s.cost.nccl_algorithm;
        setup.protocol = s.cost.nccl_protocol;
      } catch (const InputError& e) {
        throw InputError(m.where, "preset", fmt::format("this point's cluster: {}", e.what()),
                         "a built-in preset (`shardsim hw list`) and scenario overrides");
      }
    }
    out.push_back(
        {m.label, m.op, m.size_bytes, m.time_s, setup.cluster, setup.algorithm, setup.protocol});
  }
  return out;
}

std::shared_ptr<const Cluster> cluster_for_logs(const CalibrateFlags& f, int hosts) {
  if (!f.scenario.empty()) {
    std::vector<Override> overrides;
    for (const auto& s : f.sets) overrides.push_back(parse_override(s));
    const Scenario s = load_scenario_file(f.scenario, overrides);
    return std::make_shared<const Cluster>(s.cluster.preset, s.cluster.nodes);
  }
  const int nodes = f.nodes > 0 ? f.nodes : hosts;
  return std::make_shared<const Cluster>(builtin_preset(f.preset, SourceLocation{}, "--preset"),
                                         nodes);
}

std::vector<Measured> from_logs(const CalibrateFlags& f) {
  std::vector<Measured> out;
  for (const std::string& path : f.logs) {
    const NcclLog log = read_nccl_log(path);
    const auto cluster = cluster_for_logs(f, log.hosts);
    if (cluster->num_gpus() != log.ranks) {
      throw InputError(
          SourceLocation{path, 0, 0}, "ranks",
          fmt::format("the log has {} ranks on {} hosts, the cluster {} GPUs ({} x {})", log.ranks,
                      log.hosts, cluster->num_gpus(), cluster->num_nodes(), cluster->preset().name),
          "give the preset and --nodes (or a scenario) of the machine that ran it");
    }
    const CollectiveOp op = *collective_op_named(log.op);
    for (const NcclLogRow& row : log.rows) {
      if (!(row.time_us > 0)) continue;  // nccl-tests prints 0 for a size it skipped
      out.push_back({fmt::format("{}:{}", path.substr(path.find_last_of('/') + 1), row.line), op,
                     row.size_bytes, row.time_us * 1e-6, cluster});
    }
  }
  return out;
}

std::vector<CalibrationPoint> terms_of(const std::vector<Measured>& ms, const CostParams& p) {
  std::vector<CalibrationPoint> out;
  Progress progress("taking the measured collectives apart", ms.size());
  for (const Measured& m : ms) {
    progress.advance();
    // The fitted parameters, with the point's own NCCL choices where its sets force any.
    CostParams forced = p;
    if (m.algorithm != NcclAlgorithm::any) forced.nccl_algorithm = m.algorithm;
    if (m.protocol != NcclProtocolChoice::any) forced.nccl_protocol = m.protocol;
    out.push_back({collective_terms(*m.cluster, m.op, m.size_bytes, forced), m.time_s, m.label});
  }
  progress.finish();
  return out;
}

// Each point predicted by a fit on all the others.
std::vector<double> leave_one_out(const std::vector<CalibrationPoint>& points,
                                  const CostParams& start, const CalibrationOptions& o) {
  std::vector<double> out;
  Progress progress("leave-one-out fits", points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    progress.advance();
    std::vector<CalibrationPoint> others;
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (k != i) others.push_back(points[k]);
    }
    const CalibrationResult r = calibrate_collectives(others, start, o);
    out.push_back(price(points[i].terms, r.params));
  }
  progress.finish();
  return out;
}

// "+12.3%" / "12.3%": fmt has no percent presentation.
std::string pct(double x, bool sign) {
  return sign ? fmt::format("{:+.1f}%", 100 * x) : fmt::format("{:.1f}%", 100 * x);
}

double median_abs_error(const std::vector<double>& predicted, const std::vector<Measured>& ms) {
  std::vector<double> e;
  for (std::size_t i = 0; i < ms.size(); ++i)
    e.push_back(std::abs(predicted[i] / ms[i].time_s - 1));
  std::sort(e.begin(), e.end());
  const std::size_t n = e.size();
  return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

std::string cost_file_text(const CalibrationResult& r, const CostParams& start,
                           const std::vector<Measured>& ms, const std::string& source) {
  std::string text = fmt::format(
      "# Collective-model parameters fitted by `shardsim calibrate` to {} measured points ({}).\n"
      "# RMS log error {:.4f} before, {:.4f} after; median |error| {} before, {} after.\n"
      "# Load it from a scenario with `cost: {{file: THIS_FILE}}` (docs/model.md, "
      "\"Calibration\").\n",
      ms.size(), source, r.rms_log_error_before, r.rms_log_error_after,
      pct(median_abs_error(r.before_s, ms), false), pct(median_abs_error(r.after_s, ms), false));
  text += fmt::format("collective_model: {}\n",
                      start.collective_model == CollectiveModelKind::ideal ? "ideal" : "nccl");
  for (const std::string& name : r.fitted) {
    text += fmt::format("{}: {:.6g}  # was {:.6g}\n", name, cost_param_value(r.params, name),
                        cost_param_value(start, name));
  }
  return text;
}

void print_text(const CalibrationResult& r, const std::vector<Measured>& ms,
                const std::vector<double>& loo) {
  std::cout << fmt::format("{:<40} {:>14} {:>12} {:>12} {:>8} {:>12} {:>8}", "point", "collective",
                           "size (B)", "measured us", "start", "fitted us", "error");
  std::cout << (loo.empty() ? "\n" : fmt::format(" {:>12} {:>8}\n", "left out us", "error"));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double t = ms[i].time_s;
    std::cout << fmt::format("{:<40} {:>14} {:>12.0f} {:>12.2f} {:>8} {:>12.2f} {:>8}",
                             ms[i].label.substr(0, 40), to_string(ms[i].op), ms[i].size_bytes,
                             t * 1e6, pct(r.before_s[i] / t - 1, true), r.after_s[i] * 1e6,
                             pct(r.after_s[i] / t - 1, true));
    std::cout << (loo.empty()
                      ? "\n"
                      : fmt::format(" {:>12.2f} {:>8}\n", loo[i] * 1e6, pct(loo[i] / t - 1, true)));
  }
  std::cout << fmt::format(
      "{} points: median |error| {} with the starting parameters, {} fitted to all{}; "
      "RMS log error {:.4f} -> {:.4f} in {} iterations\n",
      ms.size(), pct(median_abs_error(r.before_s, ms), false),
      pct(median_abs_error(r.after_s, ms), false),
      loo.empty() ? "" : fmt::format(", {} each left out", pct(median_abs_error(loo, ms), false)),
      r.rms_log_error_before, r.rms_log_error_after, r.iterations);
}

void print_json(const CalibrationResult& r, const CostParams& start,
                const std::vector<Measured>& ms, const std::vector<double>& loo) {
  nlohmann::ordered_json out;
  out["points"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < ms.size(); ++i) {
    nlohmann::ordered_json p = {
        {"label", ms[i].label},           {"collective", to_string(ms[i].op)},
        {"size_bytes", ms[i].size_bytes}, {"measured_s", ms[i].time_s},
        {"start_s", r.before_s[i]},       {"fitted_s", r.after_s[i]}};
    if (!loo.empty()) p["left_out_s"] = loo[i];
    out["points"].push_back(p);
  }
  add_fit_summary_json(
      out, r, start, median_abs_error(r.before_s, ms), median_abs_error(r.after_s, ms),
      loo.empty() ? std::nullopt : std::optional<double>(median_abs_error(loo, ms)));
  std::cout << out.dump(2) << "\n";
}

void check_flags(const CalibrateFlags& f) {
  if (!f.kernel_sets.empty() && f.kernels.empty()) {
    throw InputError(SourceLocation{}, "--kernel-set", "--kernel-set applies to --kernels logs",
                     "give FBGEMM benchmark logs with --kernels FILE...");
  }
  if (!f.kernels.empty()) return check_kernel_flags(f);
  if (f.logs.empty() == f.points.empty()) {
    throw InputError(SourceLocation{}, f.points.empty() ? "LOG" : "--points",
                     f.points.empty() ? "no measurements given" : "both logs and --points given",
                     "give nccl-tests logs with the cluster that ran them (--preset P or "
                     "--scenario F), or --points FILE");
  }
  if (!f.logs.empty() && f.preset.empty() == f.scenario.empty()) {
    throw InputError(SourceLocation{}, "--preset",
                     f.preset.empty() ? "the logs need the cluster that ran them"
                                      : "both a preset and a scenario given",
                     "give --preset NAME [--nodes N] or --scenario FILE [--set key=value]");
  }
  if (!f.points.empty() && !f.preset.empty()) {
    throw InputError(SourceLocation{}, "--preset", "--points name each point's preset",
                     "drop --preset (a --scenario still gives the starting cost parameters)");
  }
  if (f.leave_one_out && !f.out.empty()) {
    throw InputError(SourceLocation{}, "--out", "--leave-one-out fits once per point",
                     "run without --leave-one-out to write the fit to all points");
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app, CalibrateFlags& f) {
  f.cmd = app.add_subcommand("calibrate",
                             "fit the collective model to measured nccl-tests times (or, with "
                             "--kernels, the embedding kernels to FBGEMM benchmark output) and "
                             "write a cost file");
  f.cmd->add_option("logs", f.logs,
                    "nccl-tests output files (all_reduce_perf, alltoall_perf, ...)");
  f.cmd->add_option("--points", f.points,
                    "a CSV of measurements on several clusters instead of logs "
                    "(collective,size_bytes,time_us,preset,nodes[,sets][,label])");
  f.cmd
      ->add_option("--kernels", f.kernels,
                   "fit the embedding kernels instead: output files of FBGEMM's "
                   "split_table_batched_embeddings_benchmark (with --preset or --scenario for "
                   "the GPU)")
      ->expected(1, -1);
  f.cmd
      ->add_option("--kernel-set", f.kernel_sets,
                   "a benchmark setting the --kernels logs do not record: alpha=1.15, "
                   "weights-precision=fp16, optimizer=rowwise_adagrad|adagrad|sgd, pooling=none "
                   "(repeatable)")
      ->take_all();
  f.cmd->add_option("--preset", f.preset, "the hardware preset of the machine the logs ran on");
  f.cmd->add_option("--nodes", f.nodes, "its nodes (default: the log's host count)")
      ->check(CLI::PositiveNumber);
  f.cmd->add_option("--scenario", f.scenario,
                    "take the cluster and the starting cost parameters from this scenario");
  f.cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  f.cmd
      ->add_option("--params", f.params,
                   "the parameters to fit (comma-separated; default all but the tree's own "
                   "latencies, nccl_tree_*)")
      ->delimiter(',');
  f.cmd
      ->add_option("--prior-weight", f.prior_weight,
                   "pull of the starting values against the points (default 0.1)")
      ->check(CLI::Range(0.0, 1e6));
  f.cmd
      ->add_option("--robust-scale", f.robust_scale,
                   "Cauchy loss scale on log errors (0 = plain least squares; default 0.25)")
      ->check(CLI::Range(0.0, 100.0));
  f.cmd->add_flag("--leave-one-out", f.leave_one_out,
                  "also predict each point from a fit to all the others");
  f.cmd->add_option("--out", f.out, "write the fitted parameters here (a cost file)");
  f.cmd->add_flag("--force", f.force, "overwrite --out if it exists");
  f.cmd->add_option("--format", f.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  f.cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
}

int run_calibrate_command(const CalibrateFlags& f) {
  setup_logging(f.quiet ? Verbosity::quiet : Verbosity::normal);
  check_flags(f);
  if (!f.out.empty()) check_file_writable(f.out, f.force, "--out");
  if (!f.kernels.empty()) return run_calibrate_kernels(f);
  CostParams start = default_cost_params();
  if (!f.scenario.empty()) {
    std::vector<Override> overrides;
    for (const auto& s : f.sets) overrides.push_back(parse_override(s));
    start = load_scenario_file(f.scenario, overrides).cost;
  }
  const std::vector<Measured> ms = f.points.empty() ? from_logs(f) : from_points_file(f.points);
  if (ms.empty()) {
    throw InputError(SourceLocation{f.logs.front(), 0, 0}, "rows", "no timed result rows",
                     "a log of nccl-tests' result table");
  }
  const std::vector<CalibrationPoint> points = terms_of(ms, start);
  CalibrationOptions o;
  o.parameters = f.params;
  o.prior_weight = f.prior_weight;
  o.robust_scale = f.robust_scale;
  CalibrationResult r;
  try {
    r = calibrate_collectives(points, start, o);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{}, "--params", e.what(),
                     "calibratable: collective_bandwidth_efficiency, nccl_*, alltoall_peer_*");
  }
  const std::vector<double> loo =
      f.leave_one_out ? leave_one_out(points, start, o) : std::vector<double>{};
  if (f.format == "json") {
    print_json(r, start, ms, loo);
  } else {
    print_text(r, ms, loo);
  }
  if (!f.out.empty()) {
    const std::string source =
        f.points.empty() ? fmt::format("{} log(s)", f.logs.size()) : f.points;
    write_file_atomically(f.out, cost_file_text(r, start, ms, source), f.force, "--out");
    log_info("wrote {}", f.out);
  }
  return 0;
}

}  // namespace shardsim
