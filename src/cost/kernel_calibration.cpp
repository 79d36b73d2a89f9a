// Least-squares calibration of the embedding kernels' efficiency (cost/kernel_calibration.hpp).
#include "shardsim/cost/kernel_calibration.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "cost/log_parameter_fit.hpp"

namespace shardsim {

namespace {

struct KernelKnob {
  std::string_view name;
  double CostParams::*member;
  bool fraction;  // capped at 1
  double seed;    // where the fit starts when the parameter starts at 0
};

constexpr KernelKnob kKernelKnobs[] = {
    {"kernel_hbm_efficiency", &CostParams::kernel_hbm_efficiency, true, 1.0},
    {"kernel_dim_half_cols", &CostParams::kernel_dim_half_cols, false, 16.0},
    {"kernel_pooling_half", &CostParams::kernel_pooling_half, false, 1.0},
    {"kernel_distinct_penalty", &CostParams::kernel_distinct_penalty, false, 0.1},
    {"kernel_tables_half", &CostParams::kernel_tables_half, false, 1.0},
    {"repeat_lookup_hbm_fraction", &CostParams::repeat_lookup_hbm_fraction, true, 0.25},
};

const KernelKnob& kernel_knob(std::string_view name) {
  for (const KernelKnob& k : kKernelKnobs) {
    if (k.name == name) return k;
  }
  throw std::invalid_argument(
      fmt::format("'{}' is not a calibratable embedding-kernel parameter (calibratable: "
                  "kernel_hbm_efficiency, kernel_dim_half_cols, kernel_pooling_half, "
                  "kernel_distinct_penalty, kernel_tables_half, repeat_lookup_hbm_fraction)",
                  name));
}

constexpr double kFractionStart = 0.999;

double kernel_rms_log_error(const GpuSpec& gpu, std::span<const KernelPoint> points,
                            const CostParams& p, std::vector<double>& predicted) {
  double sum = 0;
  predicted.clear();
  for (const KernelPoint& pt : points) {
    predicted.push_back(predict_kernel_s(gpu, pt, p));
    const double e = std::log(predicted.back() / pt.measured_s);
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}

void check_kernel_points(std::span<const KernelPoint> points) {
  if (points.empty()) throw std::invalid_argument("calibration needs at least one point");
  for (const KernelPoint& pt : points) {
    if (!(pt.measured_s > 0) || !std::isfinite(pt.measured_s)) {
      throw std::invalid_argument(
          fmt::format("{}: a measured time must be positive, found {}", pt.label, pt.measured_s));
    }
    if (pt.works.empty()) {
      throw std::invalid_argument(fmt::format("{}: a point without tables", pt.label));
    }
  }
}

}  // namespace

const char* to_string(KernelPass p) {
  switch (p) {
    case KernelPass::forward:
      return "forward";
    case KernelPass::backward:
      return "backward";
    case KernelPass::forward_backward:
      return "forward_backward";
  }
  return "?";
}

double predict_kernel_s(const GpuSpec& gpu, const KernelPoint& point, const CostParams& p) {
  double t = 0;
  if (point.pass != KernelPass::backward) t += embedding_forward_s(gpu, point.works, p);
  if (point.pass != KernelPass::forward) {
    t += embedding_backward_s(gpu, point.works, point.optimizer, p);
  }
  return t;
}

const std::vector<std::string>& calibratable_kernel_params() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const KernelKnob& k : kKernelKnobs) v.emplace_back(k.name);
    return v;
  }();
  return kNames;
}

std::vector<std::string> kernel_params_determined_by(std::span<const KernelPoint> points) {
  std::set<std::uint32_t> dims;
  std::set<double> poolings, tables;
  double min_distinct = 1, max_distinct = 0;
  for (const KernelPoint& pt : points) {
    tables.insert(static_cast<double>(pt.works.size()));
    for (const EmbeddingWork& w : pt.works) {
      dims.insert(w.cols);
      if (w.pooled_outputs > 0) poolings.insert(w.lookups / w.pooled_outputs);
      if (w.lookups > 0) {
        const double u = std::min(w.distinct_rows / w.lookups, 1.0);
        min_distinct = std::min(min_distinct, u);
        max_distinct = std::max(max_distinct, u);
      }
    }
  }
  std::vector<std::string> out = {"kernel_hbm_efficiency"};
  if (dims.size() >= 2) out.emplace_back("kernel_dim_half_cols");
  if (poolings.size() >= 2) out.emplace_back("kernel_pooling_half");
  if (max_distinct > min_distinct * 1.01 + 1e-12) out.emplace_back("kernel_distinct_penalty");
  if (tables.size() >= 2) out.emplace_back("kernel_tables_half");
  return out;
}

KernelCalibrationResult calibrate_kernels(const GpuSpec& gpu, std::span<const KernelPoint> points,
                                          const CostParams& start,
                                          const CalibrationOptions& options) {
  check_kernel_points(points);
  const std::vector<std::string> names =
      options.parameters.empty() ? kernel_params_determined_by(points) : options.parameters;
  std::vector<const KernelKnob*> knobs;
  for (const std::string& n : names) {
    const KernelKnob* k = &kernel_knob(n);
    if (std::find(knobs.begin(), knobs.end(), k) == knobs.end()) knobs.push_back(k);
  }
  KernelCalibrationResult out;
  out.rms_log_error_before = kernel_rms_log_error(gpu, points, start, out.before_s);
  std::vector<cost_detail::FittedParam> fitted;
  Eigen::VectorXd theta0(static_cast<Eigen::Index>(knobs.size()));
  for (std::size_t j = 0; j < knobs.size(); ++j) {
    fitted.push_back({knobs[j]->member, knobs[j]->fraction});
    double x = start.*(knobs[j]->member);
    if (!(x > 0)) x = knobs[j]->seed;
    // A fraction at its cap of 1 starts just below it: at the cap's kink the forward
    // difference sees no slope, and the fit could never lower it.
    if (knobs[j]->fraction) x = std::min(x, kFractionStart);
    theta0[static_cast<Eigen::Index>(j)] = std::log(x);
  }
  const cost_detail::LogParameterFitResult fit = cost_detail::fit_log_parameters(
      points.size(),
      [&](std::size_t i, const CostParams& p) {
        return std::log(predict_kernel_s(gpu, points[i], p) / points[i].measured_s);
      },
      start, fitted, theta0, {options.prior_weight, options.robust_scale, options.max_iterations});
  out.iterations = fit.iterations;
  out.params = fit.params;
  for (const KernelKnob* k : knobs) out.fitted.emplace_back(k->name);
  out.rms_log_error_after = kernel_rms_log_error(gpu, points, out.params, out.after_s);
  return out;
}

}  // namespace shardsim
