#pragma once
// A hardware preset with round numbers, for tests whose expected values are computed by hand.
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim::testing {

// `gpus_per_node` GPUs per node; HBM 1000 GB/s achievable, 40 GB; dense peak 1 PFLOP/s at 100%
// efficiency (so MLPs are tiny but non-zero); no launch overheads; scale-up 100 GB/s per GPU,
// NIC 10 GB/s per GPU, no latencies; one rack tier holding up to 64 nodes.
inline HardwarePreset hand_preset(int gpus_per_node) {
  HardwarePreset p;
  p.name = "hand";
  p.description = "round numbers for hand calculations";
  p.gpu.name = "hand-gpu";
  p.gpu.hbm_capacity_bytes = 40e9;
  p.gpu.hbm_peak_Bps = 1.5e12;
  p.gpu.hbm_achievable_Bps = 1e12;
  p.gpu.peak_fp32_flops = 1e15;
  p.gpu.peak_tf32_flops = 1e15;
  p.gpu.peak_fp16_flops = 1e15;
  p.gpu.peak_bf16_flops = 1e15;
  p.gpu.mlp_efficiency = 1.0;
  p.gpu.kernel_launch_s = 0;
  p.gpu.l2_bytes = 40e6;
  p.gpus_per_node = gpus_per_node;
  p.scale_up_kind = "nvswitch";
  p.scale_up = LinkSpec{100e9, 0};
  p.scale_up_domain_nodes = 1;
  p.nics_per_node = gpus_per_node;
  p.nic = LinkSpec{10e9, 0};
  p.tiers = {TierSpec{"rack", 64, 1.0, 0}};
  p.reserved_memory_bytes = 0;
  return p;
}

// Cost parameters without latencies or protocol losses (the ideal collective model).
inline CostParams hand_cost_params() {
  CostParams c = default_cost_params();
  c.collective_launch_s = 0;
  c.collective_bandwidth_efficiency = 1.0;
  c.collective_model = CollectiveModelKind::ideal;
  // The hand calculations price the GPU's work only: no host step.
  c.host_eager_step_s = 0;
  c.host_eager_inference_step_s = 0;
  c.host_embedding_op_s = 0;
  c.host_collective_call_s = 0;
  c.host_collective_peer_s = 0;
  // Round figures of the hand calculations; the defaults are fitted to an H100
  // (configs/cost/default.yaml) and judged by tests/cost/*_h100_validation_test.cpp.
  c.interaction_hbm_efficiency = 0.5;
  c.backward_index_bytes_per_lookup = 32;
  c.backward_sort_pass_bytes_per_lookup = 0;  // 32 B a lookup whatever the rows
  c.kernels_per_embedding_backward = 4;
  return c;
}

}  // namespace shardsim::testing
