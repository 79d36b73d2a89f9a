// Roofline cost of the DLRM dot interaction (docs/model.md, "Interaction").
#include <algorithm>

#include "cost/checks.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

namespace {

using cost_detail::achievable_flops_per_s;
using cost_detail::require_rate;
using cost_detail::require_work;

struct InteractionWork {
  double bytes;
  double flops;
};

// Per sample with V vectors of width d at e bytes per element:
//   forward:  read V·d, write V(V−1)/2 + d (the pairwise dots and the dense vector, DLRM's
//             concatenated interaction output); FLOPs 2·V²·d (the batched X·Xᵀ).
//   backward: read the output gradient (V(V−1)/2 + d) and the inputs (V·d), write the input
//             gradients (V·d); FLOPs 2·V²·d ((G + Gᵀ)·X).
InteractionWork interaction_work(double batch, std::uint64_t vectors, std::uint32_t dim,
                                 Precision precision, bool backward) {
  require_work(batch, "interaction batch");
  const double v = static_cast<double>(vectors);
  const double d = static_cast<double>(dim);
  const double e = bytes_per_element(precision);
  const double inputs = v * d;
  const double outputs = v * (v - 1) / 2 + d;
  const double elements = backward ? outputs + 2 * inputs : inputs + outputs;
  return {batch * elements * e, batch * 2 * v * v * d};
}

// Roofline: the slower of memory (bytes over the interaction's share of HBM bandwidth) and
// compute (FLOPs over the achievable dense rate), plus one launch. The efficiency is measured:
// fitted to DLRM's interaction on an H100 (docs/validation/kernels.md, "Small kernels").
double interaction_s(const GpuSpec& gpu, double batch, std::uint64_t vectors, std::uint32_t dim,
                     Precision precision, const CostParams& p, bool backward) {
  if (batch <= 0 || vectors == 0 || dim == 0) {
    require_work(batch, "interaction batch");
    return 0;
  }
  const InteractionWork w = interaction_work(batch, vectors, dim, precision, backward);
  const double hbm = require_rate(gpu.hbm_achievable_Bps, "hbm_achievable_GBps", gpu.name,
                                  "the interaction roofline");
  const double memory_s = w.bytes / (hbm * p.interaction_hbm_efficiency);
  const double compute_s = w.flops / achievable_flops_per_s(gpu, precision);
  return std::max(memory_s, compute_s) + gpu.kernel_launch_s;
}

}  // namespace

double concat_interaction_s(const GpuSpec& gpu, double batch, std::uint64_t width,
                            Precision precision) {
  require_work(batch, "interaction batch");
  const double bytes = batch * 2.0 * static_cast<double>(width) * bytes_per_element(precision);
  if (bytes <= 0) return 0;
  const double hbm = require_rate(gpu.hbm_achievable_Bps, "hbm_achievable_GBps", gpu.name,
                                  "the interaction roofline");
  // A device-to-device copy: an H100 copies at 3029 GB/s read + written, above the preset's
  // 2800 (docs/validation/kernels.md), so no efficiency below 1.
  return bytes / hbm + gpu.kernel_launch_s;
}

double interaction_forward_s(const GpuSpec& gpu, double batch, std::uint64_t vectors,
                             std::uint32_t dim, Precision precision, const CostParams& p) {
  return interaction_s(gpu, batch, vectors, dim, precision, p, false);
}

double interaction_backward_s(const GpuSpec& gpu, double batch, std::uint64_t vectors,
                              std::uint32_t dim, Precision precision, const CostParams& p) {
  return interaction_s(gpu, batch, vectors, dim, precision, p, true);
}

}  // namespace shardsim
