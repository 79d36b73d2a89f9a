// The dense optimizer step of the dgx-h100 preset (docs/model.md, "Dense optimizer step")
// against torch.optim steps measured on an H100 SXM5 (tests/data/kernels/h100_small_kernels.json:
// one optimizer.step() over 34M and 336M fp32 parameters in 4096 x 4096 tensors). Nothing was
// fitted to them: the step is priced at bytes / hbm_achievable_GBps.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "kernel_data.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/model/dlrm_model.hpp"

namespace shardsim {
namespace {

DenseOptimizerKind kind_of(const std::string& name) {
  if (name == "adam") return DenseOptimizerKind::adam;
  if (name == "adagrad") return DenseOptimizerKind::adagrad;
  if (name == "momentum") return DenseOptimizerKind::momentum;
  return DenseOptimizerKind::sgd;
}

// Fused Adam, momentum and SGD within 20% (today -3%...-15%: the model is a little fast, the
// preset's 2800 GB/s against the 2624-2707 GB/s the fused steps reach). PyTorch has no fused
// Adagrad on CUDA; its foreach Adagrad runs at 1030 GB/s of the modelled bytes, 2.7x slower than
// the model: a known gap of that implementation, and this test says so if it closes.
TEST(DenseOptimizerH100Validation, FusedStepsWithinTwentyPercentForeachAdagradAKnownGap) {
  const GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const nlohmann::json data = test::kernel_data("h100_small_kernels.json");
  int fused = 0, foreach_ = 0;
  for (const auto& point : data.at("optimizer")) {
    const double predicted =
        dense_optimizer_step_s(gpu, point.at("parameters").get<std::uint64_t>(),
                               kind_of(point.at("optimizer").get<std::string>()));
    const double error = predicted / point.at("time_s").get<double>() - 1;
    if (point.at("implementation") == "fused") {
      ++fused;
      EXPECT_LT(std::abs(error), 0.20) << point.dump();
    } else {
      ++foreach_;
      EXPECT_EQ(point.at("optimizer"), "adagrad");
      EXPECT_LT(error, -0.50) << point.dump();
      EXPECT_GT(error, -0.75) << point.dump();
    }
  }
  EXPECT_EQ(fused, 6);     // Adam, momentum, SGD at two sizes
  EXPECT_EQ(foreach_, 2);  // Adagrad at two sizes
}

}  // namespace
}  // namespace shardsim
