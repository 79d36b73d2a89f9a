#pragma once
// Fitting the embedding kernels' efficiency parameters to measured kernel times (docs/model.md,
// "Calibration of the embedding kernels"): least squares on the log of predicted / measured
// time, Cauchy's robust loss and a ridge toward the starting values as for the collectives
// (cost/calibration.hpp), solved by the same Levenberg–Marquardt over log-parameters.
#include <span>
#include <string>
#include <vector>

#include "shardsim/cost/calibration.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/hw/gpu_spec.hpp"
#include "shardsim/model/dlrm_model.hpp"

namespace shardsim {

// What a measured time covers: FBGEMM's benchmark reports Forward, Backward (newer versions) and
// ForwardBackward (one forward and one fused backward + optimizer).
enum class KernelPass { forward, backward, forward_backward };
const char* to_string(KernelPass p);

struct KernelPoint {
  std::vector<EmbeddingWork> works;  // one per table of the fused kernel
  KernelPass pass = KernelPass::forward;
  OptimizerKind optimizer = OptimizerKind::rowwise_adagrad;  // of the backward
  double measured_s = 0;                                     // > 0
  std::string label;                                         // file:line, for reports
};

// The model's time for a point: embedding_forward_s and/or embedding_backward_s of its works,
// each one fused kernel.
double predict_kernel_s(const GpuSpec& gpu, const KernelPoint& point, const CostParams& p);

// The same fields as the collective fit's result (cost/calibration.hpp).
using KernelCalibrationResult = CalibrationResult;

// The parameters a kernel fit may move: kernel_hbm_efficiency, kernel_dim_half_cols,
// kernel_pooling_half, kernel_distinct_penalty, kernel_tables_half, repeat_lookup_hbm_fraction.
const std::vector<std::string>& calibratable_kernel_params();

// The parameters the points can tell apart when none are named: kernel_hbm_efficiency always,
// and each shape term only when the points vary in its quantity (two or more dims, pooling
// factors, table counts; distinct rows per lookup differing by more than 1%). A term the points
// do not vary stays at its starting value (neutral by default).
std::vector<std::string> kernel_params_determined_by(std::span<const KernelPoint> points);

// Fits `options.parameters` (empty: kernel_params_determined_by(points)) of `start` to `points`
// measured on `gpu`. A parameter that starts at 0 (a term switched off) starts the fit from a
// seed (kernel_dim_half_cols 16, kernel_pooling_half 1, kernel_distinct_penalty 0.1,
// kernel_tables_half 1), and its ridge pulls toward that seed; a fraction at 1 starts at 0.999
// (the cap at 1 has no slope to follow). std::invalid_argument for no
// points, a point without works or with a non-positive measured time, or a name not calibratable.
KernelCalibrationResult calibrate_kernels(const GpuSpec& gpu, std::span<const KernelPoint> points,
                                          const CostParams& start,
                                          const CalibrationOptions& options = {});

}  // namespace shardsim
