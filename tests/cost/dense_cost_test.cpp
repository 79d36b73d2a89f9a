// MLP and interaction rooflines.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "round_presets.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {
namespace {

using test::round_gpu;

// Bottom MLP 13 -> 512 -> 256 -> 128 (DLRM-style).
constexpr std::array<std::uint32_t, 3> kLayers = {512, 256, 128};

TEST(MlpCost, ForwardMatchesHandCalculation) {
  // MACs/sample = 13·512 + 512·256 + 256·128 = 6656 + 131072 + 32768 = 170496
  // FLOPs = 2 · 1000 · 170496 = 340.992e6
  // fp32: 340.992e6 / (10e12 · 0.5) = 68.1984 us; + 3 layers x 5 us = 83.1984 us
  const CostParams p = default_cost_params();
  EXPECT_DOUBLE_EQ(mlp_forward_flops(13, kLayers, 1000), 340.992e6);
  EXPECT_NEAR(mlp_forward_s(round_gpu(), 13, kLayers, 1000, Precision::fp32, p), 83.1984e-6, 1e-12);
}

TEST(MlpCost, BackwardIsTwiceTheFlopsAndTwoLaunchesPerLayer) {
  // 2 x 68.1984 us + 6 launches x 5 us = 136.3968 + 30 = 166.3968 us
  EXPECT_NEAR(
      mlp_backward_s(round_gpu(), 13, kLayers, 1000, Precision::fp32, default_cost_params()),
      166.3968e-6, 1e-12);
}

TEST(MlpCost, PrecisionSelectsThePeak) {
  // tf32: 340.992e6 / (100e12 · 0.5) = 6.81984 us + 15 us = 21.81984 us
  EXPECT_NEAR(mlp_forward_s(round_gpu(), 13, kLayers, 1000, Precision::tf32, default_cost_params()),
              21.81984e-6, 1e-12);
}

TEST(MlpCost, EachLayerRunsAtItsWidthFactor) {
  // Width half 256: layer 13 -> 512 (w 13) at 13/269, 512 -> 256 (w 256) at 1/2, 256 -> 128
  // (w 128) at 1/3. fp32 FLOPs per layer: 2 · 1000 · (6656, 131072, 32768) = 13.312e6,
  // 262.144e6, 65.536e6; divided by the factors: 275.456e6 + 524.288e6 + 196.608e6 = 996.352e6
  // over 10e12 · 0.5 = 199.2704 us; + 3 launches x 5 us = 214.2704 us.
  GpuSpec gpu = round_gpu();
  gpu.mlp_width_half = 256;
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::fp32, default_cost_params()),
              214.2704e-6, 1e-12);
}

TEST(DenseArchCost, RunsAtTheWidthFactorOfTheCostFilesLayerWidth) {
  // Width half 3072 = dense_arch_layer_width: factor 1/2, so the 58 ms of the test below
  // doubles: 116 ms + 5 us.
  GpuSpec gpu = round_gpu();
  gpu.mlp_width_half = 3072;
  EXPECT_NEAR(dense_arch_forward_s(gpu, 2.9e9, 1000, Precision::tf32, default_cost_params()),
              116.005e-3, 1e-12);
}

TEST(MlpCost, APrecisionsOwnEfficiencyReplacesTheCommonOne) {
  // bf16 at 80%: 340.992e6 / (200e12 · 0.8) = 2.1312 us + 15 us = 17.1312 us; fp16 keeps 50%:
  // 340.992e6 / (200e12 · 0.5) = 3.40992 us + 15 us = 18.40992 us.
  GpuSpec gpu = round_gpu();
  gpu.mlp_efficiency_bf16 = 0.8;
  const CostParams p = default_cost_params();
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::bf16, p), 17.1312e-6, 1e-12);
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::fp16, p), 18.40992e-6, 1e-12);
}

