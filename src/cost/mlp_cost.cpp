// Roofline costs of the dense MLP layers (docs/model.md, "MLPs").
#include <algorithm>

#include "cost/checks.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

namespace {

using cost_detail::achievable_flops_per_s;
using cost_detail::require_work;

// Backward runs two GEMMs per layer: the data gradient (dX = dY·Wᵀ) and the weight gradient
// (dW = Xᵀ·dY), each with the forward GEMM's FLOPs.
constexpr double kBackwardFlopsFactor = 2.0;
constexpr int kBackwardLaunchesPerLayer = 2;

double mlp_s(const GpuSpec& gpu, std::uint64_t input_width, std::span<const std::uint32_t> layers,
             double batch, Precision precision, double flops_factor, int launches_per_layer) {
  require_work(batch, "MLP batch");
  // One pass over the layers that do work (in·out > 0), each one kernel launch. Small batches
  // and narrow layers fill the GPU's GEMM tiles less (docs/model.md, "MLPs"): w / (w + w½) for
  // each layer of width w = min(in, out) here and b / (b + b½) for the stack below, both fitted
  // on forward + backward together, so they scale both.
  int working_layers = 0;
  double width_scaled_flops = 0;  // Σ layer FLOPs / its width factor
  std::uint64_t in = input_width;
  for (std::uint32_t out : layers) {
    if (in > 0 && out > 0) {
      ++working_layers;
      const double layer_flops = flops_factor * 2.0 * batch * static_cast<double>(in) * out;
      width_scaled_flops +=
          layer_flops /
          gpu.mlp_width_factor(static_cast<double>(std::min<std::uint64_t>(in, out)), precision);
    }
    in = out;
  }
  if (width_scaled_flops <= 0) return 0;  // no work: no launch
  const double batch_half = gpu.mlp_batch_half_for(precision);
  const double batch_factor = batch_half > 0 ? batch / (batch + batch_half) : 1.0;
  return width_scaled_flops / (achievable_flops_per_s(gpu, precision) * batch_factor) +
         launches_per_layer * working_layers * gpu.kernel_launch_s;
}

}  // namespace

// FLOPs of a dense stack: 2 · batch · Σ_k in_k · out_k (a multiply and an add per weight).
double mlp_forward_flops(std::uint64_t input_width, std::span<const std::uint32_t> layers,
                         double batch) {
  require_work(batch, "MLP batch");
  double macs_per_sample = 0;
  std::uint64_t in = input_width;
  for (std::uint32_t out : layers) {
    macs_per_sample += static_cast<double>(in) * static_cast<double>(out);
    in = out;
  }
  return 2.0 * batch * macs_per_sample;
}

double mlp_forward_s(const GpuSpec& gpu, std::uint64_t input_width,
                     std::span<const std::uint32_t> layers, double batch, Precision precision,
                     const CostParams& /*p*/) {
  return mlp_s(gpu, input_width, layers, batch, precision, 1.0, 1);
}

double mlp_backward_s(const GpuSpec& gpu, std::uint64_t input_width,
                      std::span<const std::uint32_t> layers, double batch, Precision precision,
                      const CostParams& /*p*/) {
  return mlp_s(gpu, input_width, layers, batch, precision, kBackwardFlopsFactor,
               kBackwardLaunchesPerLayer);
}

double dense_arch_forward_s(const GpuSpec& gpu, double flops_per_sample, double batch,
                            Precision precision, const CostParams& p) {
  require_work(batch, "dense arch batch");
  const double flops = flops_per_sample * batch;
  if (flops <= 0) return 0;
  return flops / (achievable_flops_per_s(gpu, precision) *
                  gpu.mlp_width_factor(p.dense_arch_layer_width, precision)) +
         gpu.kernel_launch_s;
}

double dense_arch_backward_s(const GpuSpec& gpu, double flops_per_sample, double batch,
                             Precision precision, const CostParams& p) {
  require_work(batch, "dense arch batch");
  const double flops = kBackwardFlopsFactor * flops_per_sample * batch;
  if (flops <= 0) return 0;
  return flops / (achievable_flops_per_s(gpu, precision) *
                  gpu.mlp_width_factor(p.dense_arch_layer_width, precision)) +
         kBackwardLaunchesPerLayer * gpu.kernel_launch_s;
}

}  // namespace shardsim
