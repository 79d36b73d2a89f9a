// The MLP roofline of the dgx-h100 preset (efficiency x batch factor x width factor) against
// MLPs measured on an H100 SXM5 (tests/data/kernels/: 20 layers Linear(w, w) + ReLU and
// DLRM-shaped stacks, forward and backward, CUDA-graph replays, TF32, BF16 and FP16;
// docs/validation/kernels.md, "MLPs", "Whole stacks", "Narrow MLPs"), and the same figures
// carried to an H200 by the ridge-point rule (docs/validation/kernels.md, "H200").
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
                const std::vector<std::uint32_t>& layers,
                const GpuSpec& gpu = builtin_preset("dgx-h100").gpu) {
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

// The H100's figures on an H200 (tests/data/kernels/h200_mlp_batch_sweep.json, none fitted):
// the same chip (132 SMs, the same peak FLOP/s) with 4.8 TB/s of HBM (datasheet) against
// 3.35. The A100 presets' batch halves come from the H100's by the ridge-point rule (b½
// proportional to bytes per element x peak / peak HBM bandwidth; docs/validation/kernels.md,
// "A100"); between these two GPUs only the bandwidth changes, so the H200 judges the rule's
// bandwidth half: b½ 470 -> 328 (FP32 104 -> 73), everything else the H100's.
GpuSpec h100_figures_on_an_h200(bool ridge_rule) {
  GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const double h200_hbm_peak_Bps = 4.8e12;
  const double ratio = gpu.hbm_peak_Bps / h200_hbm_peak_Bps;
  gpu.hbm_peak_Bps = h200_hbm_peak_Bps;
  if (ridge_rule) {
    for (double* half : {&gpu.mlp_batch_half, &gpu.mlp_batch_half_fp32, &gpu.mlp_batch_half_tf32,
                         &gpu.mlp_batch_half_fp16, &gpu.mlp_batch_half_bf16}) {
      *half *= ratio;
    }
  }
  return gpu;
}

struct H200Errors {
  std::vector<double> all_abs;           // every point, |error|
  std::vector<double> wide_small_batch;  // widths 3840/4096 at batches <= 1024, signed
};

H200Errors h200_errors(bool ridge_rule, bool fp32) {
  const GpuSpec gpu = h100_figures_on_an_h200(ridge_rule);
  const nlohmann::json data = kernel_data("h200_mlp_batch_sweep.json");  // outlives the loop
  H200Errors e;
  for (const auto& point : data.at("mlp")) {
    if ((point.at("precision").get<std::string>() == "fp32") != fp32) continue;
    const auto width = point.at("width").get<std::uint32_t>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    const double error = error_of(point, width, layers, gpu);
    e.all_abs.push_back(std::abs(error));
    if (width >= 3840 && point.at("batch").get<double>() <= 1024) {
      e.wide_small_batch.push_back(error);
    }
  }
  return e;
}

// With the rule, the H100's tensor-core figures predict the H200's wide layers (3840, 4096) at
// batches 128-1024 within 10% median (today: -3.0% signed; all 105 points 7.9% median); without
// it (the H100's b½ kept, as if the batch half were a property of the compute alone) they come
// out too slow (today +16.0%; all points 14.5%). FP32 on CUDA cores likewise: +0.4% with the
// rule, +9.6% without (all 35 points 6.8% and 7.6%). docs/validation/kernels.md, "H200".
TEST(MlpH200Validation, RidgePointRuleCarriesTheH100BatchHalfToTheH200) {
  for (bool fp32 : {false, true}) {
    SCOPED_TRACE(fp32 ? "fp32" : "tf32/bf16/fp16");
    const H200Errors rule = h200_errors(true, fp32);
    const H200Errors kept = h200_errors(false, fp32);
    ASSERT_EQ(rule.all_abs.size(), fp32 ? 35u : 105u);  // 5 widths x 7 batches per precision
    ASSERT_EQ(rule.wide_small_batch.size(), fp32 ? 8u : 24u);
    const double with_rule = median(rule.wide_small_batch);
    EXPECT_LT(std::abs(with_rule), 0.10);
    // Without the rule, at least 5 points further off, on the slow side.
    EXPECT_GT(median(kept.wide_small_batch) - std::abs(with_rule), 0.05);
    EXPECT_LT(median(rule.all_abs), 0.10);
  }
}

}  // namespace
}  // namespace shardsim
