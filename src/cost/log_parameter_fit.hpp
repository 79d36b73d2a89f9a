#pragma once
// A least-squares fit of CostParams members over their logarithms (internal to src/cost/): the
// problem both calibrations solve (collectives: calibration.cpp; embedding kernels:
// kernel_calibration.cpp). x_j = exp(theta_j), a fraction capped at 1; each point's residual is
// its log error under Cauchy's loss, and a ridge pulls theta towards where it started.
#include <Eigen/Dense>
#include <cstddef>
#include <functional>
#include <span>

#include "shardsim/cost/cost_params.hpp"

namespace shardsim::cost_detail {

struct FittedParam {
  double CostParams::*member;
  bool fraction;  // capped at 1
};

// log(predicted / measured) of point `point` under `p`.
using PointLogError = std::function<double(std::size_t point, const CostParams& p)>;

struct LogParameterFitOptions {
  double prior_weight = 0;  // the ridge's weight on theta - theta0
  double robust_scale = 0;  // Cauchy's c; 0: plain squares
  int max_iterations = 0;
};

struct LogParameterFitResult {
  CostParams params;  // `start` with the fitted members
  int iterations = 0;
};

// Levenberg–Marquardt (levenberg_marquardt.hpp) from theta0 (the logarithms of the starting
// values, one per fitted parameter).
LogParameterFitResult fit_log_parameters(std::size_t num_points, const PointLogError& log_error,
                                         const CostParams& start,
                                         std::span<const FittedParam> params,
                                         const Eigen::VectorXd& theta0,
                                         const LogParameterFitOptions& options);

}  // namespace shardsim::cost_detail
