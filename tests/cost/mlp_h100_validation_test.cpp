// The MLP roofline of the dgx-h100 preset against MLPs measured on an H100 SXM5
// (tests/data/kernels/h100_mlp_batch_sweep.json: 20 layers Linear(w, w) + ReLU, forward and
// backward, CUDA-graph replays, TF32, BF16 and FP16; docs/validation/kernels.md, "MLPs"). The
// preset's efficiencies and batch half were fitted to batches 128/512/2048/8192 at widths
// 2048-4096; the batches 256/1024/4096 are held out and judged here.
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

using test::kernel_data;

// predicted / measured - 1 for one measured point of a stack with input width `in`, as the
// dgx-h100 preset prices its forward and backward.
double error_of(const nlohmann::json& point, std::uint64_t in,
                const std::vector<std::uint32_t>& layers) {
  const GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const CostParams p = default_cost_params();
  const double batch = point.at("batch").get<double>();
  const std::string name = point.at("precision").get<std::string>();
  const Precision precision = name == "bf16"   ? Precision::bf16
                              : name == "fp16" ? Precision::fp16
                                               : Precision::tf32;
  const double predicted = mlp_forward_s(gpu, in, layers, batch, precision, p) +
                           mlp_backward_s(gpu, in, layers, batch, precision, p);
  return predicted / point.at("time_s").get<double>() - 1;
}

struct Errors {
  std::vector<double> held_out, calibration, narrow;
};

Errors h100_errors() {
  Errors e;
  const nlohmann::json data = kernel_data("h100_mlp_batch_sweep.json");  // outlives the loop
  for (const auto& point : data.at("graph").at("mlp")) {
    const auto width = point.at("width").get<std::uint32_t>();
    const double batch = point.at("batch").get<double>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    const double error = error_of(point, width, layers);
    if (width < 2048) {
      e.narrow.push_back(error);
    } else if (batch == 256 || batch == 1024 || batch == 4096) {
      e.held_out.push_back(std::abs(error));
    } else {
      e.calibration.push_back(std::abs(error));
    }
  }
  return e;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(MlpH100Validation, HeldOutBatchesWithinTenPercentMedian) {
  const Errors e = h100_errors();
  ASSERT_EQ(e.held_out.size(), 27u);  // 3 batches x 3 widths x 3 precisions
  ASSERT_EQ(e.calibration.size(), 36u);
  // Today: held out median 6.2%, worst 16.0%; calibration median 7.1%, worst 16.4%.
  EXPECT_LT(median(e.held_out), 0.10);
  EXPECT_LT(*std::max_element(e.held_out.begin(), e.held_out.end()), 0.20);
  EXPECT_LT(median(e.calibration), 0.10);
}

// Layers narrower than 2048 run slower than the roofline says at every batch (no width term):
// a known gap, documented in docs/validation/kernels.md. If it closes, this test says so.
TEST(MlpH100Validation, NarrowLayersAreUnderpredictedAKnownGap) {
  const Errors e = h100_errors();
  ASSERT_EQ(e.narrow.size(), 42u);
  for (double x : e.narrow) {
    EXPECT_LT(x, -0.25);
    EXPECT_GT(x, -0.65);
  }
}

// Whole DLRM-shaped stacks (tests/data/kernels/h100_mlp_stacks.json), none of them fitted: the
// bottom MLP of our Neo model-A scenario (widths 3840) within 10% at every batch; the narrow
// stacks (DLRM Terabyte's bottom 13-512-256-128 and top 479-1024-1024-512-256-1, model-I's 21
// layers of 640) 2-4x faster in the model than measured: per-layer costs beyond the GEMMs (the
// bias and ReLU kernels, ~35 us a layer at batch 512, more at larger batches) are not priced.
// docs/validation/kernels.md, "Whole stacks". If the gap closes, this test says so.
TEST(MlpH100Validation, WholeStacksWideWithinTenPercentNarrowAKnownGap) {
  int wide = 0, narrow = 0;
  const nlohmann::json data = kernel_data("h100_mlp_stacks.json");  // outlives the loop
  for (const auto& point : data.at("stacks")) {
    const auto widths = point.at("stack").get<std::vector<std::uint32_t>>();
    const std::vector<std::uint32_t> layers(widths.begin() + 1, widths.end());
    const double error = error_of(point, widths[0], layers);
    const bool is_wide = *std::max_element(widths.begin(), widths.end()) >= 2048;
    if (is_wide) {
      ++wide;
      EXPECT_LT(std::abs(error), 0.10) << point.dump();
    } else {
      ++narrow;
      EXPECT_LT(error, -0.40) << point.dump();
      EXPECT_GT(error, -0.80) << point.dump();
    }
  }
  EXPECT_EQ(wide, 6);     // one stack x 3 batches x 2 precisions
  EXPECT_EQ(narrow, 18);  // three stacks
}

}  // namespace
}  // namespace shardsim
