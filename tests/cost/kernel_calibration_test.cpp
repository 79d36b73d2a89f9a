// Fitting the embedding kernels' efficiency (cost/kernel_calibration.hpp): it recovers known
// parameters from points the model itself priced, picks the terms the points determine, and
// refuses bad input.
#include "shardsim/cost/kernel_calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "round_presets.hpp"

namespace shardsim {
namespace {

using test::round_gpu;

// One benchmark configuration: T tables of B·L lookups (uniform over E rows), B bags, D columns.
KernelPoint kernel_config(int tables, std::uint32_t dim, double bag, KernelPass pass) {
  const double batch = 4096, rows = 1e9;  // so many rows that nearly every lookup is distinct
  EmbeddingWork w;
  w.lookups = batch * bag;
  w.pooled_outputs = batch;
  w.distinct_rows = -rows * std::expm1(w.lookups * std::log1p(-1 / rows));
  w.cols = dim;
  w.rows = rows;
  KernelPoint p;
  p.works.assign(static_cast<std::size_t>(tables), w);
  p.pass = pass;
  p.label = "synthetic";
  return p;
}

// A grid of configurations over dims, pooling and table counts, timed by the model under `truth`.
std::vector<KernelPoint> synthetic_points(const CostParams& truth) {
  std::vector<KernelPoint> out;
  for (int tables : {1, 4, 32}) {
    for (std::uint32_t dim : {16u, 64u, 256u}) {
      for (double bag : {2.0, 20.0}) {
        for (KernelPass pass : {KernelPass::forward, KernelPass::forward_backward}) {
          KernelPoint p = kernel_config(tables, dim, bag, pass);
          p.measured_s = predict_kernel_s(round_gpu(), p, truth);
          out.push_back(p);
        }
      }
    }
  }
  return out;
}

TEST(KernelCalibration, RecoversKnownParameters) {
  CostParams truth = default_cost_params();
  truth.kernel_hbm_efficiency = 0.8;
  truth.kernel_dim_half_cols = 24;
  truth.kernel_pooling_half = 3;
  truth.kernel_tables_half = 2;
  const std::vector<KernelPoint> points = synthetic_points(truth);
  CalibrationOptions o;
  o.prior_weight = 1e-6;
  o.robust_scale = 0;
  const KernelCalibrationResult r =
      calibrate_kernels(round_gpu(), points, default_cost_params(), o);
  EXPECT_EQ(r.fitted, (std::vector<std::string>{"kernel_hbm_efficiency", "kernel_dim_half_cols",
                                                "kernel_pooling_half", "kernel_tables_half"}));
  EXPECT_NEAR(r.params.kernel_hbm_efficiency, 0.8, 1e-3);
  EXPECT_NEAR(r.params.kernel_dim_half_cols, 24, 24e-3);
  EXPECT_NEAR(r.params.kernel_pooling_half, 3, 3e-3);
  EXPECT_NEAR(r.params.kernel_tables_half, 2, 2e-3);
  EXPECT_GT(r.rms_log_error_before, 0.3);  // the neutral start misses by far
  EXPECT_LT(r.rms_log_error_after, 1e-4);
  ASSERT_EQ(r.after_s.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_NEAR(r.after_s[i] / points[i].measured_s, 1, 1e-3) << i;
  }
}

TEST(KernelCalibration, FitsOnlyTheTermsThePointsVary) {
  // One dim, one pooling, one table count: only the overall efficiency is determined.
  std::vector<KernelPoint> points = {kernel_config(8, 128, 20, KernelPass::forward),
                                     kernel_config(8, 128, 20, KernelPass::forward_backward)};
  EXPECT_EQ(kernel_params_determined_by(points), std::vector<std::string>{"kernel_hbm_efficiency"});
  points.push_back(kernel_config(8, 32, 20, KernelPass::forward));
  EXPECT_EQ(kernel_params_determined_by(points),
            (std::vector<std::string>{"kernel_hbm_efficiency", "kernel_dim_half_cols"}));
  // Twice the neutral model's times (launches included, so the efficiency lands a little
  // above 0.5): the undetermined terms stay where they started.
  for (KernelPoint& p : points) {
    p.measured_s = 2 * predict_kernel_s(round_gpu(), p, default_cost_params());
  }
  const KernelCalibrationResult r = calibrate_kernels(round_gpu(), points, default_cost_params());
  EXPECT_LT(r.params.kernel_hbm_efficiency, 0.6);
  EXPECT_EQ(r.params.kernel_pooling_half, 0.0);
  EXPECT_EQ(r.params.kernel_tables_half, 0.0);
  EXPECT_LT(r.rms_log_error_after, r.rms_log_error_before);
}

TEST(KernelCalibration, RefusesBadInput) {
  const GpuSpec gpu = round_gpu();
  const CostParams p = default_cost_params();
  EXPECT_THROW(calibrate_kernels(gpu, std::vector<KernelPoint>{}, p), std::invalid_argument);
  KernelPoint untimed = kernel_config(1, 64, 4, KernelPass::forward);
  EXPECT_THROW(calibrate_kernels(gpu, std::vector<KernelPoint>{untimed}, p), std::invalid_argument);
  KernelPoint empty;
  empty.measured_s = 1e-3;
  EXPECT_THROW(calibrate_kernels(gpu, std::vector<KernelPoint>{empty}, p), std::invalid_argument);
  KernelPoint ok = kernel_config(1, 64, 4, KernelPass::forward);
  ok.measured_s = 1e-3;
  CalibrationOptions o;
  o.parameters = {"collective_launch_s"};
  EXPECT_THROW(calibrate_kernels(gpu, std::vector<KernelPoint>{ok}, p, o), std::invalid_argument);
}

TEST(KernelCalibration, PredictsThePassesItCovers) {
  const CostParams p = default_cost_params();
  KernelPoint f = kernel_config(4, 64, 10, KernelPass::forward);
  KernelPoint b = kernel_config(4, 64, 10, KernelPass::backward);
  KernelPoint fb = kernel_config(4, 64, 10, KernelPass::forward_backward);
  EXPECT_DOUBLE_EQ(predict_kernel_s(round_gpu(), f, p),
                   embedding_forward_s(round_gpu(), f.works, p));
  EXPECT_DOUBLE_EQ(predict_kernel_s(round_gpu(), b, p),
                   embedding_backward_s(round_gpu(), b.works, OptimizerKind::rowwise_adagrad, p));
  EXPECT_DOUBLE_EQ(predict_kernel_s(round_gpu(), fb, p),
                   predict_kernel_s(round_gpu(), f, p) + predict_kernel_s(round_gpu(), b, p));
}

}  // namespace
}  // namespace shardsim
