// The log-parameter least-squares fit shared by the calibrations (log_parameter_fit.hpp).
#include "cost/log_parameter_fit.hpp"

#include <algorithm>
#include <cmath>

#include "cost/levenberg_marquardt.hpp"

namespace shardsim::cost_detail {

namespace {

CostParams params_at(const CostParams& start, std::span<const FittedParam> params,
                     const Eigen::VectorXd& theta) {
  CostParams p = start;
  for (std::size_t j = 0; j < params.size(); ++j) {
    double t = theta[static_cast<Eigen::Index>(j)];
    if (params[j].fraction) t = std::min(t, 0.0);
    p.*(params[j].member) = std::exp(t);
  }
  return p;
}

// Cauchy's loss as a residual: sign(e)·c·sqrt(log(1 + (e/c)²)), so that ‖r‖² = Σ ρ(e) and a
// point off by 3× pulls far less than its square would; plain squares when c = 0.
double robust(double e, double c) {
  if (c <= 0) return e;
  return std::copysign(c * std::sqrt(std::log1p((e / c) * (e / c))), e);
}

}  // namespace

LogParameterFitResult fit_log_parameters(std::size_t num_points, const PointLogError& log_error,
                                         const CostParams& start,
                                         std::span<const FittedParam> params,
                                         const Eigen::VectorXd& theta0,
                                         const LogParameterFitOptions& options) {
  // Log errors of the points, then the ridge terms.
  const auto residuals = [&](const Eigen::VectorXd& theta) {
    const CostParams p = params_at(start, params, theta);
    const auto n = static_cast<Eigen::Index>(num_points);
    Eigen::VectorXd r(n + theta.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      r[i] = robust(log_error(static_cast<std::size_t>(i), p), options.robust_scale);
    }
    r.tail(theta.size()) = options.prior_weight * (theta - theta0);
    return r;
  };
  const LevenbergMarquardtResult lm =
      levenberg_marquardt(residuals, theta0, options.max_iterations);
  return {params_at(start, params, lm.theta), lm.iterations};
}

}  // namespace shardsim::cost_detail
