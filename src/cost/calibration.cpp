// Least-squares calibration of the collective model (cost/calibration.hpp).
#include "shardsim/cost/calibration.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cost/log_parameter_fit.hpp"

namespace shardsim {

namespace {

struct Knob {
  std::string_view name;
  double CostParams::*member;
  bool fraction;  // capped at 1
};

// Every calibratable parameter, in configs/cost/default.yaml order.
constexpr Knob kKnobs[] = {
    {"collective_bandwidth_efficiency", &CostParams::collective_bandwidth_efficiency, true},
    {"collective_launch_s", &CostParams::collective_launch_s, false},
    {"nccl_ll_base_latency_s", &CostParams::nccl_ll_base_latency_s, false},
    {"nccl_ll128_base_latency_s", &CostParams::nccl_ll128_base_latency_s, false},
    {"nccl_simple_base_latency_s", &CostParams::nccl_simple_base_latency_s, false},
    {"nccl_ll_scale_up_step_s", &CostParams::nccl_ll_scale_up_step_s, false},
    {"nccl_ll128_scale_up_step_s", &CostParams::nccl_ll128_scale_up_step_s, false},
    {"nccl_simple_scale_up_step_s", &CostParams::nccl_simple_scale_up_step_s, false},
    {"nccl_ll_scale_out_step_s", &CostParams::nccl_ll_scale_out_step_s, false},
    {"nccl_ll128_scale_out_step_s", &CostParams::nccl_ll128_scale_out_step_s, false},
    {"nccl_simple_scale_out_step_s", &CostParams::nccl_simple_scale_out_step_s, false},
    {"nccl_ll_bandwidth_fraction", &CostParams::nccl_ll_bandwidth_fraction, true},
    {"nccl_ll128_bandwidth_fraction", &CostParams::nccl_ll128_bandwidth_fraction, true},
    {"nccl_simple_bandwidth_fraction", &CostParams::nccl_simple_bandwidth_fraction, true},
    {"nccl_ll_multi_domain_scale_up_factor", &CostParams::nccl_ll_multi_domain_scale_up_factor,
     false},
    {"nccl_tree_ll_base_latency_s", &CostParams::nccl_tree_ll_base_latency_s, false},
    {"nccl_tree_ll128_base_latency_s", &CostParams::nccl_tree_ll128_base_latency_s, false},
    {"nccl_tree_simple_base_latency_s", &CostParams::nccl_tree_simple_base_latency_s, false},
    {"nccl_tree_ll_scale_up_step_s", &CostParams::nccl_tree_ll_scale_up_step_s, false},
    {"nccl_tree_ll128_scale_up_step_s", &CostParams::nccl_tree_ll128_scale_up_step_s, false},
    {"nccl_tree_simple_scale_up_step_s", &CostParams::nccl_tree_simple_scale_up_step_s, false},
    {"nccl_tree_ll_scale_out_step_s", &CostParams::nccl_tree_ll_scale_out_step_s, false},
    {"nccl_tree_ll128_scale_out_step_s", &CostParams::nccl_tree_ll128_scale_out_step_s, false},
    {"nccl_tree_simple_scale_out_step_s", &CostParams::nccl_tree_simple_scale_out_step_s, false},
    {"alltoall_peer_scale_up_s", &CostParams::alltoall_peer_scale_up_s, false},
    {"alltoall_peer_scale_out_s", &CostParams::alltoall_peer_scale_out_s, false},
    {"alltoall_scale_out_latency_s", &CostParams::alltoall_scale_out_latency_s, false},
    {"collective_jitter_cv", &CostParams::collective_jitter_cv, false},
};

const Knob& knob(std::string_view name) {
  for (const Knob& k : kKnobs) {
    if (k.name == name) return k;
  }
  throw std::invalid_argument(fmt::format("'{}' is not a calibratable cost parameter", name));
}

std::vector<const Knob*> chosen_knobs(const CalibrationOptions& o, const CostParams& start) {
  const auto& allowed = calibratable_cost_params(start.collective_model);
  const std::vector<std::string>& names =
      o.parameters.empty() ? default_calibrated_cost_params(start.collective_model) : o.parameters;
  std::vector<const Knob*> out;
  for (const std::string& n : names) {
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) {
      throw std::invalid_argument(
          fmt::format("'{}' is not calibrated under the {} collective model", n,
                      start.collective_model == CollectiveModelKind::ideal ? "ideal" : "nccl"));
    }
    const Knob& k = knob(n);
    if (start.*(k.member) > 0) out.push_back(&k);  // log-space: a zero parameter stays zero
  }
  return out;
}

double rms_log_error(std::span<const CalibrationPoint> points, const CostParams& p,
                     std::vector<double>& predicted) {
  double sum = 0;
  predicted.clear();
  for (const CalibrationPoint& pt : points) {
    predicted.push_back(price(pt.terms, p));
    const double e = std::log(predicted.back() / pt.measured_s);
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}

void check_points(std::span<const CalibrationPoint> points, const CostParams& start) {
  if (points.empty()) throw std::invalid_argument("calibration needs at least one point");
  for (const CalibrationPoint& pt : points) {
    if (!(pt.measured_s > 0) || !std::isfinite(pt.measured_s)) {
      throw std::invalid_argument(
          fmt::format("{}: a measured time must be positive, found {}", pt.label, pt.measured_s));
    }
    if (pt.terms.model != start.collective_model) {
      throw std::invalid_argument(
          fmt::format("{}: taken under another collective model than the fit's", pt.label));
    }
  }
}

}  // namespace

const std::vector<std::string>& calibratable_cost_params(CollectiveModelKind model) {
  static const std::vector<std::string> kIdeal = {"collective_bandwidth_efficiency",
                                                  "collective_launch_s"};
  static const std::vector<std::string> kNccl = [] {
    std::vector<std::string> v;
    for (const Knob& k : kKnobs) {
      if (k.name != "collective_launch_s") v.emplace_back(k.name);
    }
    return v;
  }();
  return model == CollectiveModelKind::ideal ? kIdeal : kNccl;
}

const std::vector<std::string>& default_calibrated_cost_params(CollectiveModelKind model) {
  static const std::vector<std::string> kNccl = [] {
    std::vector<std::string> v;
    for (const std::string& n : calibratable_cost_params(CollectiveModelKind::nccl)) {
      if (!n.starts_with("nccl_tree_")) v.push_back(n);
    }
    return v;
  }();
  return model == CollectiveModelKind::ideal ? calibratable_cost_params(model) : kNccl;
}

// Levenberg–Marquardt over the log-parameters (log_parameter_fit.hpp).
CalibrationResult calibrate_collectives(std::span<const CalibrationPoint> points,
                                        const CostParams& start,
                                        const CalibrationOptions& options) {
  check_points(points, start);
  const std::vector<const Knob*> knobs = chosen_knobs(options, start);
  CalibrationResult out;
  out.rms_log_error_before = rms_log_error(points, start, out.before_s);
  std::vector<cost_detail::FittedParam> fitted;
  Eigen::VectorXd theta0(static_cast<Eigen::Index>(knobs.size()));
  for (std::size_t j = 0; j < knobs.size(); ++j) {
    fitted.push_back({knobs[j]->member, knobs[j]->fraction});
    theta0[static_cast<Eigen::Index>(j)] = std::log(start.*(knobs[j]->member));
  }
  const cost_detail::LogParameterFitResult fit = cost_detail::fit_log_parameters(
      points.size(),
      [&](std::size_t i, const CostParams& p) {
        return std::log(price(points[i].terms, p) / points[i].measured_s);
      },
      start, fitted, theta0, {options.prior_weight, options.robust_scale, options.max_iterations});
  out.iterations = fit.iterations;
  out.params = fit.params;
  for (const Knob* k : knobs) out.fitted.emplace_back(k->name);
  out.rms_log_error_after = rms_log_error(points, out.params, out.after_s);
  return out;
}

}  // namespace shardsim
