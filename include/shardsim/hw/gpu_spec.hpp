#pragma once
#include <string>

#include "shardsim/core/precision.hpp"

namespace shardsim {

// One GPU model. Every number comes from a preset file that cites its source.
struct GpuSpec {
  std::string name;
  double hbm_capacity_bytes = 0;
  double hbm_peak_Bps = 0;
  double hbm_achievable_Bps = 0;  // what embedding kernels reach (Neo App. B: A100 1300 GB/s)
  double peak_fp32_flops = 0;     // dense, per second
  double peak_tf32_flops = 0;
  double peak_fp16_flops = 0;
  double peak_bf16_flops = 0;
  double mlp_efficiency = 0;  // achievable fraction of peak for MLP GEMMs (A100: 0.705)
  // The same for one math precision where the preset measured it apart (0: mlp_efficiency).
  double mlp_efficiency_fp32 = 0, mlp_efficiency_tf32 = 0;
  double mlp_efficiency_fp16 = 0, mlp_efficiency_bf16 = 0;
  // The per-GPU batch at which an MLP's GEMMs reach half their efficiency: a stack at batch b
  // runs at mlp_efficiency_for(p) · b / (b + mlp_batch_half_for(p)). 0: no batch dependence.
  double mlp_batch_half = 0;
  // The same for one math precision where the preset gives it apart (0: mlp_batch_half).
  double mlp_batch_half_fp32 = 0, mlp_batch_half_tf32 = 0;
  double mlp_batch_half_fp16 = 0, mlp_batch_half_bf16 = 0;
  // The layer width at which an MLP layer's GEMMs reach half their efficiency: a layer of
  // width w = min(in, out) runs at w / (w + mlp_width_half_for(p)) of it. 0: no width
  // dependence.
  double mlp_width_half = 0;
  // The same for one math precision where the preset gives it apart (0: mlp_width_half).
  double mlp_width_half_fp32 = 0, mlp_width_half_tf32 = 0;
  double mlp_width_half_fp16 = 0, mlp_width_half_bf16 = 0;
  double kernel_launch_s = 0;  // fixed overhead per kernel
  double l2_bytes = 0;

  double peak_flops(Precision p) const;
  // The fraction of peak(p) MLP GEMMs reach: the precision's own figure, else mlp_efficiency.
  double mlp_efficiency_for(Precision p) const;
  // The batch half of MLPs in precision p: the precision's own figure, else mlp_batch_half.
  double mlp_batch_half_for(Precision p) const;
  // The width half of MLPs in precision p: the precision's own figure, else mlp_width_half.
  double mlp_width_half_for(Precision p) const;
  // w / (w + mlp_width_half_for(p)) for a layer of width w; 1 without a width half.
  double mlp_width_factor(double width, Precision p) const;
};

}  // namespace shardsim
