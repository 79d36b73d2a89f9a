#pragma once
// Fitting the collective model's parameters to measured collective times (docs/model.md,
// "Calibration"): least squares on the log of predicted / measured time, with a ridge toward the
// starting values so that what the points do not determine stays where it was. Levenberg–
// Marquardt over log-parameters (parameters stay positive; fractions stay <= 1), the normal
// equations solved with Eigen. Each point is re-priced from its terms (cost/collective_terms.hpp),
// so a fit over a hundred points takes milliseconds.
#include <span>
#include <string>
#include <vector>

#include "shardsim/cost/collective_terms.hpp"
#include "shardsim/cost/cost_params.hpp"

namespace shardsim {

struct CalibrationPoint {
  CollectiveTerms terms;
  double measured_s = 0;  // > 0
  std::string label;      // where the point came from (file:line), for reports
};

struct CalibrationOptions {
  // CostParams fields to fit (names as in configs/cost/default.yaml); empty:
  // default_calibrated_cost_params() of the model. Each must be one of
  // calibratable_cost_params().
  std::vector<std::string> parameters;
  // Weight of each parameter's ridge term (log(x / x_start)) against a point's log error.
  double prior_weight = 0.1;
  // Scale c of Cauchy's robust loss on the log errors, ρ(e) = c²·log(1 + (e/c)²): points off by
  // much more than c (a fabric the model does not describe) weigh less than their squares.
  // 0: plain least squares. 0.25: a point the model describes should be within ~30%.
  double robust_scale = 0.25;
  int max_iterations = 200;
};

struct CalibrationResult {
  CostParams params;
  std::vector<std::string> fitted;        // the parameters the fit moved
  std::vector<double> before_s, after_s;  // per point: predicted at the start and after
  double rms_log_error_before = 0;        // sqrt(mean(log(pred / measured)^2))
  double rms_log_error_after = 0;
  int iterations = 0;
};

// The parameters calibration may fit: the nccl model's protocol terms, the AlltoAll per-peer
// costs and collective_bandwidth_efficiency (for the ideal model: efficiency and
// collective_launch_s).
const std::vector<std::string>& calibratable_cost_params(CollectiveModelKind model);
// What a fit moves unless told otherwise: all of the above but the tree's own latencies
// (nccl_tree_*), which stay tuning.cc's unless named (docs/model.md, "Calibration": fitting
// them too on the 63 published points raised the left-out median error from 12% to 15%).
const std::vector<std::string>& default_calibrated_cost_params(CollectiveModelKind model);

// Fits `options.parameters` of `start` to `points` (all taken under start's collective model).
// std::invalid_argument for no points, a non-positive measured time, a name not calibratable,
// or points of another collective model.
CalibrationResult calibrate_collectives(std::span<const CalibrationPoint> points,
                                        const CostParams& start,
                                        const CalibrationOptions& options = {});

}  // namespace shardsim
