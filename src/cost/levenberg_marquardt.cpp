// Levenberg–Marquardt (levenberg_marquardt.hpp).
#include "cost/levenberg_marquardt.hpp"

#include <algorithm>

namespace shardsim::cost_detail {

namespace {

Eigen::MatrixXd forward_difference_jacobian(const Residuals& residuals,
                                            const Eigen::VectorXd& theta,
                                            const Eigen::VectorXd& r) {
  constexpr double kStep = 1e-5;
  Eigen::MatrixXd J(r.size(), theta.size());
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    Eigen::VectorXd t = theta;
    t[j] += kStep;
    J.col(j) = (residuals(t) - r) / kStep;
  }
  return J;
}

}  // namespace

LevenbergMarquardtResult levenberg_marquardt(const Residuals& residuals, Eigen::VectorXd theta0,
                                             int max_iterations) {
  LevenbergMarquardtResult out;
  out.theta = std::move(theta0);
  Eigen::VectorXd r = residuals(out.theta);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  for (int it = 0; it < max_iterations && out.theta.size() > 0; ++it) {
    out.iterations = it + 1;
    const Eigen::MatrixXd J = forward_difference_jacobian(residuals, out.theta, r);
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool kept = false;
    while (lambda < 1e12) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal() += lambda * (JtJ.diagonal().array() + 1e-12).matrix();
      const Eigen::VectorXd step = A.ldlt().solve(-g);
      const Eigen::VectorXd trial = out.theta + step;
      const Eigen::VectorXd rt = residuals(trial);
      if (rt.allFinite() && rt.squaredNorm() < cost) {
        const double gain = (cost - rt.squaredNorm()) / std::max(cost, 1e-300);
        out.theta = trial;
        r = rt;
        cost = rt.squaredNorm();
        lambda = std::max(lambda / 3, 1e-9);
        kept = gain > 1e-12;
        break;
      }
      lambda *= 4;
    }
    if (!kept) break;
  }
  return out;
}

}  // namespace shardsim::cost_detail