TEST(MlpCost, ABatchHalfSlowsSmallBatchesOnly) {
  // b½ = 1000 at batch 1000 halves the rate: 340.992e6 / (10e12 · 0.5 · 0.5) = 136.3968 us + 15 us;
  // at batch 1e6 the rate is 1e6 / 1.001e6 of it: 340.992e9 / 5e12 · 1.001 s.
  GpuSpec gpu = round_gpu();
  gpu.mlp_batch_half = 1000;
  const CostParams p = default_cost_params();
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::fp32, p), 151.3968e-6, 1e-12);
  EXPECT_NEAR(mlp_backward_s(gpu, 13, kLayers, 1000, Precision::fp32, p), 2 * 136.3968e-6 + 30e-6,
              1e-12);
  const double big = mlp_forward_s(gpu, 13, kLayers, 1e6, Precision::fp32, p) - 15e-6;
  EXPECT_NEAR(big, 340.992e9 / 5e12 * 1.001, 1e-12);
}

TEST(MlpCost, APrecisionsOwnBatchHalfReplacesTheCommonOne) {
  // b½ 1000 for every precision but fp32, whose own is 3000: at batch 1000 fp32 runs at
  // 1000 / 4000 of its rate, 340.992e6 / (10e12 · 0.5 · 0.25) = 272.7936 us + 15 us; tf32 at half
  // of its, 340.992e6 / (100e12 · 0.5 · 0.5) = 13.63968 us + 15 us.
  GpuSpec gpu = round_gpu();
  gpu.mlp_batch_half = 1000;
  gpu.mlp_batch_half_fp32 = 3000;
  const CostParams p = default_cost_params();
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::fp32, p), 287.7936e-6, 1e-12);
  EXPECT_NEAR(mlp_forward_s(gpu, 13, kLayers, 1000, Precision::tf32, p), 28.63968e-6, 1e-12);
}

TEST(DenseOptimizerCost, OneHbmPassOverWeightGradientAndStates) {
  // 1e6 parameters at 1 TB/s plus one 5 us launch: Adam reads w, g, m, v and writes w, m, v,
  // 7 x 4 B = 28 MB, 28 us; AdaGrad and momentum 5 x 4 B (20 us); SGD 3 x 4 B (12 us).
  const GpuSpec gpu = round_gpu();
  const std::pair<DenseOptimizerKind, double> cases[] = {{DenseOptimizerKind::adam, 28e-6},
                                                         {DenseOptimizerKind::adagrad, 20e-6},
                                                         {DenseOptimizerKind::momentum, 20e-6},
                                                         {DenseOptimizerKind::sgd, 12e-6}};
  for (const auto& [kind, s] : cases) {
    EXPECT_NEAR(dense_optimizer_step_s(gpu, 1'000'000, kind), s + 5e-6, 1e-15) << to_string(kind);
  }
  EXPECT_EQ(dense_optimizer_step_s(gpu, 0, DenseOptimizerKind::adam), 0.0);  // nothing to update
}

TEST(MlpCost, ZeroBatchOrNoLayersCostsNothing) {
  const CostParams p = default_cost_params();
  EXPECT_EQ(mlp_forward_s(round_gpu(), 13, kLayers, 0, Precision::fp32, p), 0.0);
  EXPECT_EQ(mlp_backward_s(round_gpu(), 13, {}, 1000, Precision::fp32, p), 0.0);
}

TEST(MlpCost, MissingPeakIsAnInputError) {
  GpuSpec gpu = round_gpu();
  gpu.peak_bf16_flops = 0;  // "0 = the GPU cannot run this precision" (preset schema)
  try {
    mlp_forward_s(gpu, 13, kLayers, 1000, Precision::bf16, default_cost_params());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "gpu.peak_bf16_TFLOPps");
  }
}

// The hand calculations below take a round interaction efficiency of 0.5 (the default, 0.14, is
// fitted to an H100: tests/cost/interaction_h100_validation_test.cpp).
CostParams round_interaction_params() {
  CostParams p = default_cost_params();
  p.interaction_hbm_efficiency = 0.5;
  return p;
}

