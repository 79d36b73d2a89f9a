// The MLP roofline of the dgx-h100 preset (efficiency x batch factor x width factor) against
// MLPs measured on an H100 SXM5 (tests/data/kernels/: 20 layers Linear(w, w) + ReLU and
// DLRM-shaped stacks, forward and backward, CUDA-graph replays, TF32, BF16 and FP16;
// docs/validation/kernels.md, "MLPs", "Whole stacks", "Narrow MLPs").
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
                              : name == "fp32" ? Precision::fp32
                                               : Precision::tf32;
  const double predicted = mlp_forward_s(gpu, in, layers, batch, precision, p) +
                           mlp_backward_s(gpu, in, layers, batch, precision, p);
  return predicted / point.at("time_s").get<double>() - 1;
}

struct Errors {
  std::vector<double> held_out, calibration;
};

// The batch sweep (widths 640-4096): the preset's efficiencies and width half were fitted to
// batches 128/512/2048/8192 (the batch half held at 470, fitted before on widths 2048-4096),
// batches 256/1024/4096 are held out.
Errors h100_errors() {
  Errors e;
  const nlohmann::json data = kernel_data("h100_mlp_batch_sweep.json");  // outlives the loop
  for (const auto& point : data.at("graph").at("mlp")) {
    const auto width = point.at("width").get<std::uint32_t>();
    const double batch = point.at("batch").get<double>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    const double error = std::abs(error_of(point, width, layers));
    (batch == 256 || batch == 1024 || batch == 4096 ? e.held_out : e.calibration).push_back(error);
  }
  return e;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(MlpH100Validation, HeldOutBatchesWithinTenPercentMedian) {
  const Errors e = h100_errors();
  ASSERT_EQ(e.held_out.size(), 45u);  // 3 batches x 5 widths x 3 precisions
  ASSERT_EQ(e.calibration.size(), 60u);
  // Today: held out median 7.4%, worst 32.1% (width 640 at batch 256); calibration median 5.8%.
  EXPECT_LT(median(e.held_out), 0.10);
  EXPECT_LT(*std::max_element(e.held_out.begin(), e.held_out.end()), 0.40);
  EXPECT_LT(median(e.calibration), 0.10);
}

// Whole DLRM-shaped stacks (tests/data/kernels/h100_mlp_stacks.json), none of them fitted: the
// bottom MLP of our Neo model-A scenario (widths 3840) within 12% at every batch; the narrow
// stacks (DLRM Terabyte's bottom 13-512-256-128 and top 479-1024-1024-512-256-1, model-I's 21
// layers of 640) within -50%...+20%: near at batch 8192, up to 2x fast at batch 512, where
// per-layer costs beyond the GEMMs (the bias and ReLU kernels) weigh most and are not priced.
// docs/validation/kernels.md, "Whole stacks".
TEST(MlpH100Validation, WholeStacksWideWithinTwelvePercentNarrowWithinAFactorOfTwo) {
  int wide = 0, narrow = 0;
  const nlohmann::json data = kernel_data("h100_mlp_stacks.json");  // outlives the loop
  for (const auto& point : data.at("stacks")) {
    const auto widths = point.at("stack").get<std::vector<std::uint32_t>>();
    const std::vector<std::uint32_t> layers(widths.begin() + 1, widths.end());
    const double error = error_of(point, widths[0], layers);
    const bool is_wide = *std::max_element(widths.begin(), widths.end()) >= 2048;
    if (is_wide) {
      ++wide;
      EXPECT_LT(std::abs(error), 0.12) << point.dump();
    } else {
      ++narrow;
      EXPECT_GT(error, -0.50) << point.dump();
      EXPECT_LT(error, 0.20) << point.dump();
    }
  }
  EXPECT_EQ(wide, 6);     // one stack x 3 batches x 2 precisions
  EXPECT_EQ(narrow, 18);  // three stacks
}

// Square stacks of 20 layers at widths 64-2048 and batches 2048-32768, measured on another H100
// machine a session later (tests/data/kernels/h100_small_kernels.json), none fitted. Widths
// 512-2048 within 30%; 64-256 up to 46% fast (the same per-layer costs as above): a known gap,
// and this test says so if it closes. docs/validation/kernels.md, "Narrow MLPs".
TEST(MlpH100Validation, NarrowSquaresFromAnotherMachineNoneFitted) {
  int judged = 0, gap = 0;
  const nlohmann::json data = kernel_data("h100_small_kernels.json");  // outlives the loop
  for (const auto& point : data.at("mlp")) {
    const auto width = point.at("width").get<std::uint32_t>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    const double error = error_of(point, width, layers);
    if (width >= 512) {
      ++judged;
      EXPECT_LT(std::abs(error), 0.30) << point.dump();
    } else {
      ++gap;
      EXPECT_LT(error, 0.0) << point.dump();
      EXPECT_GT(error, -0.50) << point.dump();
    }
  }
  EXPECT_EQ(judged, 27);  // widths 512/1024/2048 x 3 batches x 3 precisions
  EXPECT_EQ(gap, 27);     // widths 64/128/256
}

// FP32 on CUDA cores (TF32 off), widths 256-4096 (tests/data/kernels/h100_mlp_fp32.json): the
// preset's mlp_efficiency_fp32, mlp_batch_half_fp32 and mlp_width_half_fp32 were fitted to
// batches 128/512/2048/8192; 256/1024/4096 are held out. Today: held-out median 9.3%; widths
// 2048-4096 within 12.2% at every batch; narrower layers at small batches up to 57% fast (the
// per-layer cost of the tensor-core stacks above).
TEST(MlpH100Validation, Fp32HeldOutBatchesWithinTwelvePercentMedianWideWithinFifteen) {
  const nlohmann::json data = kernel_data("h100_mlp_fp32.json");  // outlives the loop
  std::vector<double> held_out;
  int wide = 0;
  for (const auto& point : data.at("fp32").at("mlp")) {
    const auto width = point.at("width").get<std::uint32_t>();
    const double batch = point.at("batch").get<double>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    const double error = error_of(point, width, layers);
    if (width >= 2048) {
      ++wide;
      EXPECT_LT(std::abs(error), 0.15) << point.dump();
    }
    EXPECT_GT(error, -0.60) << point.dump();
    EXPECT_LT(error, 0.12) << point.dump();
    if (batch == 256 || batch == 1024 || batch == 4096) held_out.push_back(std::abs(error));
  }
  EXPECT_EQ(wide, 14);  // widths 2048, 4096 x 7 batches
  ASSERT_EQ(held_out.size(), 15u);
  EXPECT_LT(median(held_out), 0.12);
}

}  // namespace
}  // namespace shardsim
