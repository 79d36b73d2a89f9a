#pragma once
// Levenberg–Marquardt on a residual vector (internal to src/cost/): the solver both calibrations
// use (collectives: calibration.cpp; embedding kernels: kernel_calibration.cpp).
#include <Eigen/Dense>
#include <functional>

namespace shardsim::cost_detail {

using Residuals = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

struct LevenbergMarquardtResult {
  Eigen::VectorXd theta;
  int iterations = 0;
};

// Minimises ‖r(θ)‖² from θ0: (JᵀJ + λ·diag(JᵀJ)) δ = −Jᵀr with a forward-difference Jacobian
// (step 1e-5); a step is kept when it lowers ‖r‖², and λ shrinks; otherwise λ grows. Stops when
// a kept step improves ‖r‖² by less than 1e-12 relative, or λ exceeds 1e12 (no descent left),
// or after max_iterations. No parameters: θ0 unchanged, 0 iterations.
LevenbergMarquardtResult levenberg_marquardt(const Residuals& residuals, Eigen::VectorXd theta0,
                                             int max_iterations);

}  // namespace shardsim::cost_detail
