// `shardsim calibrate --kernels` (cli/cmd_calibrate_kernels.hpp).
#include "cli/cmd_calibrate_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/calibration_json.hpp"
#include "cli/cmd_calibrate_skeleton.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/kernel_calibration.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/fbgemm_log.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {

namespace {

// One benchmark line as a point, with what the report shows of it.
struct KernelMeasured {
  KernelPoint point;
  std::string pass;
  double batch = 0, rows = 0, tables = 0, dim = 0, bag = 0, alpha = 1;
};

// The settings that apply to a log: the log's own, then --kernel-set over them.
struct KernelSettings {
  std::map<std::string, std::string> values;
  std::map<std::string, SourceLocation> where;
  const std::string* find(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
  }
  SourceLocation at(const std::string& key) const {
    const auto it = where.find(key);
    return it == where.end() ? SourceLocation{} : it->second;
  }
};

KernelSettings settings_of(const FbgemmLog& log, const std::vector<std::string>& sets) {
  KernelSettings s;
  for (const auto& [k, v] : log.settings) {
    s.values[k] = v;
    s.where[k] = SourceLocation{log.file, log.setting_lines.at(k), 0};
  }
  for (const std::string& kv : sets) {
    const std::size_t eq = kv.find('=');
    std::string key = kv.substr(0, eq);
    if (key.rfind("--", 0) == 0) key = key.substr(2);
    s.values[key] = kv.substr(eq + 1);
    s.where[key] = SourceLocation{};
  }
  return s;
}

double setting_number(const KernelSettings& s, const std::string& key, double fallback) {
  const std::string* v = s.find(key);
  if (!v) return fallback;
  std::size_t used = 0;
  try {
    const double x = std::stod(*v, &used);
    if (used == v->size() && std::isfinite(x)) return x;
  } catch (const std::exception&) {
  }
  throw InputError(s.at(key), key, fmt::format("'{}' is not a number", *v),
                   fmt::format("--kernel-set {}=NUMBER", key));
}

Precision precision_of(const std::string& name, const SourceLocation& where) {
  if (name == "fp32" || name == "FP32") return Precision::fp32;
  if (name == "fp16" || name == "FP16") return Precision::fp16;
  if (name == "bf16" || name == "BF16") return Precision::bf16;
  throw InputError(where, "weights-precision",
                   fmt::format("weights of precision '{}' are not modelled (the embedding "
                               "roofline knows fp32, fp16 and bf16 rows)",
                               name),
                   "calibrate on runs with --weights-precision fp32, fp16 or bf16");
}

OptimizerKind optimizer_of(const KernelSettings& s) {
  if (const std::string* o = s.find("optimizer")) {
    if (*o == "rowwise_adagrad" || *o == "exact_rowwise_adagrad") {
      return OptimizerKind::rowwise_adagrad;
    }
    if (*o == "adagrad" || *o == "exact_adagrad") return OptimizerKind::adagrad;
    if (*o == "sgd" || *o == "exact_sgd") return OptimizerKind::sgd;
    throw InputError(s.at("optimizer"), "optimizer",
                     fmt::format("optimizer '{}' is not modelled", *o),
                     "optimizer=rowwise_adagrad, adagrad or sgd");
  }
  const std::string* no = s.find("no-row-wise");
  if (no && *no != "false") return OptimizerKind::adagrad;
  const std::string* rw = s.find("row-wise");
  if (rw && *rw == "false") return OptimizerKind::adagrad;
  return OptimizerKind::rowwise_adagrad;  // the benchmark's default (--row-wise)
}

// Expected distinct rows of `lookups` draws from `rows` rows as the benchmark draws them
// (generate_requests): uniform for alpha <= 1, Zipf p(k) ~ k^-alpha over k = 1..E otherwise.
double distinct_rows_of(double rows, double alpha, double lookups, const SourceLocation& where) {
  if (alpha <= 1.0) return -rows * std::expm1(lookups * std::log1p(-1.0 / rows));
  EmbeddingTable t;
  t.name = "fbgemm";
  t.rows = static_cast<std::uint64_t>(rows);
  t.dim = 1;
  t.alpha = alpha;
  try {
    const PowerLawProfile profile(t, HotRowLayout::clustered, 0);
    return profile.expected_distinct(RowRange{0, t.rows}, RowSpace::rank, lookups);
  } catch (const std::invalid_argument& e) {
    throw InputError(where, "alpha", fmt::format("alpha {}: {}", alpha, e.what()),
                     "a Zipf exponent above 1, or <= 1 for the benchmark's uniform indices");
  }
}

void check_command(const FbgemmLog& log, const KernelSettings& s) {
  const std::string& c = log.command;
  if (c == "uvm" || c == "cache" || c == "nbit-uvm" || c == "nbit-cache" || c == "cpu" ||
      c == "nbit-cpu" || c == "nbit-uvm-compare-direct-mapped") {
    throw InputError(SourceLocation{log.file, 0, 0}, "command",
                     fmt::format("the '{}' benchmark runs tables outside HBM (UVM, caches or the "
                                 "CPU), which the embedding roofline does not model",
                                 c),
                     "calibrate on the 'device' (or 'nbit-device') benchmark");
  }
  const std::string* managed = s.find("managed");
  if (managed && *managed != "device") {
    throw InputError(
        s.at("managed"), "managed",
        fmt::format("--managed {}: tables in managed (UVM) memory are not modelled", *managed),
        "calibrate on runs with --managed device (the default)");
  }
}

std::vector<KernelMeasured> kernel_points_of(const CalibrateFlags& f) {
  std::vector<KernelMeasured> out;
  for (const std::string& path : f.kernels) {
    const FbgemmLog log = read_fbgemm_log(path);
    const KernelSettings s = settings_of(log, f.kernel_sets);
    check_command(log, s);
    const OptimizerKind optimizer = optimizer_of(s);
    const std::string* pooling = s.find("pooling");
    const bool no_bag = pooling && *pooling == "none";
    const std::string stem = path.substr(path.find_last_of('/') + 1);
    for (const FbgemmLogRow& row : log.rows) {
      const SourceLocation where{path, row.line, 0};
      KernelMeasured m;
      m.pass = row.pass;
      m.batch = row.batch, m.rows = row.rows, m.tables = row.tables, m.dim = row.dim;
      m.bag = row.bag;
      m.alpha = row.alpha ? *row.alpha : setting_number(s, "alpha", 1.0);
      std::string precision = "fp32";
      if (const std::string* wp = s.find("weights-precision")) precision = *wp;
      if (const std::string* fp16 = s.find("fp16"); fp16 && *fp16 != "false") precision = "fp16";
      if (row.precision) precision = *row.precision;
      EmbeddingWork w;
      w.lookups = row.batch * row.bag;
      w.pooled_outputs = no_bag ? w.lookups : row.batch;
      w.distinct_rows = distinct_rows_of(row.rows, m.alpha, w.lookups, where);
      w.cols = static_cast<std::uint32_t>(std::lround(row.dim));
      w.rows = row.rows;
      w.precision = precision_of(precision, row.precision ? where : s.at("weights-precision"));
      m.point.works.assign(static_cast<std::size_t>(row.tables), w);
      m.point.pass = row.pass == "Forward"    ? KernelPass::forward
                     : row.pass == "Backward" ? KernelPass::backward
                                              : KernelPass::forward_backward;
      m.point.optimizer = optimizer;
      m.point.measured_s = row.time_us * 1e-6;
      m.point.label = fmt::format("{}:{}", stem, row.line);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::vector<KernelPoint> points_only(const std::vector<KernelMeasured>& ms) {
  std::vector<KernelPoint> out;
  for (const KernelMeasured& m : ms) out.push_back(m.point);
  return out;
}

std::vector<double> kernel_measured_s(const std::vector<KernelMeasured>& ms) {
  std::vector<double> out;
  for (const KernelMeasured& m : ms) out.push_back(m.point.measured_s);
  return out;
}

void print_kernel_text(const KernelCalibrationResult& r, const CostParams& start,
                       const std::vector<KernelMeasured>& ms, const std::vector<double>& loo) {
  std::cout << fmt::format(
      "{:<36} {:>15} {:>7} {:>9} {:>4} {:>5} {:>5} {:>5} {:>11} {:>8} {:>11} "
      "{:>8}",
      "point", "pass", "B", "E", "T", "D", "L", "alpha", "measured us", "start", "fitted us",
      "error");
  std::cout << (loo.empty() ? "\n" : fmt::format(" {:>11} {:>8}\n", "left out us", "error"));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const KernelMeasured& m = ms[i];
    const double t = m.point.measured_s;
    std::cout << fmt::format(
        "{:<36} {:>15} {:>7.0f} {:>9.0f} {:>4.0f} {:>5.0f} {:>5.0f} {:>5.2f} {:>11.1f} {:>8} "
        "{:>11.1f} {:>8}",
        m.point.label.substr(0, 36), to_string(m.point.pass), m.batch, m.rows, m.tables, m.dim,
        m.bag, m.alpha, t * 1e6, calibrate_pct(r.before_s[i] / t - 1, true), r.after_s[i] * 1e6,
        calibrate_pct(r.after_s[i] / t - 1, true));
    std::cout << (loo.empty() ? "\n"
                              : fmt::format(" {:>11.1f} {:>8}\n", loo[i] * 1e6,
                                            calibrate_pct(loo[i] / t - 1, true)));
  }
  std::cout << fit_summary_line(r, kernel_measured_s(ms), loo);
  for (const std::string& name : r.fitted) {
    std::cout << fmt::format("  {}: {:.6g} (start {:.6g})\n", name,
                             cost_param_value(r.params, name), cost_param_value(start, name));
  }
}

void print_kernel_json(const KernelCalibrationResult& r, const CostParams& start,
                       const std::vector<KernelMeasured>& ms, const std::vector<double>& loo) {
  nlohmann::ordered_json out;
  out["points"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const KernelMeasured& m = ms[i];
    nlohmann::ordered_json p = {{"label", m.point.label},
                                {"pass", to_string(m.point.pass)},
                                {"B", m.batch},
                                {"E", m.rows},
                                {"T", m.tables},
                                {"D", m.dim},
                                {"L", m.bag},
                                {"alpha", m.alpha},
                                {"measured_s", m.point.measured_s},
                                {"start_s", r.before_s[i]},
                                {"fitted_s", r.after_s[i]}};
    if (!loo.empty()) p["left_out_s"] = loo[i];
    out["points"].push_back(p);
  }
  const std::vector<double> t = kernel_measured_s(ms);
  add_fit_summary_json(
      out, r, start, median_abs_error(r.before_s, t), median_abs_error(r.after_s, t),
      loo.empty() ? std::nullopt : std::optional<double>(median_abs_error(loo, t)));
  std::cout << out.dump(2) << "\n";
}

std::string kernel_cost_file_text(const KernelCalibrationResult& r, const CostParams& start,
                                  const std::vector<KernelMeasured>& ms, const std::string& gpu,
                                  std::size_t logs) {
  std::string text = fmt::format(
      "# Embedding-kernel parameters fitted by `shardsim calibrate --kernels` to {} measured "
      "points ({} FBGEMM benchmark log(s), {}).\n"
      "# RMS log error {:.4f} before, {:.4f} after; median |error| {} before, {} after.\n"
      "# Load it from a scenario with `cost: {{file: THIS_FILE}}` (docs/model.md, "
      "\"Calibration of the embedding kernels\").\n",
      ms.size(), logs, gpu, r.rms_log_error_before, r.rms_log_error_after,
      calibrate_pct(median_abs_error(r.before_s, kernel_measured_s(ms)), false),
      calibrate_pct(median_abs_error(r.after_s, kernel_measured_s(ms)), false));
  return text + fitted_params_text(r, start);
}

}  // namespace

void check_kernel_flags(const CalibrateFlags& f) {
  if (!f.logs.empty() || !f.points.empty()) {
    throw InputError(SourceLocation{}, "--kernels",
                     "--kernels fits the embedding kernels; nccl-tests logs and --points fit "
                     "the collectives",
                     "run `shardsim calibrate` once for each");
  }
  if (f.preset.empty() == f.scenario.empty()) {
    throw InputError(SourceLocation{}, "--preset",
                     f.preset.empty() ? "the --kernels logs need the GPU that ran them"
                                      : "both a preset and a scenario given",
                     "give --preset NAME (`shardsim hw list`) or --scenario FILE");
  }
  for (const std::string& kv : f.kernel_sets) {
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
      throw InputError(SourceLocation{}, "--kernel-set", fmt::format("'{}' is not key=value", kv),
                       "e.g. --kernel-set alpha=1.15");
    }
  }
  if (f.leave_one_out && !f.out.empty()) {
    throw InputError(SourceLocation{}, "--out", "--leave-one-out fits once per point",
                     "run without --leave-one-out to write the fit to all points");
  }
}

int run_calibrate_kernels(const CalibrateFlags& f) {
  const std::optional<Scenario> sc = calibrate_scenario(f, std::nullopt);
  const CostParams start = sc ? sc->cost : default_cost_params();
  const GpuSpec gpu =
      sc ? sc->cluster.preset.gpu : builtin_preset(f.preset, SourceLocation{}, "--preset").gpu;
  const std::vector<KernelMeasured> ms = kernel_points_of(f);
  const std::vector<KernelPoint> points = points_only(ms);
  const CalibrationOptions o = calibrate_options(f);
  const auto t0 = std::chrono::steady_clock::now();
  KernelCalibrationResult r;
  std::vector<double> loo;
  try {
    r = calibrate_kernels(gpu, points, start, o);
    if (f.leave_one_out) {
      loo = leave_each_out(points, "leave-one-out kernel fits",
                           [&](const std::vector<KernelPoint>& others, const KernelPoint& left) {
                             return predict_kernel_s(
                                 gpu, left, calibrate_kernels(gpu, others, start, o).params);
                           });
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{}, "--params", e.what(),
                     "calibratable: kernel_hbm_efficiency, kernel_dim_half_cols, "
                     "kernel_pooling_half, kernel_distinct_penalty, kernel_tables_half, "
                     "repeat_lookup_hbm_fraction");
  }
  log_debug("kernel fit{} in {:.3f} s", f.leave_one_out ? "s" : "",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (f.format == "json") {
    print_kernel_json(r, start, ms, loo);
  } else {
    print_kernel_text(r, start, ms, loo);
  }
  if (!f.out.empty()) {
    write_file_atomically(f.out, kernel_cost_file_text(r, start, ms, gpu.name, f.kernels.size()),
                          f.force, "--out");
    log_info("wrote {}", f.out);
  }
  return 0;
}

}  // namespace shardsim
