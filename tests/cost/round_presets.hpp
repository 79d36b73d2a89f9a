#pragma once
// Hand-made hardware with round numbers, so that every expected value in the cost tests can be
// worked out by hand in a comment.
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim::test {

// A GPU with 1 TB/s achievable HBM, 10/100/200/200 TFLOP/s fp32/tf32/fp16/bf16 peaks, 50% MLP
// efficiency and a 5 us launch.
inline GpuSpec round_gpu() {
  GpuSpec g;
  g.name = "round-gpu";
  g.hbm_capacity_bytes = 80e9;
  g.hbm_peak_Bps = 1.2e12;
  g.hbm_achievable_Bps = 1e12;
  g.peak_fp32_flops = 10e12;
  g.peak_tf32_flops = 100e12;
  g.peak_fp16_flops = 200e12;
  g.peak_bf16_flops = 200e12;
  g.mlp_efficiency = 0.5;
  g.kernel_launch_s = 5e-6;
  g.l2_bytes = 40e6;
  return g;
}

// `gpus_per_node` GPUs per node on an NVSwitch of 100 GB/s per GPU per direction, NICs giving
// each GPU a 10 GB/s share (one 10 GB/s NIC per GPU), and one tier (a rack holding `rack_nodes`
// nodes) under a top tier. All latencies are `latency_s` (0 by default: pure β tests).
inline HardwarePreset round_preset(int gpus_per_node = 2, int rack_nodes = 64,
                                   double rack_oversubscription = 1, double latency_s = 0) {
  HardwarePreset p;
  p.name = "round";
  p.description = "hand-made preset with round numbers for cost tests";
  p.gpu = round_gpu();
  p.gpus_per_node = gpus_per_node;
  p.scale_up_kind = "nvswitch";
  p.scale_up = LinkSpec{100e9, latency_s};
  p.scale_up_domain_nodes = 1;
  p.nics_per_node = gpus_per_node;
  p.nic = LinkSpec{10e9, latency_s};
  p.tiers = {TierSpec{"rack", rack_nodes, rack_oversubscription, latency_s},
             TierSpec{"pod", 64, 1, latency_s}};
  p.reserved_memory_bytes = 1e9;
  p.source_file = "<round preset>";
  return p;
}

// Efficiency 1 and no launch term: the collective formulas reduce to bytes / bandwidth + α.
inline CostParams ideal_collectives() {
  CostParams p = default_cost_params();
  p.collective_bandwidth_efficiency = 1.0;
  p.collective_launch_s = 0;
  p.collective_model = CollectiveModelKind::ideal;
  return p;
}

}  // namespace shardsim::test
