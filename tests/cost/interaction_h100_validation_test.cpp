// DLRM's dot interaction priced by the dgx-h100 preset (docs/model.md, "Interaction") against
// the interaction measured on an H100 SXM5 (tests/data/kernels/h100_small_kernels.json: X of
// (B, V, d), Z = X·Xᵀ, its lower triangle gathered, the dense vector concatenated; forward and
// forward + backward as CUDA-graph replays). interaction_hbm_efficiency (0.14) was fitted to
// the batch-16384 points (median forward + backward error 0); the batch-2048 points are held
// out and judged here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel_data.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

struct InteractionErrors {
  std::vector<double> calibration, held_out;  // predicted / measured - 1, forward + backward
};

InteractionErrors interaction_errors() {
  const GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const CostParams p = default_cost_params();
  const nlohmann::json data = test::kernel_data("h100_small_kernels.json");
  InteractionErrors e;
  for (const auto& point : data.at("interaction")) {
    const Precision precision = point.at("precision") == "fp16" ? Precision::fp16 : Precision::fp32;
    const double batch = point.at("batch").get<double>();
    const auto vectors = point.at("vectors").get<std::uint64_t>();
    const auto dim = point.at("dim").get<std::uint32_t>();
    const double predicted = interaction_forward_s(gpu, batch, vectors, dim, precision, p) +
                             interaction_backward_s(gpu, batch, vectors, dim, precision, p);
    const double measured =
        point.at("forward_s").get<double>() + point.at("backward_s").get<double>();
    (batch == 16384 ? e.calibration : e.held_out).push_back(predicted / measured - 1);
  }
  return e;
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::abs(x);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Today: held out median 13%, -36%...+16% (the fp16 points run at fewer bytes per second than
// the fp32 ones, which one efficiency cannot follow); calibration median 16%.
TEST(InteractionH100Validation, HeldOutBatchWithinFortyPercent) {
  const InteractionErrors e = interaction_errors();
  ASSERT_EQ(e.calibration.size(), 12u);  // V 27/64/128 x d 64/128 x fp32/fp16
  ASSERT_EQ(e.held_out.size(), 12u);
  for (double x : e.held_out) EXPECT_LT(std::abs(x), 0.40);
  EXPECT_LT(median_abs(e.held_out), 0.20);
  EXPECT_LT(median_abs(e.calibration), 0.20);
}

}  // namespace
}  // namespace shardsim
