// `shardsim calibrate` (cli/cmd_calibrate.hpp).
#include "cli/cmd_calibrate.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/calibration_json.hpp"
#include "cli/cmd_calibrate_kernels.hpp"
#include "cli/cmd_calibrate_skeleton.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/calibration.hpp"
#include "shardsim/cost/collective_predictor.hpp"
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
  SourceLocation where;  // the row's file and line
};

// A measured bus bandwidth more than this many times the fastest link a GPU of the cluster has
// is no measurement of that cluster (real busbw stays below the link rate: nccl-tests' busbw is
// meant to be compared with it).
constexpr double kImpossibleBandwidthFactor = 10;

// Refuses a point whose bus bandwidth (size / time x nccl-tests' busbw factor) its cluster cannot
// reach: a time in the wrong unit, or a log of another machine.
void check_physical(const Measured& m) {
  const Cluster& c = *m.cluster;
  const double link_Bps = std::max(
      {c.scale_up_Bps_per_gpu(), c.scale_out_Bps_per_gpu(), c.preset().host.link.bandwidth_Bps});
  const double busbw_Bps = m.size_bytes / m.time_s * busbw_factor(m.op, c.num_gpus());
  if (busbw_Bps <= kImpossibleBandwidthFactor * link_Bps) return;
  throw InputError(
      m.where, "time",
      fmt::format("{:.6g} B in {:.6g} us is a bus bandwidth of {:.4g} GB/s, more than {:g}x the "
                  "fastest link of {} ({:.4g} GB/s a GPU): not a measurement of this machine",
                  m.size_bytes, m.time_s * 1e6, busbw_Bps / 1e9, kImpossibleBandwidthFactor,
                  c.preset().name, link_Bps / 1e9),
      "check the time's unit (microseconds) and the cluster (--preset, --nodes, the points' "
      "preset)");
}

std::vector<Measured> from_points_file(const CalibrationPoints& file) {
  // The cluster and NCCL choices of each distinct (preset, nodes, sets), loaded once.
  std::map<std::string, Measured> setups;
  std::vector<Measured> out;
  for (const MeasuredCollective& m : file.points) {
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
    out.push_back({m.label, m.op, m.size_bytes, m.time_s, setup.cluster, setup.algorithm,
                   setup.protocol, m.where});
    check_physical(out.back());
  }
  return out;
}

// The cluster a log ran on: the scenario's (calibrate_scenario), else the preset on --nodes or
// the log's host count.
std::shared_ptr<const Cluster> cluster_for_log(const CalibrateFlags& f, const NcclLog& log) {
  if (f.scenario.empty() && f.nodes == 0 && log.hosts == 0) {
    throw InputError(SourceLocation{log.file, 0, 0}, "ranks",
                     "cannot tell the rank count: the log has no rank lines, and no --nodes "
                     "says how many nodes ran it",
                     "give --nodes N (or a scenario) for the cluster that ran it");
  }
  const int nodes = f.nodes > 0 ? f.nodes : log.hosts;
  if (const std::optional<Scenario> s = calibrate_scenario(f, nodes)) {
    return std::make_shared<const Cluster>(s->cluster.preset, s->cluster.nodes);
  }
  return std::make_shared<const Cluster>(builtin_preset(f.preset, SourceLocation{}, "--preset"),
                                         nodes);
}

