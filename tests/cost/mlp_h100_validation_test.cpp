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

// The forward + backward time `gpu` predicts for the shape of one measured point: a stack with
// input width `in` (the dgx-h100 preset by default).
double predicted_s(const nlohmann::json& point, std::uint64_t in,
                   const std::vector<std::uint32_t>& layers,
                   const GpuSpec& gpu = builtin_preset("dgx-h100").gpu) {
  const CostParams p = default_cost_params();
  const double batch = point.at("batch").get<double>();
  const std::string name = point.at("precision").get<std::string>();
  const Precision precision = name == "bf16"   ? Precision::bf16
                              : name == "fp16" ? Precision::fp16
                              : name == "fp32" ? Precision::fp32
                                               : Precision::tf32;
  return mlp_forward_s(gpu, in, layers, batch, precision, p) +
         mlp_backward_s(gpu, in, layers, batch, precision, p);
}

// predicted / measured - 1 for one measured point.
double error_of(const nlohmann::json& point, std::uint64_t in,
                const std::vector<std::uint32_t>& layers,
                const GpuSpec& gpu = builtin_preset("dgx-h100").gpu) {
  return predicted_s(point, in, layers, gpu) / point.at("time_s").get<double>() - 1;
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
// bandwidth half: b½ 470 -> 328 (FP32 104 -> 73), everything else the H100's. The same
// command on an H100 the same session (h100_same_day_as_h200.json) is the anchor.
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

bool is_fp32(const nlohmann::json& point) {
  return point.at("precision").get<std::string>() == "fp32";
}

// Wide layers (3840, 4096) at batches 128-1024: where the batch half matters most.
bool wide_small_batch(const nlohmann::json& point) {
  return point.at("width").get<std::uint32_t>() >= 3840 && point.at("batch").get<double>() <= 1024;
}

// Signed errors of `gpu`'s prediction over the tensor-core (TF32/BF16/FP16) wide small-batch
// points of `file` (its "mlp").
std::vector<double> wide_small_batch_errors(const std::string& file, const GpuSpec& gpu) {
  const nlohmann::json data = kernel_data(file);  // outlives the loop
  std::vector<double> errors;
  for (const auto& point : data.at("mlp")) {
    if (is_fp32(point) || !wide_small_batch(point)) continue;
    const auto width = point.at("width").get<std::uint32_t>();
    const std::vector<std::uint32_t> layers(point.at("layers").get<std::size_t>(), width);
    errors.push_back(error_of(point, width, layers, gpu));
  }
  return errors;
}

// Tensor cores (TF32/BF16/FP16). The H100 preset predicts its own GPU's wide small-batch layers
// within 5% median (same-day anchor: +1.2%), so an error on the H200 is the rule's. With the
// rule it predicts the H200's within 10% median (today -3.0%; all 105 points 7.9%); with the
// H100's b½ kept they come out too slow (today +16.0%): the H200 runs those layers 1.07-1.21x
// the H100's rate. The rule overstates the gain a little (b½ 365 fits the measured speedups,
// 0.78 of 470 where the rule says 0.70). docs/validation/kernels.md, "H200".
TEST(MlpH200Validation, TensorCoresFollowTheRidgePointRuleOnTheH200) {
  const GpuSpec h100 = builtin_preset("dgx-h100").gpu;
  const std::vector<double> anchor = wide_small_batch_errors("h100_same_day_as_h200.json", h100);
  const std::vector<double> rule =
      wide_small_batch_errors("h200_mlp_batch_sweep.json", h100_figures_on_an_h200(true));
  const std::vector<double> kept =
      wide_small_batch_errors("h200_mlp_batch_sweep.json", h100_figures_on_an_h200(false));
  ASSERT_EQ(anchor.size(), 24u);  // 2 widths x 4 batches x 3 precisions
  ASSERT_EQ(rule.size(), 24u);
  EXPECT_LT(std::abs(median(anchor)), 0.05);
  EXPECT_LT(std::abs(median(rule)), 0.10);
  EXPECT_GT(median(kept) - std::abs(median(rule)), 0.05);  // kept: further off, on the slow side
  EXPECT_GT(median(kept), 0.10);
}

// FP32 on CUDA cores does not follow it: the H200 runs wide FP32 layers at batches 128-1024 only
// 1.01-1.04x the H100's rate (median 1.03x, measured the same session), where the rule's b½
// (104 -> 73) predicts 1.09x median and about 1.15x at batch 128. The test holds the measured and
// predicted speedups apart, so that a change of either says so. (The preset is 4% slow on the H100
// itself there, which is why the rule's absolute error on the H200 looks small.)
// docs/validation/kernels.md, "H200".
TEST(MlpH200Validation, Fp32GainsLittleOnTheH200WhereTheRulePredictsMore) {
  const nlohmann::json h100 = kernel_data("h100_same_day_as_h200.json");
  const nlohmann::json h200 = kernel_data("h200_mlp_batch_sweep.json");
  const GpuSpec h100_gpu = builtin_preset("dgx-h100").gpu;
  const GpuSpec h200_gpu = h100_figures_on_an_h200(true);
  std::vector<double> measured, predicted;
  for (const auto& a : h100.at("mlp")) {
    if (!is_fp32(a) || !wide_small_batch(a)) continue;
    for (const auto& b : h200.at("mlp")) {
      if (!is_fp32(b) || b.at("width") != a.at("width") || b.at("batch") != a.at("batch")) {
        continue;
      }
      const auto width = a.at("width").get<std::uint32_t>();
      const std::vector<std::uint32_t> layers(a.at("layers").get<std::size_t>(), width);
      measured.push_back(a.at("time_s").get<double>() / b.at("time_s").get<double>());
      predicted.push_back(predicted_s(a, width, layers, h100_gpu) /
                          predicted_s(b, width, layers, h200_gpu));
    }
  }
  ASSERT_EQ(measured.size(), 8u);  // 2 widths x 4 batches
  EXPECT_LT(median(measured), 1.05);
  EXPECT_GT(median(predicted), 1.07);
}

}  // namespace
}  // namespace shardsim