TEST(InteractionCost, ForwardIsMemoryBoundForSmallVectors) {
  // V = 27 vectors (26 tables + dense), d = 16, fp32, batch 1000.
  // bytes/sample = (V·d + V(V−1)/2 + d) · 4 = (432 + 351 + 16) · 4 = 3196 B -> 3.196e6 B
  // memory  = 3.196e6 / (1e12 · 0.5) = 6.392 us
  // compute = 2 · 27² · 16 · 1000 = 23.328e6 FLOP / 5e12 = 4.6656 us
  // time = max + 5 us launch = 11.392 us
  EXPECT_NEAR(
      interaction_forward_s(round_gpu(), 1000, 27, 16, Precision::fp32, round_interaction_params()),
      11.392e-6, 1e-12);
}

TEST(InteractionCost, BackwardReadsGradientAndInputsWritesInputGradients) {
  // bytes/sample = (367 + 2 · 432) · 4 = 4924 B -> 4.924e6 B / 0.5e12 = 9.848 us (> 4.6656 us)
  // time = 9.848 + 5 = 14.848 us
  EXPECT_NEAR(interaction_backward_s(round_gpu(), 1000, 27, 16, Precision::fp32,
                                     round_interaction_params()),
              14.848e-6, 1e-12);
}

TEST(InteractionCost, LargeVectorsBecomeComputeBound) {
  // V = 100, d = 128, fp32, batch 1000:
  // compute = 2 · 1e4 · 128 · 1000 = 2.56e9 FLOP / 5e12 = 512 us
  // memory  = (12800 + 4950 + 128) · 4 · 1000 = 71.512e6 B / 0.5e12 = 143.024 us
  // time = 512 + 5 = 517 us
  EXPECT_NEAR(interaction_forward_s(round_gpu(), 1000, 100, 128, Precision::fp32,
                                    round_interaction_params()),
              517e-6, 1e-12);
}

TEST(InteractionCost, ZeroWorkCostsNothing) {
  const CostParams p = default_cost_params();
  EXPECT_EQ(interaction_forward_s(round_gpu(), 0, 27, 16, Precision::fp32, p), 0.0);
  EXPECT_EQ(interaction_backward_s(round_gpu(), 1000, 0, 16, Precision::fp32, p), 0.0);
}

TEST(InteractionCost, EfficiencyParameterScalesTheMemoryTerm) {
  CostParams p = round_interaction_params();
  p.interaction_hbm_efficiency = 0.25;  // memory term doubles: 12.784 us + 5 us
  EXPECT_NEAR(interaction_forward_s(round_gpu(), 1000, 27, 16, Precision::fp32, p), 17.784e-6,
              1e-12);
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

TEST(DenseArchCost, ForwardAndBackwardFollowTheMlpRoofline) {
  // 2.9e9 FLOPs/sample x 1000 samples = 2.9e12 FLOPs at tf32: 2.9e12 / (100e12 · 0.5) = 58 ms,
  // + 1 launch (5 us) = 58.005 ms; backward twice the FLOPs and 2 launches: 116.01 ms.
  EXPECT_NEAR(
      dense_arch_forward_s(test::round_gpu(), 2.9e9, 1000, Precision::tf32, default_cost_params()),
      58.005e-3, 1e-12);
  EXPECT_NEAR(
      dense_arch_backward_s(test::round_gpu(), 2.9e9, 1000, Precision::tf32, default_cost_params()),
      116.01e-3, 1e-12);
  // No dense arch: nothing, not even a launch.
  EXPECT_EQ(
      dense_arch_forward_s(test::round_gpu(), 0, 1000, Precision::tf32, default_cost_params()),
      0.0);
  EXPECT_EQ(
      dense_arch_backward_s(test::round_gpu(), 0, 1000, Precision::tf32, default_cost_params()),
      0.0);
}

TEST(ConcatInteractionCost, IsACopyOfTheOutputWidth) {
  // width 1000, batch 1000, fp32: read + write 2 · 1000 · 4 B per sample = 8e6 B over the
  // achievable 1e12 B/s (a copy reaches it) = 8 us, + 5 us launch = 13 us.
  EXPECT_NEAR(concat_interaction_s(test::round_gpu(), 1000, 1000, Precision::fp32), 13e-6, 1e-12);
  EXPECT_EQ(concat_interaction_s(test::round_gpu(), 1000, 0, Precision::fp32), 0.0);
}

}  // namespace
}  // namespace shardsim