std::vector<Measured> from_logs(const CalibrateFlags& f) {
  std::vector<Measured> out;
  const std::optional<std::string> told =
      f.collective.empty() ? std::nullopt : nccl_test_op(f.collective);
  for (const std::string& path : f.logs) {
    const NcclLog log = read_nccl_log(path, told);
    const auto cluster = cluster_for_log(f, log);
    if (log.ranks == 0) {
      log_info("{} has no rank lines: taking its {} ranks from the cluster ({} x {})", path,
               cluster->num_gpus(), cluster->num_nodes(), cluster->preset().name);
    } else if (cluster->num_gpus() != log.ranks) {
      throw InputError(
          SourceLocation{path, 0, 0}, "ranks",
          fmt::format("the log has {} ranks on {} hosts, the cluster {} GPUs ({} x {})", log.ranks,
                      log.hosts, cluster->num_gpus(), cluster->num_nodes(), cluster->preset().name),
          "give the preset and --nodes (or a scenario) of the machine that ran it");
    }
    const CollectiveOp op = *collective_op_named(log.op);
    for (const NcclLogRow& row : log.rows) {
      // nccl-tests prints 0 B for a size rounded down to nothing: nothing to fit. Every other
      // row's time is positive, finite and under an hour (parse_nccl_log refuses the rest).
      if (!(row.size_bytes > 0)) continue;
      Measured m;
      m.label = fmt::format("{}:{}", path.substr(path.find_last_of('/') + 1), row.line);
      m.op = op;
      m.size_bytes = row.size_bytes;
      m.time_s = row.time_us * 1e-6;
      m.cluster = cluster;
      m.where = SourceLocation{path, row.line, 0};
      check_physical(m);
      out.push_back(std::move(m));
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

// A label's last 40 characters: a long file name keeps its line number.
std::string tail40(const std::string& label) {
  return label.size() > 40 ? label.substr(label.size() - 40) : label;
}

std::vector<double> measured_s(const std::vector<Measured>& ms) {
  std::vector<double> out;
  for (const Measured& m : ms) out.push_back(m.time_s);
  return out;
}

std::string cost_file_text(const CalibrationResult& r, const CostParams& start,
                           const std::vector<Measured>& ms, const std::string& source) {
  const std::vector<double> t = measured_s(ms);
  std::string text = fmt::format(
      "# Collective-model parameters fitted by `shardsim calibrate` to {} measured points ({}).\n"
      "# RMS log error {:.4f} before, {:.4f} after; median |error| {} before, {} after.\n"
      "# Load it from a scenario with `cost: {{file: THIS_FILE}}` (docs/model.md, "
      "\"Calibration\").\n",
      ms.size(), source, r.rms_log_error_before, r.rms_log_error_after,
      calibrate_pct(median_abs_error(r.before_s, t), false),
      calibrate_pct(median_abs_error(r.after_s, t), false));
  text += fmt::format("collective_model: {}\n",
                      start.collective_model == CollectiveModelKind::ideal ? "ideal" : "nccl");
  return text + fitted_params_text(r, start);
}

void print_text(const CalibrationResult& r, const std::vector<Measured>& ms,
                const std::vector<double>& loo, const std::vector<UnmatchedCollective>& left_out) {
  std::cout << fmt::format("{:<40} {:>14} {:>12} {:>12} {:>8} {:>12} {:>8}", "point", "collective",
                           "size (B)", "measured us", "start", "fitted us", "error");
  std::cout << (loo.empty() ? "\n" : fmt::format(" {:>12} {:>8}\n", "left out us", "error"));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double t = ms[i].time_s;
    std::cout << fmt::format("{:<40} {:>14} {:>12.0f} {:>12.2f} {:>8} {:>12.2f} {:>8}",
                             tail40(ms[i].label), to_string(ms[i].op), ms[i].size_bytes, t * 1e6,
                             calibrate_pct(r.before_s[i] / t - 1, true), r.after_s[i] * 1e6,
                             calibrate_pct(r.after_s[i] / t - 1, true));
    std::cout << (loo.empty() ? "\n"
                              : fmt::format(" {:>12.2f} {:>8}\n", loo[i] * 1e6,
                                            calibrate_pct(loo[i] / t - 1, true)));
  }
  std::cout << fit_summary_line(r, measured_s(ms), loo);
  for (const UnmatchedCollective& u : left_out) {
    std::cout << fmt::format("left out {} ({}): {}\n", u.label, u.where.to_string(), u.reason);
  }
}

void print_json(const CalibrationResult& r, const CostParams& start,
                const std::vector<Measured>& ms, const std::vector<double>& loo,
                const std::vector<UnmatchedCollective>& left_out) {
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
  if (!left_out.empty()) {
    out["unmatched"] = nlohmann::ordered_json::array();
    for (const UnmatchedCollective& u : left_out) {
      out["unmatched"].push_back(
          {{"label", u.label}, {"where", u.where.to_string()}, {"reason", u.reason}});
    }
  }
  const std::vector<double> t = measured_s(ms);
  add_fit_summary_json(
      out, r, start, median_abs_error(r.before_s, t), median_abs_error(r.after_s, t),
      loo.empty() ? std::nullopt : std::optional<double>(median_abs_error(loo, t)));
  std::cout << out.dump(2) << "\n";
}

// --collective and --set: what each mode takes of them.
void check_collective_and_sets(const CalibrateFlags& f) {
  if (!f.collective.empty()) {
    if (f.logs.empty()) {
      throw InputError(SourceLocation{}, "--collective",
                       "--collective names the test of nccl-tests logs, and none is given",
                       f.points.empty() ? "drop it: --kernels fits the embedding kernels"
                                        : "drop it: --points name each point's collective");
    }
    if (!nccl_test_op(f.collective)) {
      throw InputError(SourceLocation{}, "--collective",
                       fmt::format("'{}' is not a collective nccl-tests times", f.collective),
                       "allreduce, allgather, reduce_scatter, alltoall or sendrecv (or the test's "
                       "name: all_gather_perf, ...)");
    }
  }
  if (f.points.empty()) return;
  for (const std::string& kv : f.sets) {
    if (kv.rfind("cluster.", 0) == 0) {
      throw InputError(SourceLocation{}, "--set",
                       fmt::format("'{}': --points name each point's cluster", kv),
                       "put cluster overrides in the file's `sets` column; --set here changes "
                       "the starting cost parameters (cost.*)");
    }
  }
}

void check_flags(const CalibrateFlags& f) {
  check_collective_and_sets(f);
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
                    "nccl-tests output files (all_reduce_perf, alltoall_perf, ...; launcher tags "
                    "such as [1,0]<stdout>: or srun's 0: are dropped)");
  f.cmd->add_option("--collective", f.collective,
                    "the test of logs that do not name it (no '# Collective test starting' "
                    "line): allreduce, allgather, reduce_scatter, alltoall, sendrecv");
  f.cmd->add_option("--points", f.points,
                    "a CSV of measurements on several clusters instead of logs "
                    "(collective,size_bytes,time_us,preset,nodes[,sets][,label][,busbw_gbps,"
                    "ranks][,unmatched]; tests/data/collectives/points.csv is one)");
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
  f.cmd
      ->add_option("--nodes", f.nodes,
                   "its nodes (default: the log's host count; needed for a log without rank "
                   "lines)")
      ->check(CLI::PositiveNumber);
  f.cmd->add_option("--scenario", f.scenario,
                    "take the cluster and the starting cost parameters from this scenario");
  f.cmd
      ->add_option("--set", f.sets,
                   "override a value of the scenario the fit starts from (--scenario's, or the "
                   "default scenario on --preset): dotted.key=value (repeatable)")
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
  const CostParams start = calibrate_start_cost(f);
  const CalibrationPoints file =
      f.points.empty() ? CalibrationPoints{} : read_calibration_points(f.points);
  const std::vector<Measured> ms = f.points.empty() ? from_logs(f) : from_points_file(file);
  if (ms.empty()) {
    throw InputError(SourceLocation{f.logs.front(), 0, 0}, "rows", "no timed result rows",
                     "a log of nccl-tests' result table");
  }
  const std::vector<CalibrationPoint> points = terms_of(ms, start);
  const CalibrationOptions o = calibrate_options(f);
  CalibrationResult r;
  try {
    r = calibrate_collectives(points, start, o);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{}, "--params", e.what(),
                     "calibratable: collective_bandwidth_efficiency, nccl_*, alltoall_peer_*");
  }
  const std::vector<double> loo =
      !f.leave_one_out
          ? std::vector<double>{}
          : leave_each_out(
                points, "leave-one-out fits",
                [&](const std::vector<CalibrationPoint>& others, const CalibrationPoint& left) {
                  const CalibrationResult fit = calibrate_collectives(others, start, o);
                  return price(left.terms, fit.params);
                });
  if (f.format == "json") {
    print_json(r, start, ms, loo, file.unmatched);
  } else {
    print_text(r, ms, loo, file.unmatched);
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
